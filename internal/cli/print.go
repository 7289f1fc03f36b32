package cli

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/app"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/goal"
	"github.com/chanto-dev/chanto/internal/llm"
)

// printRun is everything a print-mode run is assembled from.
type printRun struct {
	opts *agentOptions
	cfg  config.Config
	// fullReason names what asked for the full suite ("--verify-full",
	// `scope = "full" in ~/.chanto/config.toml`).
	fullReason string
	cwd        string
	provider   llm.Provider
	model      string
	session    app.Transcript
	schema     *agent.SchemaPolicy
	goal       *goal.Goal
	out        output
}

// runPrint runs one prompt to a final answer and maps the outcome to an
// exit code: 0 verified or nothing to verify, 3 not verified, 1 error or
// interrupt, 2 bad usage (DESIGN §1).
func runPrint(ctx context.Context, opts *agentOptions, prompt string, std *stdio) error {
	pr, err := preparePrint(opts, std)
	if err != nil {
		return err
	}
	log, closeLog := openLog()
	defer closeLog()
	defer func() {
		if err := pr.session.Close(); err != nil && log != nil {
			log.Error("close session", "session", pr.session.ID(), "err", err)
		}
	}()
	res := pr.run(ctx, prompt, log)
	pr.out.finish(res)
	switch {
	case res.Err != nil && opts.outputFormat == formatText:
		return withCode(res.ExitCode, res.Err)
	case res.Err != nil:
		// The error is in the output already; stderr still gets one line.
		diag(std.err, "%s", res.Err)
		return withCode(res.ExitCode, nil)
	case res.ExitCode != ExitOK:
		return withCode(res.ExitCode, nil)
	}
	return nil
}

// preparePrint loads the configuration, opens the provider and the session
// and checks the output schema. Every mistake here is the user's to fix
// before anything runs.
func preparePrint(opts *agentOptions, std *stdio) (*printRun, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	recoverPutbacks(std)
	loaded, err := loadConfig(cwd)
	if err != nil {
		return nil, usageError("%v", err)
	}
	cfg := loaded.Config
	for _, w := range loaded.Warnings {
		diag(std.err, "warning: %s", w)
	}
	applyFlags(&cfg, opts)
	g, err := opts.goal.build(loaded, cwd)
	if err != nil {
		return nil, err
	}
	pr := &printRun{goal: g, opts: opts, cfg: cfg, cwd: cwd, out: newOutput(opts.outputFormat, std), fullReason: fullReason(loaded, opts.verify.Full)}
	if opts.outputSchema != "" {
		if pr.schema, err = agent.LoadSchema(opts.outputSchema); err != nil {
			return nil, usageError("%v", err)
		}
		if cfg.Guardrails.Enabled {
			// --verify with a schema is refused (agentOptions.validate); the
			// same rule holds when the configuration asked for the gate, but
			// a setting meant for every run is no reason to refuse this one.
			diag(std.err, "warning: [guardrails] enabled = true does not apply to --output-schema runs: they have no done-gate")
			pr.cfg.Guardrails.Enabled = false
		}
	}
	pr.provider, pr.model, err = app.OpenProvider(cfg.Model, cfg)
	if err != nil {
		// A model that cannot be opened (unknown provider, no key, a broken
		// script) is the user's to fix before anything runs.
		return nil, withCode(ExitUsage, err)
	}
	pr.session, err = openSession(opts, cwd, cfg.Model)
	if err != nil {
		return nil, err
	}
	for _, w := range pr.session.Warnings() {
		diag(std.err, "warning: %s", w)
	}
	return pr, nil
}

// applyFlags lays the command-line flags over the configuration.
func applyFlags(cfg *config.Config, opts *agentOptions) {
	if opts.model != "" {
		cfg.Model = opts.model
	}
	if opts.permissionMode != "" {
		cfg.Permissions.Mode = opts.permissionMode
	}
	if opts.lockdown {
		cfg.Permissions.Lockdown = true
	}
	if opts.sandbox != "" {
		cfg.Sandbox.Mode = opts.sandbox
	}
	v := opts.verify
	if v.Enabled {
		cfg.Guardrails.Enabled = true
	}
	if v.Full {
		cfg.Guardrails.Scope = "full"
	}
	if len(v.Checks) > 0 {
		cfg.Guardrails.Checks = v.Checks
	}
	cfg.Guardrails.AllowTestEdits = append(cfg.Guardrails.AllowTestEdits, v.AllowTestEdits...)
}

// run executes the turn and turns its outcome into a runResult.
func (pr *printRun) run(ctx context.Context, prompt string, log *slog.Logger) runResult {
	res := runResult{SessionID: pr.session.ID()}
	pr.out.Emit(event.Event{Type: event.SessionStarted, SessionID: res.SessionID, Time: time.Now().UTC(),
		Model: pr.cfg.Model, Cwd: pr.cwd})
	s, err := app.Build(app.Options{
		Config:     pr.cfg,
		Cwd:        pr.cwd,
		Provider:   pr.provider,
		Model:      pr.model,
		Transcript: pr.session,
		FullReason: pr.fullReason,
		Schema:     pr.schema,
		MaxTurns:   pr.opts.maxTurns,
		Goal:       pr.goal,
		Sink:       pr.out,
		Warn:       warnText,
		Logger:     log,
		Sandbox:    sandboxOptions,
		MCPApprove: pr.opts.mcpApprove,
	})
	if err != nil {
		res.Err, res.ExitCode = err, ExitError
		return res
	}
	defer s.StopMCP()
	out, err := s.Run(ctx, prompt)
	res.Answer, res.Verdict, res.Evidence = out.Answer, string(out.Verdict), out.Evidence
	res.Usage, res.NumTurns = event.Usage(out.Usage), out.ModelCalls
	switch {
	case errors.Is(err, agent.ErrInterrupted) || ctx.Err() != nil:
		res.Err, res.ExitCode = errors.New("interrupted"), ExitError
	case err != nil:
		res.Err, res.ExitCode = err, ExitError
	case out.Verdict == agent.NotVerified:
		res.ExitCode = ExitNotVerified
	}
	if res.Verdict == "" {
		res.Verdict = string(agent.NothingToVerify)
	}
	return res
}
