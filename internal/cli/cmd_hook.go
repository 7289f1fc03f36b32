package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/hookgate"
	"github.com/chanto-dev/chanto/internal/sandbox"
	"github.com/chanto-dev/chanto/internal/verify"
)

// newHookCmd is `chanto hook`: the gate behind other agents' hooks. Each
// agent's name is a subcommand that answers one hook event.
func newHookCmd(std *stdio) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Be the done-gate of Claude Code, Codex CLI or gemini-cli through their hooks",
		Long: `chanto hook claude|codex|gemini reads one hook event of that agent on stdin
and answers on stdout in its format: a snapshot when a turn starts, test
protection after each tool call, the project's checks when the agent stops.
chanto hook install AGENT writes the entries that run it into the agent's
settings; uninstall removes them; status shows what is installed where.
See docs/hooks-for-agents.md.`,
		Args: cobra.NoArgs,
	}
	for _, a := range hookgate.Agents {
		cmd.AddCommand(newHookAgentCmd(std, a))
	}
	cmd.AddCommand(hookSetupCmds(std)...)
	return cmd
}

func newHookAgentCmd(std *stdio, a hookgate.Agent) *cobra.Command {
	var budget time.Duration
	cmd := &cobra.Command{
		Use:   string(a),
		Short: "Answer one " + agentTitle(a) + " hook event (payload on stdin)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("timeout") && budget <= 0 {
				return usageError("--timeout %s: must be positive", budget)
			}
			return runHook(cmd.Context(), a, budget, std)
		},
	}
	cmd.Flags().DurationVar(&budget, "timeout", hookgate.DefaultBudget, "finish within `DURATION` (keep it under the agent's own hook timeout); a check cut short ends ⚠ Not verified")
	return cmd
}

func agentTitle(a hookgate.Agent) string {
	switch a {
	case hookgate.Claude:
		return "Claude Code"
	case hookgate.Codex:
		return "Codex CLI"
	}
	return "gemini-cli"
}

// runHook reads the payload, loads the configuration of the folder the
// agent works in, and writes the answer. stdout carries only the JSON.
func runHook(ctx context.Context, a hookgate.Agent, budget time.Duration, std *stdio) error {
	input, err := io.ReadAll(io.LimitReader(std.in, 64<<20))
	if err != nil {
		return err
	}
	recoverPutbacks(std)
	if hookgate.Passes(a, input) {
		// Nothing is checked at this event: no configuration, runner or
		// sandbox probe is needed to answer it.
		out, _ := hookgate.Handle(ctx, hookgate.Options{Agent: a, Budget: budget}, input)
		fmt.Fprintln(std.out, string(out))
		return nil
	}
	dir := payloadDir(input)
	opts, err := hookOptions(a, dir, std)
	if err != nil {
		// The configuration is broken: say so where the user looks, and
		// never let the stop pass as verified.
		out, _ := json.Marshal(map[string]string{"systemMessage": verify.NotVerifiedEvidence("chanto hook " + string(a) + ": " + err.Error())})
		fmt.Fprintln(std.out, string(out))
		diag(std.err, "%v", err)
		return nil
	}
	opts.Budget = budget
	out, warn := hookgate.Handle(ctx, opts, input)
	if warn != "" {
		diag(std.err, "%s", warn)
	}
	fmt.Fprintln(std.out, string(out))
	return nil
}

// payloadDir is the cwd the payload names, else chanto's own folder.
func payloadDir(input []byte) string {
	var p struct {
		Cwd string `json:"cwd"`
	}
	if json.Unmarshal(input, &p) == nil && filepath.IsAbs(p.Cwd) {
		return p.Cwd
	}
	wd, _ := os.Getwd()
	return wd
}

// hookOptions builds the engine's options from the configuration of dir,
// the way chanto verify does (sandbox, scrubbed environment, guardrails).
func hookOptions(a hookgate.Agent, dir string, std *stdio) (hookgate.Options, error) {
	loaded, err := config.Load(config.LoadOptions{ProjectDir: config.FindProjectRoot(dir)})
	if err != nil {
		return hookgate.Options{}, err
	}
	cfg := loaded.Config
	for _, w := range loaded.Warnings {
		diag(std.err, "%s", w)
	}
	if defaultSandbox(loaded) && cfg.Sandbox.Mode != sandbox.ModeOff {
		if err := sandboxProbe(); err != nil {
			diag(std.err, "%v", err)
			diag(std.err, "running the checks without the sandbox; set [sandbox] mode to require it")
			cfg.Sandbox.Mode = sandbox.ModeOff
		}
	}
	runner, err := newRunner(cfg, dir)
	if err != nil {
		return hookgate.Options{}, err
	}
	opts := hookgate.Options{
		Agent:          a,
		Runner:         runner,
		Checks:         cfg.Guardrails.Checks,
		TeamChecks:     verify.TeamChecks(cfg.TeamChecks),
		MaxAttempts:    cfg.Guardrails.MaxAttempts,
		ProtectTests:   cfg.Guardrails.ProtectTests,
		AllowTestEdits: cfg.Guardrails.AllowTestEdits,
		StateDir:       filepath.Join(config.HistoryDir(), "hooks"),
	}
	if cfg.Guardrails.TimeoutSecs > 0 {
		opts.Timeout = time.Duration(cfg.Guardrails.TimeoutSecs) * time.Second
	}
	if cfg.Guardrails.Scope == "full" {
		opts.Full, opts.FullReason = true, scopeSetting(loaded)
	}
	return opts, nil
}
