package verify

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/git"
	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/baseline"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/scope"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

// noBaseNote is the baseline note of a project the change added: its
// failures are new for certain.
const noBaseNote = "the project did not exist at the base"

// unchangedKind is the baseline kind of a check that failed with nothing
// changed: the tree is the base, so what fails now failed at the base, and
// nothing runs to find that out.
const unchangedKind = "unchanged"

// unchangedBase classifies the failures of a check when nothing changed
// against a git base (chanto verify on a clean checkout): all of them are
// already failing (a baseline would run the same tree), so a red go vet at
// HEAD does not keep the tests from running.
func (e *engine) unchangedBase(last *CheckRun) (newF, oldF []Failure, err error) {
	last.Baseline = &BaselineRun{Kind: unchangedKind, Failures: []Failure{}, Tests: -1, Note: "nothing changed, so the tree is the base", at: shownRev(e.cs.Base)}
	oldF = last.Failures
	if len(oldF) == 0 {
		oldF = []Failure{{ID: last.Command}}
	}
	e.emit(event.Event{Type: event.VerifyBaseline, Baseline: &event.Baseline{Kind: unchangedKind, Command: last.Command, AlreadyFailing: nonNil(ids(oldF)), Note: last.Baseline.Note}})
	return []Failure{}, oldF, nil
}

// shownRev is a revision as the evidence names it: a commit id by its
// first 12 digits.
func shownRev(rev string) string {
	if len(rev) == 40 && strings.Trim(rev, "0123456789abcdef") == "" {
		return rev[:12]
	}
	if rev == "" {
		return "HEAD"
	}
	return rev
}

// classify splits a failing check's failures into new and already
// failing. When a check failed with named failures or a plain non-zero exit,
// the same command runs once more with the changed files put back to their
// base version (crash-safe putback), then the change is restored. A timeout,
// a missing program or an empty collection gets no baseline: each would
// only repeat, and none of them is classified.
func (e *engine) classify(ctx context.Context, last *CheckRun) (newF, oldF []Failure, err error) {
	if !last.Outcome().HasBaseline() {
		return nil, nil, nil
	}
	if b := e.opts.Baseline; b != nil && len(last.Failures) > 0 {
		newIDs, oldIDs := baseline.ClassifyAgainst(ids(last.Failures), *b)
		last.Baseline = &BaselineRun{Kind: "copy", Ran: b.Ran, Failures: []Failure{}, Note: b.Note}
		return pick(last.Failures, newIDs), pick(last.Failures, oldIDs), nil
	}
	if e.opts.NoBaseline || e.src == nil || e.cs.Unknown || (e.cs.Base == "" && e.opts.BaseSource == nil) {
		return last.Failures, nil, nil
	}
	if len(e.cs.Changed) == 0 && e.opts.BaseSource == nil {
		return e.unchangedBase(last)
	}
	if len(e.cs.Changed) == 0 {
		// An agent turn that changed nothing: its failures go back to
		// the model as failures ("done" without doing the work).
		return last.Failures, nil, nil
	}
	kind := "putback"
	if e.useCopy(last) {
		kind = "copy"
	}
	want := ids(last.Failures)
	if len(want) == 0 {
		want = []string{wholeCheck}
	}
	key, onDisk := e.baselineKey(ctx, last)
	known := map[string]bool{}
	if key != "" {
		known = loadBaseline(key, onDisk)
	}
	var unknown []Failure
	for _, f := range last.Failures {
		if _, ok := known[f.ID]; !ok {
			unknown = append(unknown, f)
		}
	}
	_, wholeKnown := known[wholeCheck]
	var b *BaselineRun
	var br CheckRun
	if key != "" && len(unknown) == 0 && (len(last.Failures) > 0 || wholeKnown) {
		// An earlier run on the same base settled every one of them.
		b = &BaselineRun{Kind: kind, Ran: true, Cached: true, Failures: []Failure{}, Tests: -1}
		br.Passed = !known[wholeCheck]
	} else {
		b, br, err = e.runBaseline(ctx, last, kind, unknown)
		if err != nil {
			return nil, nil, err
		}
		if key != "" && b.Ran {
			for _, f := range unknown {
				known[f.ID] = false
			}
			for _, f := range br.Failures {
				known[f.ID] = true
			}
			if len(last.Failures) == 0 {
				known[wholeCheck] = !br.Passed
			}
			saveBaseline(key, onDisk, known)
		}
	}
	last.Baseline = b
	newF, oldF = []Failure{}, []Failure{}
	if len(last.Failures) == 0 {
		// An opaque check: it failed before the change too, or it is new.
		whole := Failure{ID: last.Command, Name: ""}
		if b.Ran && !br.Passed {
			oldF = append(oldF, whole)
		} else {
			newF = append(newF, whole)
		}
	} else {
		before := ids(br.Failures)
		for _, f := range last.Failures {
			if known[f.ID] {
				before = append(before, f.ID)
			}
		}
		newIDs, oldIDs := baseline.ClassifyAgainst(ids(last.Failures), baseline.Run{Failures: before, Ran: b.Ran})
		newF, oldF = pick(last.Failures, newIDs), pick(last.Failures, oldIDs)
		if b.Ran {
			// Passed at the base: broken by the change, or flaky.
			var flaky []Failure
			if newF, flaky, err = e.rerunNew(ctx, last, newF); err != nil {
				return nil, nil, err
			}
			last.Flaky = flaky
			oldF = append(oldF, flaky...)
		}
	}
	_ = want
	e.emit(event.Event{Type: event.VerifyBaseline, Baseline: &event.Baseline{Kind: kind, Command: last.Command, AlreadyFailing: nonNil(ids(oldF)), DurationMS: br.DurationMS, Note: b.Note}})
	return newF, oldF, nil
}

