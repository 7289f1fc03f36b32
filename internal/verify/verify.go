// Package verify is chanto's done-gate (DESIGN §5), free of any model: it
// works out what changed, checks test protection, detects the project's
// checks, narrows test commands to the related tests, runs them in order
// until one fails, tells new failures from ones already failing before the
// change, and sums it all up as a verdict with a one-line evidence.
// `chanto verify` and the agent's stop policy both call Run.
package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/git"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/baseline"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/protect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/scope"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

// Verdict is the gate's answer; the type lives in event, shared with the
// agent and the CLI.
type Verdict = event.Verdict

// The verdicts.
const (
	Verified        = event.Verified
	NotVerified     = event.NotVerified
	NothingToVerify = event.NothingToVerify
)

// DefaultTimeout is timeout_secs when nothing sets it.
const DefaultTimeout = 600 * time.Second

// Options configure one gate run.
type Options struct {
	// Root is the folder to check; the repository's top level is found
	// from it.
	Root string
	// Base is the revision the change is measured against ("" = HEAD).
	Base string
	// BaseSource, when set, is the base tree (the agent's turn-start
	// snapshot) for test protection and putback; Changed must be set too.
	BaseSource protect.Source
	// Changed is a precomputed change set (paths relative to Root's
	// repository top level, slash-separated); nil means ask git. A non-nil
	// empty slice means nothing changed.
	Changed []string
	// Added lists the paths of Changed that are new.
	Added []string
	// ChangedNow, with Changed, reads the change set again after the
	// checks ran (the turn snapshot compared with the tree once more), so
	// files the checks wrote can be named; nil: they are not looked for.
	ChangedNow func(ctx context.Context) ([]string, error)
	// Top, with Changed, is the repository's top level Changed is
	// relative to, when the caller knows it (the turn snapshot's root);
	// empty means ask git.
	Top string
	// Checks are configured check commands, run by bash in the repository
	// root, always in full; empty means detect.
	Checks []string
	// TeamChecks run after Checks (or the detected checks), in the
	// repository root, in full, each only when the change touches its
	// paths; the evidence names them.
	TeamChecks []TeamCheck
	// Full forces the full suite; FullReason says who asked ("--full").
	Full       bool
	FullReason string
	// Timeout bounds each check run; 0 means DefaultTimeout.
	Timeout time.Duration
	// Runner executes every command; nil means an unsandboxed Runner.
	Runner *run.Runner
	// ProtectTests turns test protection on; AllowTestEdits exempts paths
	// or globs (the user's --allow-test-edits), relative to the repository
	// root or absolute.
	ProtectTests   bool
	AllowTestEdits []string
	// Progress, if set, hears "running go test ./... (12s)" about once a
	// second while a check runs.
	Progress func(string)
	// Events receives verify.* events; nil drops them.
	Events    event.Sink
	SessionID string
	Turn      int
	// FullRunSecs tells how long a full run of a check took earlier this
	// session, keyed by FullRunKey; nil means never.
	FullRunSecs map[string]float64
	// NoBaseline skips the baseline run after a failure.
	NoBaseline bool
	// KeepGoing runs every check even after one failed (a recorded
	// baseline must know the failures of every check, not only the first
	// failing one).
	KeepGoing bool
	// Prior, when set, is asked before each check runs whether an earlier
	// run already settles it (the agent passes the model's own covering
	// runs); a non-nil answer is used instead of running the check.
	Prior func(Planned) *Prior
	// Baseline, when set, is a baseline recorded beforehand (the agent's
	// full-scope run in a copy of the turn-start tree): failures are
	// classified against it and no putback runs.
	Baseline *baseline.Run
	// HistoryDir and Watcher are passed to the putback baseline (tests).
	HistoryDir string
	Watcher    []string
}

// FullRunKey identifies a check across runs for Options.FullRunSecs: its
// folder and runner (a model's `go test -count=1 ./...` measures the
// same suite as the gate's `go test ./...`), and for a configured check
// its words.
func FullRunKey(dir string, r detect.Runner, command string) string {
	if r == detect.Custom {
		return dir + "\x00" + string(r) + "\x00" + strings.Join(strings.Fields(command), " ")
	}
	return dir + "\x00" + string(r)
}

