package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/junit"
	"github.com/chanto-dev/chanto/internal/safetext"
	"github.com/chanto-dev/chanto/internal/sandbox"
	"github.com/chanto-dev/chanto/internal/verify"
)

// verifyOptions are the flags of chanto verify.
type verifyOptions struct {
	base           string
	full           bool
	checks         []string
	json           bool
	timeout        time.Duration
	allowTestEdits []string
	sandbox        string
	junit          string
}

func newVerifyCmd(std *stdio) *cobra.Command {
	var opts verifyOptions
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Run the done-gate on the uncommitted change, without a model",
		Long: `Check the working tree's change against HEAD (or --base) the way chanto's
gate does: test protection, the project's checks narrowed to the related
tests, and a one-line evidence. Exit 0 verified or nothing to verify,
3 not verified, 1 error, 2 bad usage. See docs/verify.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd.Context(), opts, cmd.Flags().Changed("timeout"), std)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.base, "base", "", "compare against `REV` instead of HEAD")
	f.BoolVar(&opts.full, "full", false, "run the full suite, not only the related tests")
	f.StringArrayVar(&opts.checks, "check", nil, "run `CMD` (by bash, in the repository root) instead of the detected checks; repeatable")
	f.BoolVar(&opts.json, "json", false, "print the report as JSON on stdout")
	f.DurationVar(&opts.timeout, "timeout", 0, "time limit for each check run, as `DURATION` (90s, 10m); default timeout_secs, else 600s")
	f.StringArrayVar(&opts.allowTestEdits, "allow-test-edits", nil, "let the change edit the tests at `PATH` (a path or glob); repeatable")
	f.StringVar(&opts.sandbox, "sandbox", "", "run the checks with sandbox `MODE`: read-only, workspace-write or off")
	f.StringVar(&opts.junit, "junit", "", "also write the verdict as JUnit XML to `FILE` (one case per check and per protection violation)")
	return cmd
}

// runVerify is chanto verify: recover any interrupted putback, run the
// gate, print the evidence (or the JSON report) and map the verdict to the
// exit code.
func runVerify(ctx context.Context, opts verifyOptions, timeoutSet bool, std *stdio) error {
	if timeoutSet && opts.timeout <= 0 {
		return usageError("--timeout %s: must be positive", opts.timeout)
	}
	if opts.junit != "" {
		if err := junit.CheckPath(opts.junit); err != nil {
			return withCode(ExitUsage, err)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	recoverPutbacks(std)
	loaded, err := config.Load(config.LoadOptions{ProjectDir: config.FindProjectRoot(wd)})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	cfg, warnings := loaded.Config, loaded.Warnings
	for _, w := range warnings {
		diag(std.err, "%s", w)
	}
	switch opts.sandbox {
	case "":
	case "read-only", "workspace-write", "off":
		cfg.Sandbox.Mode = opts.sandbox
	default:
		return usageError("--sandbox %q: want read-only, workspace-write or off", opts.sandbox)
	}
	if opts.sandbox == "" && defaultSandbox(loaded) && cfg.Sandbox.Mode != sandbox.ModeOff {
		if err := sandboxProbe(); err != nil {
			// You asked for your own checks to run; nobody asked for the
			// sandbox, so its absence is said, not fatal. Set it to make it so.
			diag(std.err, "%v", err)
			diag(std.err, "running the checks without the sandbox; set [sandbox] mode or --sandbox to require it")
			cfg.Sandbox.Mode = sandbox.ModeOff
		}
	}
	// Checks run the way the model's commands do (sandbox, scrubbed env).
	runner, err := newRunner(cfg, wd)
	if err != nil {
		return err
	}
	vo := verify.Options{
		Root:           wd,
		Base:           opts.base,
		Checks:         opts.checks,
		TeamChecks:     verify.TeamChecks(cfg.TeamChecks),
		Full:           opts.full,
		FullReason:     "--full",
		Timeout:        opts.timeout,
		Runner:         runner,
		ProtectTests:   cfg.Guardrails.ProtectTests,
		AllowTestEdits: append(append([]string{}, cfg.Guardrails.AllowTestEdits...), absPaths(wd, opts.allowTestEdits)...),
	}
	if len(vo.Checks) == 0 {
		vo.Checks = cfg.Guardrails.Checks
	}
	if !opts.full && cfg.Guardrails.Scope == "full" {
		vo.Full, vo.FullReason = true, scopeSetting(loaded)
	}
	if !timeoutSet {
		vo.Timeout = verify.DefaultTimeout
		if cfg.Guardrails.TimeoutSecs > 0 {
			vo.Timeout = time.Duration(cfg.Guardrails.TimeoutSecs) * time.Second
		}
	}
	var prog *progressLine
	if isTerminal(std.err) {
		prog = &progressLine{w: std.err}
		vo.Progress = prog.show
	}
	var planned []string // every check planned, for the JUnit report's skipped cases
	vo.Events = event.Func(func(e event.Event) {
		if e.Type == event.VerifyStarted {
			planned = e.Checks
		}
	})
	started := time.Now()
	rep, err := verify.Run(ctx, vo)
	if prog != nil {
		prog.clear()
	}
	if err != nil {
		return err
	}
	if opts.junit != "" {
		if err := junit.Write(opts.junit, rep, junit.Options{Planned: planned, Timestamp: started}); err != nil {
			return err
		}
	}
	printProtectionDoubts(std.err, rep)
	if opts.json {
		if err := writeJSON(std.out, rep); err != nil {
			return err
		}
	} else {
		printReport(std.out, rep)
	}
	if rep.Verdict == verify.NotVerified {
		return withCode(ExitNotVerified, nil)
	}
	return nil
}

// absPaths anchors paths given on the command line to the folder chanto
// runs in (config paths are relative to the project root instead).
func absPaths(wd string, paths []string) []string {
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real // git reports physical paths
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		out[i] = p
	}
	return out
}

// printReport prints violations, the failing check's output, then the
// evidence line last.
func printReport(w io.Writer, rep *verify.Report) {
	for _, v := range rep.Violations {
		fmt.Fprintln(w, safetext.Clean(v.String()))
	}
	if len(rep.Violations) > 0 {
		fmt.Fprintln(w)
	}
	printFailures(w, rep.FailureDetails())
	fmt.Fprintln(w, safetext.Line(rep.Evidence))
}

// printProtectionDoubts says on stderr which runner configurations test
// protection could not read with certainty, and where it guards no file
// of a runner that has tests: never a silent pass.
func printProtectionDoubts(w io.Writer, rep *verify.Report) {
	for _, d := range rep.ConfigsNotUnderstood {
		fmt.Fprintf(w, "chanto: test protection: %s (%s) not understood: %s; guarding what it seems to say and %s's default test patterns\n", d.File, d.Runner, d.Reason, d.Runner)
	}
	for _, g := range rep.Unguarded {
		fmt.Fprintf(w, "chanto: test protection guards none of the %d files named like %s tests in %s (%s is one): check the runner configuration, protection compares none of them\n", g.Tests, g.Runner, g.Dir, g.Example)
	}
}

// progressLine rewrites one line of stderr in place.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer
	shown bool
}

func (p *progressLine) show(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// One line only: a wrapped line could not be rewritten in place.
	msg = safetext.Line(msg)
	if r := []rune(msg); len(r) > 78 {
		msg = string(r[:58]) + "…" + string(r[len(r)-19:])
	}
	fmt.Fprintf(p.w, "\r\033[K%s", msg)
	p.shown = true
}

func (p *progressLine) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// defaultSandbox reports whether no configuration file set [sandbox] mode.
func defaultSandbox(l *config.Loaded) bool {
	for _, src := range l.Sources() {
		if src.Key == "sandbox.mode" {
			return src.From == "default"
		}
	}
	return true
}

// sandboxProbe tells whether the sandbox works here (tests replace it).
var sandboxProbe = sandbox.Probe