// runBaseline runs the failing check on the base version: the failing
// tests only (failures), when the runner can name them, else the same
// selection. A narrowed run that found none of them at the base ran fine:
// they are new tests.
func (e *engine) runBaseline(ctx context.Context, last *CheckRun, kind string, failures []Failure) (*BaselineRun, CheckRun, error) {
	sel := selecttest.Selection{Scope: last.Scope, Args: last.args, Targets: last.Targets}
	narrowed := false
	narrow := func(dir string) selecttest.Selection {
		bs := baselineSelection(e.baseTree(dir, last.check.Dir), last, failures, sel)
		narrowed = bs.Reason.Code == scope.FailingOnly
		return bs
	}
	label := "baseline, before your change: " + e.shownDir(last.check.Dir) + shortCommand(last.Command, last.Targets)
	runAt := func(pick func(dir string) selecttest.Selection) (CheckRun, string, error) {
		if kind == "copy" {
			return e.copyBaseline(ctx, last.check, pick, label)
		}
		return e.putbackBaseline(ctx, last.check, pick, label)
	}
	br, note, err := runAt(narrow)
	if err != nil {
		return nil, br, err
	}
	if narrowed && br.NoTests {
		br.NoTests, br.ExitCode, br.Passed = false, 0, true
	}
	if seemOld := failedOf(br.Failures, failures); narrowed && note == "" && !br.TimedOut && len(seemOld) > 0 {
		// Alone at the base, a test can fail where it passes among the
		// others: smithy-go's TestEncoder_Encode reads cases another
		// test fills in, so run by itself it panics at HEAD too, and a
		// real new failure read as old. "Failing before" must come from
		// a run that keeps the tests' company: the narrowed run without
		// its name filter (go test's packages without -run, each one
		// test binary with its tests in their order; pytest's files
		// without -k; jest's and vitest's files without -t), else the
		// check's own selection.
		narrowed = false
		br, note, err = runAt(func(dir string) selecttest.Selection {
			bs := baselineSelection(e.baseTree(dir, last.check.Dir), last, seemOld, sel)
			if bs.Reason.Code != scope.FailingOnly {
				return sel
			}
			args, ok := withoutNameFilter(last.check.Runner, bs.Args)
			if !ok {
				return sel
			}
			narrowed = true
			return selecttest.Selection{Scope: bs.Scope, Args: args, Command: shell.Join(args)}
		})
		if err != nil {
			return nil, br, err
		}
	}
	if note == "" && br.ExitCode != 0 && len(br.Failures) == 0 && len(last.Failures) > 0 {
		// It broke before any test could fail (a build or setup error):
		// nothing is known about which tests failed before.
		note = "the baseline failed without naming a test: " + lastLine(br.Output)
	}
	b := &BaselineRun{Kind: kind, DurationMS: br.DurationMS, Failures: br.Failures, Note: note, ExitCode: br.ExitCode, Tests: br.Tests}
	if narrowed {
		b.Command = br.Command
	}
	b.Ran = note == "" && !br.TimedOut && br.NotFound == ""
	if b.Note == "" && !b.Ran {
		b.Note = "the baseline run did not finish"
	}
	if b.Failures == nil {
		b.Failures = []Failure{}
	}
	return b, br, nil
}