// Report is the outcome of Run.
type Report struct {
	Verdict  Verdict `json:"verdict"`
	Evidence string  `json:"evidence"`
	// Root is the repository (or folder) checked.
	Root string `json:"root"`
	// Base is the revision compared against, when there was one.
	Base string `json:"base,omitempty"`
	// Git is false outside a git repository (everything counts as changed).
	Git bool `json:"git"`
	// Changed is the change set checked.
	Changed []string `json:"changed"`
	// ChangeUnknown is set when the change set could not be determined.
	ChangeUnknown bool `json:"change_unknown,omitempty"`
	// Checks are the checks run, in order; the last failed when the
	// verdict is not verified because of a check.
	Checks []CheckRun `json:"checks"`
	// Planned is how many checks were to run, so "check 2 of 3" counts
	// the ones a failure kept from running too.
	Planned int `json:"planned_checks"`
	// NewFailures are the failures of the check that stopped the chain
	// that were not failing before the change; AlreadyFailing gathers the
	// failures of every check that were (a check whose failures were all
	// old does not stop the chain).
	NewFailures    []Failure `json:"new_failures"`
	AlreadyFailing []Failure `json:"already_failing"`
	// Violations are test-protection findings; any one fails the gate.
	Violations []protect.Violation `json:"violations"`
	// ConfigsNotUnderstood are runner configurations protection could not
	// read with certainty; it guarded the union of what they seem to say
	// and the runner's defaults.
	ConfigsNotUnderstood []protect.ConfigDoubt `json:"configs_not_understood"`
	// Unguarded are runner folders with files named like tests of which
	// protection guards none: a misread configuration, never a silent pass.
	Unguarded []protect.Guard `json:"unguarded,omitempty"`
	// ScopeReasons says why each check ran at the scope it did.
	ScopeReasons []string `json:"scope_reasons"`
	// WrittenByChecks are files git saw changed after the checks ran that
	// were not part of the change: the checks wrote them (left as they are).
	WrittenByChecks []string `json:"written_by_checks,omitempty"`
	// NotRun are the commands a new failure kept from running: the tests
	// of the packages that import the changed ones, stopped when the
	// changed packages' own tests failed (they run once those pass).
	NotRun []string `json:"not_run,omitempty"`
	// ChecksNotRun are the checks after the one whose new failure ended
	// the chain (go test after a new go vet finding): they run once it
	// is mended.
	ChecksNotRun []string `json:"checks_not_run,omitempty"`
	// timeout is the time limit each check had, for the evidence.
	timeout time.Duration

	// Problem is what stopped the gate before any check ran (a broken
	// manifest), empty otherwise.
	Problem string `json:"problem,omitempty"`
}

