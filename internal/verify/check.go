package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/scope"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

// Failure names one failing test (or build) so runs can be compared.
type Failure = runner.Failure

// checkOutputCap bounds the output kept per check run.
const checkOutputCap = 256 << 10

// excerptTail is how much of the end of the output the excerpt keeps.
const excerptTail = runner.ExcerptTail

// runCheck runs check c at the selected scope, falls back to the full
// suite when a narrowed run could not run, and emits verify.check.
func (e *engine) runCheck(ctx context.Context, index int, c detect.Check, sel selecttest.Selection) (CheckRun, error) {
	if e.opts.Prior != nil {
		planned := Planned{Dir: c.Dir, Runner: c.Runner, Full: sel.Full, Targets: sel.Targets, Command: shownCommand(c, sel.Args)}
		if c.Configured && c.Runner != detect.Custom {
			planned.Configured = c.Command
		}
		if pr := e.opts.Prior(planned); pr != nil {
			cr := CheckRun{Dir: e.relDir(c.Dir), Runner: string(c.Runner), Scope: sel.Scope, Note: c.Note, Targets: sel.Targets, Dependent: !c.FullReason.IsZero(), check: c, args: sel.Args}
			cr = e.fromPrior(cr, pr)
			e.emitCheck(index, cr)
			return cr, nil
		}
	}
	var cr CheckRun
	var err error
	if e.staged(c, sel) {
		cr, err = e.runStaged(ctx, c, sel)
	} else {
		cr, err = e.execute(ctx, c, sel, "")
	}
	if err != nil {
		return cr, err
	}
	if !sel.Full && cr.Outcome().Fallback() {
		if why, ok := fallbackReason(c.Runner, cr); ok {
			full := selecttest.Selection{Scope: scope.Scope{Full: true, Reason: why}, Args: c.Args}
			retry, err := e.execute(ctx, c, full, "")
			if err != nil {
				return cr, err
			}
			retry.FullRetry = true
			cr = retry
		}
	}
	if cr.NotFound != "" {
		cr.installHint = runner.NotInstalled(c.Dir, c.Args)
	}
	if c.Runner == detect.Go && sel.RunPattern == "" && !cr.TimedOut {
		// How long whole packages take decides whether a -run pattern pays.
		selecttest.RecordGoTestTimes(c, cr.raw)
	}
	if c.Runner == detect.Pytest && !cr.TimedOut {
		// How long whole files take decides whether node ids pay.
		selecttest.RecordPytestTimes(c.Dir, cr.secs, sel.Targets)
	}
	e.emitCheck(index, cr)
	return cr, nil
}

func (e *engine) emitCheck(index int, cr CheckRun) {
	e.emit(event.Event{Type: event.VerifyCheck, Check: &event.Check{
		Index: index, Command: cr.Command, Dir: cr.Dir, Passed: cr.Passed,
		Scope: string(cr.Scope.Kind()), Reason: cr.Scope.String(), ReasonCode: string(cr.Scope.Reason.Code),
		DurationMS: cr.DurationMS, ExitCode: cr.ExitCode, TimedOut: cr.TimedOut, Refused: cr.Refused,
		FromModelRun: cr.FromModelRun, Team: cr.Team,
	}})
}

