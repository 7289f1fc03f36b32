// Package app builds a running session from configuration — provider,
// tools, runner and sandbox, permissions and hooks, the gate, transcript —
// in one place, for every face: print mode drives it with one prompt, the
// TUI with many, and the hooks for other agents will too. A face drives a
// Session by operations (Prompt, Interrupt, Answer, SetVerify, SetFull,
// AllowTestEdit, SetMode) and reads what happens from Updates: the
// agent's events, permission questions and the end of each turn.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/gate"
	"github.com/chanto-dev/chanto/internal/git"
	"github.com/chanto-dev/chanto/internal/goal"
	"github.com/chanto-dev/chanto/internal/hook"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/mcp"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/sandbox"
	"github.com/chanto-dev/chanto/internal/tool"
	"github.com/chanto-dev/chanto/internal/verify"
)

// Options is what a session is built from.
type Options struct {
	// Config is the effective configuration, flags applied.
	Config config.Config
	// Cwd is the project folder the tools work in.
	Cwd string
	// Provider and Model are the opened model (OpenProvider).
	Provider llm.Provider
	Model    string
	// Transcript records the conversation and holds its history.
	Transcript Transcript
	// FullReason names what asked for the full suite, for the evidence
	// ("--verify-full", `scope = "full" in ~/.chanto/config.toml`).
	FullReason string
	// Schema, when set, is an --output-schema run: no gate.
	Schema *agent.SchemaPolicy
	// MaxTurns caps the model calls of a turn; 0: no cap.
	MaxTurns int
	// Goal, when set, is the session's goal from now on (--goal,
	// --goal-file); nil keeps the goal a resumed session had.
	Goal *goal.Goal
	// Sink receives the events. Nil: they come out of Updates.
	Sink event.Sink
	// Interactive sessions ask the user (a Question in Updates) where the
	// permission rules say "ask"; others refuse with the rule to add.
	Interactive bool
	// Warn hears what the user must see but that is not an event: hooks
	// that failed, the stop hook's cap. Nil: a Notice in Updates.
	Warn func(string)
	// Logger records errors that have no one to return to (a transcript
	// that would not close); nil discards them.
	Logger *slog.Logger
	// Sandbox lets tests point the sandbox at a missing bubblewrap.
	Sandbox []sandbox.Option
	// MCPApprove names project MCP servers the user approved on the
	// command line (--mcp-approve); the approval is recorded.
	MCPApprove []string
}

// Session is one conversation with its agent, gate and permissions.
// Operations may be called from any goroutine.
type Session struct {
	opts    Options
	agent   *agent.Agent
	gate    *gate.Policy // nil for schema runs
	runner  *run.Runner
	perm    *permitter
	checker *editChecker
	updates *queue
	log     *slog.Logger
	mcp     *mcp.Manager

	turns turnControl
}

// Build assembles a session. Errors are the user's to fix (a broken
// permission rule, a hook that cannot be set up, a sandbox that cannot
// be built) and nothing has run yet.
func Build(opts Options) (*Session, error) {
	s := &Session{opts: opts, updates: newQueue(), log: opts.Logger}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Warn == nil {
		s.opts.Warn = func(line string) { s.updates.push(Update{Notice: line}) }
	}
	system, err := agent.SystemPrompt(opts.Cwd, time.Now())
	if err != nil {
		return nil, err
	}
	if opts.Schema != nil {
		system += "\n" + opts.Schema.Instructions() + "\n"
	}
	history, err := opts.Transcript.History()
	if err != nil {
		return nil, err
	}
	s.runner, err = NewRunner(opts.Config, opts.Cwd, RunnerOptions{Sandbox: opts.Sandbox, Warn: s.opts.Warn})
	if err != nil {
		return nil, err
	}
	hooks, err := s.hookSet()
	if err != nil {
		return nil, err
	}
	s.perm, err = newPermitter(s.withSavedAllows(opts.Config.Permissions), opts.Cwd, hooks, s.opts.Warn)
	if opts.Interactive {
		s.perm.ask = s.ask
	}
	if err != nil {
		return nil, err
	}
	loaded := LoadAgents(opts.Config, opts.Cwd)
	for _, p := range loaded.Problems {
		s.opts.Warn(p)
	}
	ms := &models{cfg: opts.Config}
	if spec := opts.Config.OracleModel; spec != "" && spec != opts.Config.Model {
		// A broken oracle_model is the user's to fix before anything runs.
		if _, _, err := ms.open(spec); err != nil {
			return nil, fmt.Errorf("oracle_model: %w", err)
		}
	}
	web, err := s.newWeb()
	if err != nil {
		return nil, err
	}
	ro, err := readOnlyRunner(opts.Config, opts.Cwd, RunnerOptions{Sandbox: opts.Sandbox, Warn: s.opts.Warn})
	if err != nil {
		return nil, err
	}
	s.startMCP()
	s.checker = newEditChecker(opts.Config, opts.Cwd, s.runner)
	s.agent = agent.New(agent.Options{
		Provider:       opts.Provider,
		Model:          opts.Model,
		ModelSpec:      opts.Config.Model,
		Agents:         loaded.Set,
		OpenModel:      ms.open,
		ReadOnlyRunner: ro,
		Tools:          Tools(loaded.Set), // subagents get no task tool
		MoreTools:      s.mcpTools,
		Env:            &tool.Env{Root: opts.Cwd, Runner: s.runner, Web: web, Checker: s.checker},
		Sink:           s.sink(),
		SessionID:      opts.Transcript.ID(),
		System:         system,
		MaxTurns:       opts.MaxTurns,
		ContextWindow:  opts.Config.Providers[opts.Provider.Name()].ContextWindow,
		Transcript:     opts.Transcript,
		History:        history,
		Policy:         s.policy(),
		Budget:         s.budget(),
		Permissions:    s.perm,
	})
	if err := s.startGoal(); err != nil {
		return nil, err
	}
	return s, nil
}