// CheckRun is one check as it ran.
type CheckRun struct {
	// Command is what ran, as a user could paste it in Dir (without the
	// flags chanto adds to read results).
	Command string `json:"command"`
	// Dir is the folder it ran in, relative to the root ("." for the root).
	Dir    string `json:"dir"`
	Runner string `json:"runner"`
	// Scope is related or full, why, and what a related run took in
	// beyond imports ("./e2e: its tests run the project's programs"). The
	// JSON shows it as scope, reason (its text), reason_code,
	// reason_files, reason_setting and widened (see MarshalJSON).
	Scope scope.Scope `json:"-"`
	// Note is what the check's detection wanted said (detect.Check.Note).
	Note    string   `json:"note,omitempty"`
	Targets []string `json:"targets,omitempty"`
	Passed  bool     `json:"passed"`
	// ExitCode is -1 when the check was killed or never started.
	ExitCode   int           `json:"exit_code"`
	Duration   time.Duration `json:"-"`
	DurationMS int64         `json:"duration_ms"`
	TimedOut   bool          `json:"timed_out,omitempty"`
	Refused    bool          `json:"refused,omitempty"`
	// NotFound names the program that is not installed.
	NotFound string `json:"not_found,omitempty"`
	// CouldNotRun says why the check could not be started (not a missing
	// program: that is NotFound).
	CouldNotRun string `json:"could_not_run,omitempty"`
	// NoTests is set when the check collected no tests.
	NoTests bool `json:"no_tests,omitempty"`
	// Dependent is set on the check of a project that ran only because it
	// builds against a changed one (Reason says which). Such a check that
	// collects no tests does not decide the verdict: nothing ran there.
	Dependent bool `json:"dependent,omitempty"`
	// Tests is how many tests ran; -1 when the runner does not say.
	Tests    int       `json:"tests"`
	Failures []Failure `json:"failures,omitempty"`
	// Output is the useful part of the output: failing tests' own output,
	// then the tail.
	Output string `json:"output,omitempty"`
	// Stage is where a failed test script of commands joined by &&
	// stopped: that stage failed and the later ones never ran.
	Stage *runner.Stage `json:"stage,omitempty"`
	// Baseline is the baseline run made after this check failed.
	Baseline *BaselineRun `json:"baseline,omitempty"`
	// AlreadyFailing are this check's failures that failed before the
	// change too; when they are all of them, the next check ran.
	AlreadyFailing []Failure `json:"already_failing,omitempty"`
	// Flaky are the failures among AlreadyFailing that passed at the base
	// and failed with the change, then passed when run again with it,
	// alone and among the others: not the change's doing as far as two
	// more runs can tell, and not a pass either.
	Flaky []Failure `json:"flaky,omitempty"`
	// FullRetry is set when a related run could not run and the full
	// suite ran instead; Scope.Reason says why (the JSON's full_retry).
	FullRetry bool `json:"-"`
	// Downloaded is the command that fetched the project's dependencies
	// before this run, after a first run could not download them.
	Downloaded string `json:"downloaded,omitempty"`
	// FromModelRun is set when the model's own run stood in for the
	// check and nothing was executed.
	FromModelRun bool `json:"from_model_run,omitempty"`
	// Team is the team check's name ([[team_checks]]); empty for others.
	Team string `json:"team,omitempty"`
	// HangLimitSecs is the -timeout chanto gave go test, in seconds, from
	// the packages' earlier times (hangguard.go); 0 when it set none.
	HangLimitSecs int `json:"hang_limit_secs,omitempty"`
	// Interrupted says that the run stopped before some of its tests ran
	// (pytest at its collection errors, or -x); its failures are all it
	// knows.
	Interrupted string `json:"interrupted,omitempty"`
	// goOn are the flags that run the check on past what interrupted it.
	goOn []string

	// passed are the tests the runner reported passing (a goal's named
	// tests read them).
	passed []Failure
	// secs are the tests' own times by ID, when the runner reports them.
	secs map[string]float64
	// limit is the check's own time limit when it had one (a team
	// check's timeout_secs), for the evidence.
	limit time.Duration

	// installHint says what to install when the program is missing
	// ("node_modules is missing: run npm install"), found when it ran.
	installHint string

	check detect.Check
	args  []string
	raw   string // capped output, for the fallback rules
	// rest is the second stage of a staged go test run (the packages
	// that import the changed ones) when this first stage failed and it
	// was stopped: runChain runs it if every failure turns out old.
	rest *selecttest.Selection
}

// BaselineRun reports the run of the same command on the base version.
type BaselineRun struct {
	Kind       string    `json:"kind"` // "copy" or "putback"
	Ran        bool      `json:"ran"`
	Failures   []Failure `json:"failures"`
	DurationMS int64     `json:"duration_ms"`
	ExitCode   int       `json:"exit_code"`
	// Tests is how many tests the baseline ran; -1 when the runner does
	// not say.
	Tests int `json:"tests"`
	// Command is what the baseline ran when it ran only the failing tests
	// ("go test -run '^(TestA)$' ./p"); empty when it ran the check's own
	// selection.
	Command string `json:"command,omitempty"`
	// Cached is set when an earlier baseline on the same base tree already
	// settled every failure and nothing ran.
	Cached bool `json:"cached,omitempty"`
	// Note says why the baseline could not run, when it could not.
	Note string `json:"note,omitempty"`

	// at is the base a check with nothing changed failed at ("HEAD"),
	// for the evidence: its failures are old because the tree is the
	// base, not because a baseline saw them.
	at string
}