// selection asks selecttest for the scope of a check; configured checks
// and an unknown change set run in full.
func (e *engine) selection(ctx context.Context, c detect.Check) selecttest.Selection {
	in := selecttest.Input{Check: c, ForceFull: e.opts.Full}
	if e.opts.FullReason != "" {
		in.ForceFullReason = scope.For(scope.Asked, e.opts.FullReason)
	}
	if e.cs.Unknown {
		in.ForceFull, in.ForceFullReason = true, scope.Because(scope.NotGit)
	}
	for _, p := range e.cs.Changed {
		if rel, ok := e.underDir(c.Dir, p); ok {
			in.Changed = append(in.Changed, rel)
		}
	}
	for _, p := range e.cs.Added {
		if rel, ok := e.underDir(c.Dir, p); ok {
			in.Added = append(in.Added, rel)
		}
	}
	if !c.FullReason.IsZero() && !in.ForceFull {
		in.ForceFull, in.ForceFullReason = true, c.FullReason
	}
	if in.Changed == nil && !e.cs.Unknown && len(e.cs.Changed) > 0 && !in.ForceFull {
		// The project was picked although nothing under it changed (a
		// file with no manifest above it, a workspace root's file): its
		// tests cannot be narrowed.
		in.ForceFull, in.ForceFullReason = true, outsideReason(e.cs.Changed)
	}
	if e.src != nil {
		in.Base = e.baseReader(c.Dir)
	}
	if e.opts.FullRunSecs != nil {
		in.FullRunSecs = e.opts.FullRunSecs[FullRunKey(c.Dir, c.Runner, c.Command)]
	}
	if c.Team != "" {
		return selecttest.Selection{Scope: scope.Scope{Full: true, Reason: scope.For(scope.AlwaysFull, "team")}}
	}
	if c.Runner == detect.Custom {
		return selecttest.Selection{Scope: scope.Scope{Full: true, Reason: runner.For(runner.Custom).FullOnly()}}
	}
	sel, err := selecttest.Select(ctx, e.r, in)
	if err != nil && sel.Reason.IsZero() {
		sel = selecttest.Selection{Scope: scope.Scope{Full: true, Reason: scope.Reason{Code: scope.NotWorkedOut, Detail: err.Error()}}, Args: c.Args}
	}
	if len(sel.Args) == 0 {
		sel.Args = c.Args
	}
	return sel
}

