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
func loadConfig(cwd string) (*config.Loaded, error) {
	return config.Load(config.LoadOptions{ProjectDir: config.FindProjectRoot(cwd)})
}

// openProvider resolves the --model spec; keys come from the environment.
func openProvider(spec string, cfg config.Config) (llm.Provider, string, error) {
	return provider.Open(spec, cfg, os.Getenv)
}

func builtinTools() []tool.Tool { return tool.Builtin() }

// newRunner is how every command runs — the model's, the gate's checks,
// hooks: the environment without secrets (provider keys named
// explicitly), the sandbox, and the permission check on gate checks
// (safety.go).
func newRunner(cfg config.Config, root string) (*run.Runner, error) {
	return safeRunner(cfg, root)
}

// newApprover decides which tool calls run in print mode: the
// pre_tool_use hooks, then the permission policy, where "ask" is a
// refusal naming the rule to add (safety.go).
func newApprover(cfg config.Config, root string) (agent.Approver, error) {
	return safeApprover(cfg, root)
}

// printSession is the transcript of a print-mode run.
type printSession interface {
	ID() string
	Append(llm.Message) error
	History() ([]llm.Message, error)
	Warnings() []string
	Close() error
	// FullRuns and RecordFullRun keep the gate's full-suite timings
	// across turns (--continue, --resume).
	FullRuns() map[string]float64
	RecordFullRun(key string, secs float64) error
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
