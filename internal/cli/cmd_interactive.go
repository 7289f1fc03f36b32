package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/chanto-dev/chanto/internal/app"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/tui"
)

// runInteractive opens the TUI on a new session, or on the one --resume
// or --continue names. Mistakes found before the screen opens (a broken
// config, an unknown model, no such session) are reported as in print
// mode; the screen is not opened for them.
func runInteractive(ctx context.Context, opts *agentOptions, std *stdio) error {
	if opts.outputFormat != formatText || opts.outputSchema != "" {
		return usageError("--output-format and --output-schema are for print mode; add -p")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	recoverPutbacks(std)
	loaded, err := config.Load(config.LoadOptions{ProjectDir: config.FindProjectRoot(cwd)})
	if err != nil {
		return usageError("%v", err)
	}
	cfg := loaded.Config
	applyFlags(&cfg, opts)
	g, err := opts.goal.build(loaded, cwd)
	if err != nil {
		return err
	}
	provider, model, err := app.OpenProvider(cfg.Model, cfg)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	t, err := openSession(opts, cwd, cfg.Model)
	if err != nil {
		return err
	}
	untrusted := untrustedSettings(loaded.Warnings)
	var warnings []string
	for _, w := range loaded.Warnings {
		if !isTrustWarning(w) {
			warnings = append(warnings, w)
		}
	}
	for _, w := range append(warnings, t.Warnings()...) {
		fmt.Fprintf(std.err, "chanto: warning: %s\n", w)
	}
	log, closeLog := openLog()
	defer closeLog()
	return tui.Run(ctx, tui.Options{
		App: app.Options{
			Config: cfg, Cwd: cwd, Provider: provider, Model: model, Transcript: t,
			MaxTurns: opts.maxTurns, Logger: log, Sandbox: sandboxOptions,
			MCPApprove: opts.mcpApprove, Goal: g,
		},
		Untrusted: untrusted,
		Reload: func() (config.Config, error) {
			l, err := config.Load(config.LoadOptions{ProjectDir: config.FindProjectRoot(cwd)})
			if err != nil {
				return config.Config{}, err
			}
			c := l.Config
			applyFlags(&c, opts)
			return c, nil
		},
		NoColor: os.Getenv("NO_COLOR") != "",
		In:      std.in,
		Out:     std.out,
	})
}

// isTrustWarning tells the warnings about project keys an untrusted
// folder ignores, which the trust prompt shows instead.
func isTrustWarning(w string) bool {
	return strings.Contains(w, " is not trusted ")
}

func untrustedSettings(warnings []string) []string {
	var out []string
	for _, w := range warnings {
		if isTrustWarning(w) {
			// ".chanto/config.toml sets guardrails.checks; ignored because …"
			what, _, _ := strings.Cut(w, ";")
			out = append(out, strings.TrimPrefix(what, ".chanto/config.toml "))
		}
	}
	return out
}