// baseReader reads files under dir as the base has them.
func (e *engine) baseReader(dir string) func(rel string) ([]byte, error) {
	src := e.src
	return func(rel string) ([]byte, error) {
		p, err := filepath.Rel(e.cs.Root, filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		return src.ReadFile(filepath.ToSlash(p))
	}
}

// outsideReason says which changed files lie outside a check's folder:
// "README.md changed outside its folder", "go.work and 2 more …".
func outsideReason(changed []string) scope.Reason {
	return scope.Reason{Code: scope.ChangedOutside, Files: changed[:1], More: len(changed) - 1}
}

// underDir returns p (relative to the root) relative to dir, if inside it.
func (e *engine) underDir(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, filepath.Join(e.cs.Root, filepath.FromSlash(p)))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// shownCommand renders the selected argv as the user would type it,
// keeping the check's own spelling of the program (python3, not
// /usr/bin/python3, when PATH finds the same one).
func shownCommand(c detect.Check, args []string) string {
	if len(args) == 0 {
		return c.Command
	}
	if len(c.Args) > 0 && args[0] == c.Args[0] {
		tail := shell.Join(c.Args[1:])
		if prog, ok := strings.CutSuffix(c.Command, " "+tail); ok || len(c.Args) == 1 {
			if len(c.Args) == 1 {
				prog = c.Command
			}
			if len(args) == 1 {
				return prog
			}
			return prog + " " + shell.Join(args[1:])
		}
	}
	return shell.Join(args)
}

// executeOnce runs one selection of check c and reads its results.
// label, if set, is what progress shows instead of the command (quietLabel:
// nothing); env is added to the check's environment.
func (e *engine) executeOnce(ctx context.Context, c detect.Check, sel selecttest.Selection, label string, env ...string) (CheckRun, error) {
	cr := CheckRun{Dir: e.relDir(c.Dir), Runner: string(c.Runner), Scope: sel.Scope, Note: c.Note, Targets: sel.Targets, Team: c.Team, Dependent: !c.FullReason.IsZero(), check: c, args: sel.Args}
	timeout := e.opts.Timeout
	if c.Timeout > 0 {
		timeout, cr.limit = c.Timeout, c.Timeout
	}
	reportDir, err := e.newReportDir(ctx)
	if err != nil {
		return cr, err
	}
	if reportDir != "" {
		defer os.RemoveAll(reportDir)
	}
	rn := runner.For(c.Runner)
	col := rn.Collector(reportDir, c.Dir)
	spec := run.Spec{Dir: c.Dir, Timeout: timeout, Purpose: run.Check, OutputCap: checkOutputCap, Stdout: col.Stdout(), Combined: true, Env: slices.Concat(rn.Env(), env)}
	if c.Runner == detect.Pytest || c.Runner == detect.Unittest {
		// Python trusts a cached .pyc whose source has the size and the
		// mtime second it was compiled from, so a file changed within the
		// second of an earlier run would run its old code. A baseline
		// that puts base files back runs with the project's baseline
		// bytecode folder (pycache.go), one in a copy of the base with a
		// folder of that run's own; any other run first drops the cache
		// of the changed files.
		var env []string
		if strings.HasPrefix(label, "baseline") {
			var done func()
			if env, done = e.baselineBytecode(c.Dir, reportDir); done != nil {
				defer done()
			}
		}
		if env == nil {
			dropBytecode(e.cs.Root, e.cs.Changed)
		}
		spec.Env = append(append([]string(nil), spec.Env...), env...)
	}
	if c.Runner == detect.Custom {
		spec.Shell, cr.Command = c.Command, c.Command
	} else {
		spec.Args, cr.Command = col.Args(sel.Args), shownCommand(c, sel.Args)
		if d := e.hangGuard(c, sel); d > 0 {
			// Not in the command shown: it is chanto's guard, not the
			// check's (hangguard.go).
			spec.Args = runner.WithGoTestFlags(spec.Args, "-timeout="+d.String())
			cr.HangLimitSecs = int(d.Seconds())
		}
		spec.Approve = shell.Join(sel.Args)
	}
	runEnv := spec.Env
	if ec, ok := col.(runner.EnvCollector); ok {
		spec.Env = append(append([]string(nil), runEnv...), ec.Env(e.getenv)...)
	}
	if label == "" {
		label = e.shownDir(c.Dir) + shortCommand(cr.Command, cr.Targets)
		if c.Team != "" {
			label = c.Team
		}
	}
	stop := func() {}
	if label != quietLabel {
		stop = e.progress(label)
	}
	locks := e.lockCandidates(c)
	lockSums := e.lockSums(locks)
	res, err := e.r.Run(ctx, spec)
	if rt, ok := col.(runner.Retrier); ok && err == nil {
		if again, ok := rt.Retry(res.Output); ok {
			// The runner's report plugin could not be loaded: the
			// same run again, with the runner's own report.
			col = again
			spec.Args, spec.Env, spec.Stdout = col.Args(sel.Args), runEnv, col.Stdout()
			res, err = e.r.Run(ctx, spec)
		}
	}
	stop()
	e.recordLocks(locks, lockSums)
	var nf *run.NotFoundError
	var refused *run.RefusedError
	switch {
	case errors.As(err, &refused):
		// Refused by the permission policy, a hook or lockdown: the run
		// ends unverified at once (DESIGN §5).
		cr.Refused, cr.ExitCode, cr.Output = true, -1, refused.Reason
		return cr, nil
	case errors.As(err, &nf):
		cr.NotFound, cr.ExitCode = nf.Name, -1
		return cr, nil
	case err != nil && ctx.Err() == nil:
		// The command could not be started at all (the sandbox cannot be
		// set up, say): nothing was verified, and the reason is the news.
		cr.CouldNotRun, cr.ExitCode = err.Error(), -1
		return cr, nil
	case err != nil:
		return cr, err
	}
	o := col.Finish(res)
	cr.ExitCode, cr.TimedOut, cr.Duration = res.ExitCode, res.TimedOut, res.Duration
	cr.DurationMS = res.Duration.Milliseconds()
	cr.Failures, cr.Tests, cr.passed, cr.secs = o.Failures, o.Tests, o.Passed, o.Secs
	cr.Interrupted, cr.goOn = o.Interrupted, o.GoOn
	text := o.Text
	if text == "" {
		text = string(res.Output)
	}
	cr.Output, cr.raw = excerpt(o.Excerpt, text), text
	if res.ExitCode == 127 && !res.TimedOut {
		cr.NotFound = missingProgram(text)
	}
	if res.ExitCode == 0 && !res.TimedOut && o.NoReport != "" && len(o.Failures) == 0 {
		cr.CouldNotRun = noReportReason(c, o.NoReport)
	}
	if cr.CouldNotRun == "" && cr.NotFound == "" {
		cr.CouldNotRun = importReason(c, cr, text)
	}
	if res.ExitCode != 0 && !res.TimedOut {
		if st, ok := runner.ScriptStage(c.Dir, sel.Args, text, res.Truncated); ok {
			cr.Stage = &st
		}
	}
	cr.NoTests = !res.TimedOut && cr.NotFound == "" && cr.CouldNotRun == "" && len(o.Failures) == 0 && rn.NoTests(res.ExitCode, o.Tests, text)
	cr.Passed = res.ExitCode == 0 && !res.TimedOut && !cr.NoTests && cr.NotFound == "" && cr.CouldNotRun == ""
	return cr, nil
}

// getenv looks a variable up in the environment checks start from.
func (e *engine) getenv(name string) string {
	env := e.r.BaseEnv
	if env == nil {
		env = os.Environ()
	}
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val // the last one wins, as exec's does
		}
	}
	return v
}