// engine holds one Run's state.
type engine struct {
	opts Options
	r    *run.Runner
	cs   ChangeSet
	src  protect.Source // base tree
	// downloads remembers, per folder, what its dependency download
	// said: "" when it worked.
	downloads map[string]string
	// reportParent holds report folders: "" not decided yet, "-" none
	// (read the text), else a folder the sandboxed checks can write.
	reportParent string
	// swept is set once leftover report folders were looked for.
	swept bool
	// mu guards downloads, reportParent, swept and the lock-file record
	// while the two stages of a go test run are running at once.
	mu sync.Mutex
}

// Run is the gate: see the package comment. An error means the gate itself
// could not work (git failing, an interrupted context), not that a check
// failed; that is a NotVerified report.
func Run(ctx context.Context, opts Options) (*Report, error) {
	e := &engine{opts: opts, r: opts.Runner}
	if e.r == nil {
		e.r = &run.Runner{}
	}
	if e.opts.Timeout <= 0 {
		e.opts.Timeout = DefaultTimeout
	}
	if e.opts.Root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		e.opts.Root = wd
	}
	// git reports the physical top level; compare like with like.
	if real, err := filepath.EvalSymlinks(e.opts.Root); err == nil {
		e.opts.Root = real
	}
	if err := e.changeSet(ctx); err != nil {
		return nil, err
	}
	if gs, ok := e.src.(GitSource); ok {
		defer gs.Close()
	}
	e.dropProducedLocks()
	rep := &Report{Root: e.cs.Root, Base: e.cs.Base, Git: e.cs.Git, Changed: e.cs.Changed, ChangeUnknown: e.cs.Unknown,
		Checks: []CheckRun{}, NewFailures: []Failure{}, AlreadyFailing: []Failure{}, Violations: []protect.Violation{}, ConfigsNotUnderstood: []protect.ConfigDoubt{}, ScopeReasons: []string{}}
	rep.timeout = e.opts.Timeout
	if err := e.protect(rep); err != nil {
		return nil, err
	}
	if len(rep.Violations) > 0 {
		return e.finish(rep), nil
	}
	checks, err := e.plan(ctx)
	if err != nil {
		var me *detect.ManifestError
		if !errors.As(err, &me) {
			return nil, err
		}
		rep.Problem = me.Error()
		return e.finish(rep), nil
	}
	if len(checks) == 0 {
		return e.finish(rep), nil
	}
	// Every scope is decided before anything runs, so verify.started
	// tells the truth about it.
	sels := make([]selecttest.Selection, len(checks))
	for i, c := range checks {
		sels[i] = e.selection(ctx, c)
	}
	rep.Planned = len(checks)
	e.emitStarted(checks, sels)
	if err := e.runChain(ctx, rep, checks, sels); err != nil {
		return nil, err
	}
	rep.WrittenByChecks = e.writtenByChecks(ctx)
	return e.finish(rep), nil
}

// changeSet fills e.cs from the options or from git.
func (e *engine) changeSet(ctx context.Context) error {
	if e.opts.Changed != nil {
		root := e.opts.Top
		if real, err := filepath.EvalSymlinks(root); root != "" && err == nil {
			root = real // like Root, and like git's physical top level
		}
		if root == "" {
			root = e.opts.Root
			if top, err := git.Output(ctx, e.r, root, "rev-parse", "--show-toplevel"); err == nil {
				root = strings.TrimSpace(string(top))
			}
		}
		e.cs = ChangeSet{Root: root, Git: e.opts.BaseSource == nil, Base: e.opts.Base, Changed: dropGenerated(e.opts.Changed), Added: dropGenerated(e.opts.Added)}
		e.cs.finish()
		e.src = e.opts.BaseSource
		if e.src == nil && e.cs.Base != "" {
			e.src = newGitSource(ctx, e.r, root, e.cs.Base)
		}
		return nil
	}
	cs, objs, err := changes(ctx, e.r, e.opts.Root, e.opts.Base)
	if err != nil {
		return err
	}
	e.cs = cs
	// chanto's state and the temp folder may sit inside the repository
	// (a home folder under git, TMPDIR set to a project folder).
	e.cs.dropUnder(config.Home())
	e.cs.dropUnder(os.TempDir())
	if cs.Git {
		// Protection, selection and the baseline read the base through
		// the change set's git start, not one each.
		e.src = GitSource{Ctx: ctx, Runner: e.r, Root: cs.Root, Rev: cs.Base, objs: objs}
		return nil
	}
	objs.Close()
	return nil
}