// hookSet is the user's hooks, run through a runner built the same way
// as the model's.
func (s *Session) hookSet() (*hook.Hooks, error) {
	r, err := NewRunner(s.opts.Config, s.opts.Cwd, RunnerOptions{Sandbox: s.opts.Sandbox, Warn: s.opts.Warn})
	if err != nil {
		return nil, err
	}
	return hook.New(s.opts.Config.Hooks, r, hooksFromLoadedConfig)
}

// policy picks the policy that rules on the final answer. Schema runs
// have no gate (DESIGN §4). Otherwise the done-gate and test protection
// rule (built from the guardrails, flags already applied; with guardrails
// off they still guard against tampering and finishing on a failed run),
// with the user's stop hooks around them.
func (s *Session) policy() agent.Policy {
	if s.opts.Schema != nil {
		return s.opts.Schema
	}
	s.gate = newGate(s.opts.Config, s.opts.Cwd, s.opts.FullReason, s.opts.Transcript, s.runner, s.log)

	hooks, err := hook.New(s.opts.Config.Hooks, s.runner, hooksFromLoadedConfig)
	if err != nil {
		s.opts.Warn(err.Error())
		return s.gate
	}
	return agent.Chain(s.gate, agent.WithHooks(agent.HookOptions{
		Hooks: hooks, Cwd: s.opts.Cwd, Source: "startup", Warn: s.opts.Warn}))
}

// newGate builds verified mode from the effective guardrails.
func newGate(cfg config.Config, root, fullReason string, t Transcript, runner *run.Runner, log *slog.Logger) *gate.Policy {
	g := cfg.Guardrails
	return gate.New(gate.Options{
		FullRunSecs: t.FullRuns(),
		Measured: func(key string, secs float64) {
			if err := t.RecordFullRun(key, secs); err != nil {
				log.Warn("record a full-run timing", "err", err) // only next turn's shortcut is lost
			}
		},
		Verify:         g.Enabled,
		Full:           g.Scope == "full",
		FullReason:     fullReason,
		Checks:         g.Checks,
		TeamChecks:     verify.TeamChecks(cfg.TeamChecks),
		MaxAttempts:    g.MaxAttempts,
		Timeout:        time.Duration(g.TimeoutSecs) * time.Second,
		ProtectTests:   g.ProtectTests,
		Oracle:         g.Oracle,
		AllowTestEdits: g.AllowTestEdits,
		Runner:         runner,
		Root:           repoTop(runner, root, log),
	})
}

// repoTop is the top of the git work tree holding dir, else dir: the turn
// snapshot covers the whole repository even when chanto starts in a
// sub-folder.
func repoTop(r *run.Runner, dir string, log *slog.Logger) string {
	// No context reaches here; rev-parse answers at once, so a short
	// bound keeps an interrupt prompt.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	top, err := git.Top(ctx, r, dir)
	if err != nil {
		log.Debug("repository top not found; the snapshot covers the project folder", "dir", dir, "err", err)
		return dir
	}
	return top
}

// sink is where the agent's events go.
func (s *Session) sink() event.Sink {
	if s.opts.Sink != nil {
		return s.opts.Sink
	}
	return event.Func(func(e event.Event) { s.updates.push(Update{Event: &e}) })
}

// budget is the goal's budget check, for a session with a gate.
func (s *Session) budget() agent.Budget {
	if s.gate == nil {
		return nil
	}
	return s.gate.OverBudget
}

// ID is the session id.
func (s *Session) ID() string { return s.opts.Transcript.ID() }

// Transcript is the session's record on disk.
func (s *Session) Transcript() Transcript { return s.opts.Transcript }

// Runner is the runner the session's commands go through (a face's !cmd).
func (s *Session) Runner() *run.Runner { return s.runner }

// Messages is the conversation so far. Call it between turns.
func (s *Session) Messages() []llm.Message { return s.agent.Messages() }

// Updates is what happens in the session, in order. It is only fed when
// Options.Sink is nil (events), Options.Warn is nil (notices) or the
// session is interactive (questions, turn ends).
func (s *Session) Updates() <-chan Update { return s.updates.out }

// Close ends the session: a running turn is interrupted and the
// transcript closed.
func (s *Session) Close() error {
	s.Interrupt()
	s.turns.wait()
	s.mcp.Close()
	s.checker.close()
	s.updates.close()
	if err := s.opts.Transcript.Close(); err != nil {
		return fmt.Errorf("close transcript: %w", err)
	}
	return nil
}
