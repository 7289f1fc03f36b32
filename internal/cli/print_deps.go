package cli

import (
	"errors"
	"os"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/llm/provider"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/session"
	"github.com/chanto-dev/chanto/internal/tool"
)

// This file adapts the packages print mode stands on: configuration,
// providers, tools and sessions.

// loadConfig reads the user and project configuration for the project
// holding cwd; the warnings name project keys ignored outside trust.
func loadConfig(cwd string) (config.Config, []string, error) {
	l, err := config.Load(config.LoadOptions{ProjectDir: config.FindProjectRoot(cwd)})
	if err != nil {
		return config.Config{}, nil, err
	}
	return l.Config, l.Warnings, nil
}

// openProvider resolves the --model spec; keys come from the environment.
func openProvider(spec string, cfg config.Config) (llm.Provider, string, error) {
	return provider.Open(spec, cfg, os.Getenv)
}

func builtinTools() []tool.Tool { return tool.Builtin() }

// newRunner is how the model's commands run: the environment without
// secrets (provider keys named explicitly). The sandbox plugs in here.
func newRunner(cfg config.Config, root string) (*run.Runner, error) {
	return &run.Runner{PassEnv: cfg.Secrets.PassEnv, ScrubExtra: providerKeyEnvs(cfg)}, nil
}

// newApprover decides which tool calls run in print mode. The stand-in
// refuses what would need asking; the permission policy replaces it here.
func newApprover(cfg config.Config, root string) (agent.Approver, error) {
	return agent.ModeApprover{Mode: cfg.Permissions.Mode, Lockdown: cfg.Permissions.Lockdown}, nil
}

// printSession is the transcript of a print-mode run.
type printSession interface {
	ID() string
	Append(llm.Message) error
	History() ([]llm.Message, error)
	Warnings() []string
	Close() error
}

var _ printSession = (*session.Session)(nil)

// openSession starts a new session, or reopens the one --resume or
// --continue names. Naming a session that does not exist is bad usage.
func openSession(opts *agentOptions, cwd, model string) (printSession, error) {
	switch {
	case opts.resume != "":
		s, err := session.Open(opts.resume)
		if errors.Is(err, session.ErrNotFound) {
			return nil, usageError("--resume %s: no such session (chanto sessions lists them)", opts.resume)
		}
		return s, err
	case opts.continueLast:
		m, err := session.Latest(cwd)
		if errors.Is(err, session.ErrNotFound) {
			return nil, usageError("--continue: no earlier session in %s", cwd)
		}
		if err != nil {
			return nil, err
		}
		return session.Open(m.ID)
	}
	return session.Create(cwd, model)
}
