package cli

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/llm/scripted"
	"github.com/chanto-dev/chanto/internal/run"
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

func openProvider(spec string, cfg config.Config) (llm.Provider, string, error) {
	if path, ok := strings.CutPrefix(spec, "scripted:"); ok {
		m, err := scripted.Open(path)
		if err != nil {
			return nil, "", err
		}
		return m, path, nil
	}
	name, _, _ := strings.Cut(spec, "/")
	return nil, "", fmt.Errorf("--model %s: unknown provider %q", spec, name)
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
	Close() error
}

type memSession struct {
	id string
}

func openSession(opts *agentOptions, cwd, model string) (printSession, error) {
	if opts.resume != "" || opts.continueLast {
		return nil, errors.New("sessions are not available yet")
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return &memSession{id: hex.EncodeToString(b)}, nil
}

func (s *memSession) ID() string                      { return s.id }
func (s *memSession) Append(llm.Message) error        { return nil }
func (s *memSession) History() ([]llm.Message, error) { return nil, nil }
func (s *memSession) Close() error                    { return nil }
