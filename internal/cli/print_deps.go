package cli

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/chanto-dev/chanto/internal/app"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/sandbox"
)

// This file adapts internal/app, where a session is built for every face,
// to print mode and chanto verify.

// sandboxOptions lets tests point the sandbox at a missing bubblewrap.
var sandboxOptions []sandbox.Option

// loadConfig reads the user and project configuration for the project
// holding cwd; the warnings name project keys ignored outside trust.
func loadConfig(cwd string) (*config.Loaded, error) {
	return config.Load(config.LoadOptions{ProjectDir: config.FindProjectRoot(cwd)})
}

// newRunner is how every command runs — the model's, the gate's checks,
// hooks (app.NewRunner).
func newRunner(cfg config.Config, root string) (*run.Runner, error) {
	return app.NewRunner(cfg, root, app.RunnerOptions{Sandbox: sandboxOptions, Warn: warnText})
}

// openSession starts a new session, or reopens the one --resume or
// --continue names. Naming a session that does not exist is bad usage.
func openSession(opts *agentOptions, cwd, model string) (app.Transcript, error) {
	t, err := app.OpenTranscript(app.Reopen{ID: opts.resume, Latest: opts.continueLast}, cwd, model)
	var ne *app.NoSessionError
	if errors.As(err, &ne) {
		return nil, usageError("%v", err)
	}
	return t, err
}

// warnText reports what a hook layer has to say: failed hooks and the
// stop hook's cap. Print mode's stderr is the process's.
func warnText(s string) { diag(os.Stderr, "%s", s) }

// openLog is the diagnostics log under chanto's home, for errors that
// have no one to return to. When it cannot be opened the diagnostics go
// nowhere: the run itself must not fail for its log.
func openLog() (*slog.Logger, func()) {
	dir := config.Home()
	f, err := os.OpenFile(filepath.Join(dir, "chanto.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		if os.MkdirAll(dir, 0o700) != nil {
			return nil, func() {}
		}
		if f, err = os.OpenFile(filepath.Join(dir, "chanto.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err != nil {
			return nil, func() {}
		}
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo})), func() { f.Close() }
}