// noReportReason says why a run that exited 0 without its structured
// report verified nothing, naming a project file that shadows the runner
// when there is one (a pytest.py makes "python -m pytest" run it).
func noReportReason(c detect.Check, report string) string {
	why := "it exited 0 without writing " + report + ", so no test is known to have run"
	if c.Runner == detect.Pytest {
		for _, f := range []string{"pytest.py", "pytest/__init__.py"} {
			if _, err := os.Stat(filepath.Join(c.Dir, f)); err == nil {
				return why + " (the project's " + f + " shadows pytest)"
			}
		}
	}
	return why
}

// notFoundLines say "program not found": bash's "bash: line 1: x: command
// not found", dash's "sh: 1: x: not found", env's for a #! line
// ("/usr/bin/env: 'node': No such file or directory"), and the sandbox
// helper's when the program is not there inside the sandbox.
var notFoundLines = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^(?:/\S*/)?(?:sh|bash|dash)(?:: line \d+|: \d+)?: ([^:\n]+): (?:command )?not found`),
	regexp.MustCompile(`(?m)^(?:/\S*/)?env: [‘'"]?([^’'":\n]+)[’'"]?: No such file or directory`),
	regexp.MustCompile(`(?m)^chanto sandbox helper: exec (\S+): no such file or directory`),
}

// missingProgram finds the program a shell could not find (exit 127).
func missingProgram(out string) string {
	for i, re := range notFoundLines {
		if m := re.FindStringSubmatch(out); m != nil {
			if i == len(notFoundLines)-1 {
				return filepath.Base(m[1]) // the helper names the path
			}
			return strings.TrimSpace(m[1])
		}
	}
	return ""
}

// fallbackReason says why a narrowed run did not really run (a missing
// path, nothing collected), so the full suite runs instead.
func fallbackReason(r detect.Runner, cr CheckRun) (scope.Reason, bool) {
	if cr.NoTests {
		return runner.FallbackNoTests, true
	}
	if len(cr.Failures) > 0 {
		return scope.Reason{}, false // tests ran and failed: a real failure
	}
	return runner.For(r).Fallback(cr.ExitCode, []byte(cr.raw))
}

// excerpt keeps the failing tests' own output, then the tail of the rest.
func excerpt(failing, text string) string {
	text = strings.TrimRight(text, "\n")
	if len(text) > excerptTail {
		cut := len(text) - excerptTail
		if i := strings.IndexByte(text[cut:], '\n'); i >= 0 {
			cut += i + 1
		}
		text = "…\n" + text[cut:]
	}
	failing = strings.TrimRight(failing, "\n")
	if failing == "" || strings.Contains(text, failing) {
		return text
	}
	if len(failing) > 2*excerptTail {
		failing = failing[:2*excerptTail] + "\n…"
	}
	return failing + "\n---\n" + text
}

// progress calls Options.Progress once a second until the returned stop.
func (e *engine) progress(shown string) (stop func()) {
	if e.opts.Progress == nil {
		return func() {}
	}
	start := time.Now()
	e.opts.Progress("running " + shown)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				e.opts.Progress(fmt.Sprintf("running %s (%ds)", shown, int(time.Since(start).Seconds())))
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// newReportDir makes a folder for the report files runners write (junit
// XML, jest JSON), where the check can write and chanto can read: the
// runner's temp folder for checks (run.Runner.TempDir). A sandbox without
// one gives checks a private /tmp only, so the folder goes in the
// repository's .git directory (never part of a change), if a probe run
// through the same sandbox can write there; otherwise "" and failures are
// read from the runners' text.
func (e *engine) newReportDir(ctx context.Context) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if d := e.r.TempDir(run.Check); d != "" {
		// Unsandboxed, the temporary folder; sandboxed, the sandbox's
		// per-project temp folder for checks, which they see at its own path.
		if !e.swept && e.r.Sandbox != nil {
			e.swept = true
			sweepReportDirs(d)
		}
		return os.MkdirTemp(d, fmt.Sprintf("chanto-verify-%d-", os.Getpid()))
	}
	if e.reportParent == "" {
		e.reportParent = "-"
		gitDir := filepath.Join(e.cs.Root, ".git")
		if fi, err := os.Stat(gitDir); err == nil && fi.IsDir() {
			probe, err := os.MkdirTemp(gitDir, fmt.Sprintf("chanto-verify-%d-probe-", os.Getpid()))
			if err == nil {
				res, err := e.r.Run(ctx, run.Spec{Args: []string{"sh", "-c", `: > "$1/probe"`, "sh", probe}, Dir: e.cs.Root, Purpose: run.Internal, Timeout: 30 * time.Second})
				if err == nil && res.ExitCode == 0 && fileExists(filepath.Join(probe, "probe")) {
					e.reportParent = gitDir
				}
				os.RemoveAll(probe)
			}
		}
	}
	if e.reportParent == "-" {
		return "", nil
	}
	if !e.swept {
		e.swept = true
		sweepReportDirs(e.reportParent)
	}
	return os.MkdirTemp(e.reportParent, fmt.Sprintf("chanto-verify-%d-", os.Getpid()))
}

// sweepReportDirs removes the report folders under .git that a chanto
// killed mid-run left behind: their names carry the pid of a process
// that is gone, and they are over an hour old.
func sweepReportDirs(parent string) { SweepLeftovers(parent, "chanto-verify-") }

// SweepLeftovers removes the folders parent/<prefix><pid>-* that a chanto
// killed mid-run left (report folders, baseline copies): their pid is
// gone and they are over an hour old.
func SweepLeftovers(parent, prefix string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, prefix+"*"))
	for _, d := range dirs {
		rest := strings.TrimPrefix(filepath.Base(d), prefix)
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 {
			continue
		}
		// An hour's wait covers a chanto in another pid namespace
		// sharing the repository, whose pid means nothing here.
		fi, err := os.Stat(d)
		if err != nil || time.Since(fi.ModTime()) < time.Hour {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.RemoveAll(d)
		}
	}
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// dropBytecode removes the __pycache__ entries of the changed .py files
// (paths relative to root), so Python compiles them from what is on disk.
// The cache is Python's to rebuild; a file that cannot be removed is left.
func dropBytecode(root string, changed []string) {
	for _, p := range changed {
		if !strings.HasSuffix(p, ".py") {
			continue
		}
		dir, file := filepath.Split(filepath.Join(root, filepath.FromSlash(p)))
		removeBytecodeOf(filepath.Join(dir, "__pycache__"), file)
	}
}