// protect runs test protection over the change set.
func (e *engine) protect(rep *Report) error {
	if !e.opts.ProtectTests || e.src == nil || e.cs.Unknown || len(e.cs.Changed) == 0 {
		return nil
	}
	res, err := protect.Check(e.src, DirSource(e.cs.Root), e.cs.Changed, protect.Options{Root: e.cs.Root, AllowEdits: e.allowEdits()})
	if err != nil {
		return fmt.Errorf("test protection: %w", err)
	}
	vs := res.Violations
	rep.ConfigsNotUnderstood = append(rep.ConfigsNotUnderstood, res.Doubts...)
	rep.Unguarded = protect.Unguarded(protect.Guards(e.cs.Root, protect.NewDetector(DirSource(e.cs.Root))))
	for _, v := range vs {
		e.emit(event.Event{Type: event.ProtectViolation, Violation: &event.Violation{
			File: v.File, Test: v.Test, Line: v.Line, Kind: string(v.Kind), Before: v.Before, After: v.After, Message: v.Message}})
	}
	rep.Violations = append(rep.Violations, vs...)
	return nil
}

// allowEdits makes absolute --allow-test-edits paths relative to the
// repository root, as protection compares them; relative ones already are.
func (e *engine) allowEdits() []string {
	out := make([]string, 0, len(e.opts.AllowTestEdits))
	for _, p := range e.opts.AllowTestEdits {
		if filepath.IsAbs(p) {
			if rel, err := filepath.Rel(e.cs.Root, p); err == nil && !strings.HasPrefix(rel, "..") {
				p = rel
			}
		}
		out = append(out, filepath.ToSlash(p))
	}
	return out
}

// plan returns the checks to run: configured ones in the repository root,
// else the detected ones of each project the change touches.
func (e *engine) plan(ctx context.Context) ([]detect.Check, error) {
	if len(e.opts.Checks) > 0 {
		var out []detect.Check
		for _, c := range e.opts.Checks {
			out = append(out, detect.Configured(e.cs.Root, c))
		}
		return append(out, e.teamChecks()...), nil
	}
	var changed []string
	if !e.cs.Unknown {
		changed = e.cs.Changed
	}
	var projects []detect.Project
	var err error
	if len(changed) == 0 {
		// Nothing changed: check the project the user stands in.
		projects, err = detect.ProjectsAt(ctx, e.cs.Root, e.opts.Root, e.r)
	} else {
		projects, err = detect.ProjectsContext(ctx, e.cs.Root, changed, e.r)
	}
	if err != nil {
		return nil, err
	}
	var out []detect.Check
	for _, p := range projects {
		out = append(out, p.Checks...)
	}
	return append(out, e.teamChecks()...), nil
}

func (e *engine) emit(ev event.Event) {
	if e.opts.Events == nil {
		return
	}
	ev.SessionID, ev.Turn, ev.Time = e.opts.SessionID, e.opts.Turn, time.Now()
	e.opts.Events.Emit(ev)
}

func (e *engine) emitStarted(checks []detect.Check, sels []selecttest.Selection) {
	var cmds []string
	scope := "full"
	for i, c := range checks {
		cmds = append(cmds, e.shownDir(c.Dir)+shownCommand(c, sels[i].Args))
		if !sels[i].Full {
			scope = "related"
		}
	}
	e.emit(event.Event{Type: event.VerifyStarted, Scope: scope, Checks: cmds})
}

// relDir is dir relative to the root, "." for the root itself.
func (e *engine) relDir(dir string) string {
	rel, err := filepath.Rel(e.cs.Root, dir)
	if err != nil {
		return dir
	}
	return filepath.ToSlash(rel)
}

// shownDir is the "cd DIR && " prefix that makes a command pasteable from
// the root; empty for the root.
func (e *engine) shownDir(dir string) string {
	rel := e.relDir(dir)
	if rel == "." {
		return ""
	}
	return "cd " + shell.Quote(rel) + " && "
}