// withoutNameFilter drops the test-name filter from a narrowed baseline
// command, keeping its packages or files: -run for go test, -k for
// pytest, -t (--testNamePattern) for jest and vitest. ok is false for the
// other runners and for a command without such a filter.
func withoutNameFilter(r detect.Runner, args []string) ([]string, bool) {
	var flags []string
	switch r {
	case detect.Go:
		flags = []string{"-run"}
	case detect.Pytest:
		flags = []string{"-k"}
	case detect.Jest, detect.Vitest:
		flags = []string{"-t", "--testNamePattern"}
	default:
		return nil, false
	}
	out := make([]string, 0, len(args))
	dropped := false
	for i := 0; i < len(args); i++ {
		if slices.Contains(flags, args[i]) && i+1 < len(args) {
			i++
			dropped = true
			continue
		}
		out = append(out, args[i])
	}
	return out, dropped
}

// failedOf returns the failures of want that are among failed.
func failedOf(failed, want []Failure) []Failure {
	var out []Failure
	for _, w := range want {
		for _, f := range failed {
			if f.ID == w.ID {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

// baseTree describes dir, the base version of the check folder checkDir
// (the working tree with the changes put back, or a copy): the changed
// files missing there are the ones the change added.
func (e *engine) baseTree(dir, checkDir string) baseTree {
	bt := baseTree{dir: dir, added: map[string]bool{}}
	rel := e.relDir(checkDir)
	for _, p := range e.cs.Changed {
		if rel != "." {
			var ok bool
			if p, ok = strings.CutPrefix(p, rel+"/"); !ok {
				continue
			}
		}
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); errors.Is(err, fs.ErrNotExist) {
			bt.added[p] = true
		}
	}
	return bt
}

// useCopy tells whether the baseline runs in a throwaway copy of the base
// revision rather than by putting files back: for a full-suite run against
// a git base, so the working tree is never touched. Cargo is an exception
// (a copy has no target folder and would rebuild every crate), and so is
// Go: its build cache keys on the source folder, so a copy recompiles the
// whole module and its tests (4-8 times the full suite on BurntSushi/toml,
// where putback rebuilds only the changed packages). So is Python: an
// editable install or a PYTHONPATH naming the working tree makes the
// copy's tests import the changed code, not the base (itsdangerous with
// PYTHONPATH=$PWD/src read a new failure as already failing). So is a
// sandboxed runner, whose checks see a private /tmp and not the copy.
func (e *engine) useCopy(last *CheckRun) bool {
	switch last.check.Runner {
	case detect.Cargo, detect.Go, detect.GoVet, detect.Pytest, detect.Unittest:
		return false
	}
	return last.Scope.Full && e.opts.BaseSource == nil && e.cs.Git && e.cs.Base != "" && e.r.Sandbox == nil
}

// copyBaseline runs the selection in a copy of the base revision. A copy
// that cannot be made leaves the baseline unknown (note says why) rather
// than failing the gate.
func (e *engine) copyBaseline(ctx context.Context, c detect.Check, narrow func(dir string) selecttest.Selection, label string) (CheckRun, string, error) {
	if e.opts.Progress != nil {
		e.opts.Progress("copying the base version for the baseline run")
	}
	dir, cleanup, err := baseline.CopyTree(ctx, e.r, e.cs.Root, e.cs.Base, baseline.CopyOptions{Share: baseline.DefaultShare(e.cs.Root)})
	if err != nil {
		if ctx.Err() != nil {
			return CheckRun{}, "", ctx.Err()
		}
		return CheckRun{}, "the base copy could not be made: " + err.Error(), nil
	}
	defer cleanup()
	rel, err := filepath.Rel(e.cs.Root, c.Dir)
	if err != nil {
		return CheckRun{}, "", err
	}
	c.Dir = filepath.Join(dir, rel)
	if _, err := os.Stat(c.Dir); err != nil {
		return CheckRun{}, noBaseNote, nil
	}
	br, err := e.execute(ctx, c, narrow(c.Dir), label)
	if err != nil && ctx.Err() == nil {
		return CheckRun{}, "the baseline could not run: " + err.Error(), nil
	}
	return br, "", err
}

// putbackBaseline runs the selection with the changed files put back to
// their base version, crash-safely, then restores them. The files the
// checks wrote are put back too (and restored after): the base is the
// base only without them (a test file a failing run emptied would make
// every package's tests fail to build there, and the failures that were
// old would read as new).
func (e *engine) putbackBaseline(ctx context.Context, c detect.Check, narrow func(dir string) selecttest.Selection, label string) (CheckRun, string, error) {
	paths := e.cs.Changed
	if written := e.writtenByChecks(ctx); len(written) > 0 {
		paths = append(slices.Clip(paths), written...)
	}
	files, err := e.baseFiles(ctx, paths)
	if err != nil {
		return CheckRun{}, "", err
	}
	var br CheckRun
	note := ""
	err = baseline.Putback(ctx, baseline.PutbackOptions{Root: e.cs.Root, Files: files, HistoryDir: e.opts.HistoryDir, Watcher: e.opts.Watcher},
		func(ctx context.Context) error {
			// Putting back the files of a new project leaves its folder
			// empty (or gone): there is nothing to run at the base.
			if ents, err := os.ReadDir(c.Dir); err != nil || len(ents) == 0 {
				note = noBaseNote
				return nil
			}
			var err error
			br, err = e.execute(ctx, c, narrow(c.Dir), label)
			if err != nil && ctx.Err() == nil {
				note, err = "the baseline could not run: "+err.Error(), nil
			}
			return err
		})
	return br, note, err
}

// baseFiles reads the base version of each of paths.
func (e *engine) baseFiles(ctx context.Context, paths []string) ([]baseline.File, error) {
	modes := map[string]fs.FileMode{}
	if gs, ok := e.src.(GitSource); ok {
		modes = gitModes(ctx, e, gs.Rev, paths)
	}
	var files []baseline.File
	for _, p := range paths {
		data, err := e.src.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			files = append(files, baseline.File{Path: p})
			continue
		}
		if err != nil {
			return nil, err
		}
		mode, ok := modes[p]
		if !ok {
			mode = 0o644
			if fi, err := os.Lstat(filepath.Join(e.cs.Root, filepath.FromSlash(p))); err == nil && fi.Mode().IsRegular() {
				mode = fi.Mode().Perm()
			}
		}
		if data == nil {
			data = []byte{}
		}
		files = append(files, baseline.File{Path: p, Base: data, Mode: mode})
	}
	return files, nil
}

// gitModes reads the modes of paths at rev (executable bits and symlinks
// matter to the tests that run them).
func gitModes(ctx context.Context, e *engine, rev string, paths []string) map[string]fs.FileMode {
	out := map[string]fs.FileMode{}
	if len(paths) == 0 || len(paths) > 2000 {
		return out
	}
	if gs, ok := e.src.(GitSource); ok && gs.objs != nil {
		for p, m := range gs.Modes(paths) {
			out[p] = fileMode(m)
		}
		if len(out) == len(paths) {
			return out
		}
	}
	args := append([]string{"--literal-pathspecs", "ls-tree", "-z", rev, "--"}, paths...)
	b, err := git.Output(ctx, e.r, e.cs.Root, args...)
	if err != nil {
		return out
	}
	for _, rec := range splitZ(b) {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) < 1 {
			continue
		}
		m, err := strconv.ParseUint(f[0], 8, 32)
		if err != nil {
			continue
		}
		out[p] = fileMode(uint32(m))
	}
	return out
}

// fileMode is the mode a file of git tree mode m is put back with.
func fileMode(m uint32) fs.FileMode {
	switch {
	case m == 0o120000:
		return fs.ModeSymlink
	case m&0o111 != 0:
		return 0o755
	default:
		return 0o644
	}
}

func ids(fs []Failure) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

// pick returns the failures whose IDs are listed, in list order.
func pick(all []Failure, want []string) []Failure {
	byID := map[string]Failure{}
	for _, f := range all {
		byID[f.ID] = f
	}
	out := []Failure{}
	for _, id := range want {
		if f, ok := byID[id]; ok {
			out = append(out, f)
		}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// lastLine is the last non-empty line of text.
func lastLine(text string) string {
	text = strings.TrimRight(text, "\n")
	return strings.TrimSpace(text[strings.LastIndexByte(text, '\n')+1:])
}
