package selecttest

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

func init() {
	analyzers[detect.Jest] = selectNode
	analyzers[detect.Vitest] = selectNode
}

// jsExts are the files jest and vitest put in their module graphs.
var jsExts = map[string]bool{".js": true, ".jsx": true, ".ts": true, ".tsx": true, ".mjs": true,
	".cjs": true, ".mts": true, ".cts": true, ".vue": true, ".svelte": true, ".json": true}

var jsTestName = regexp.MustCompile(`\.(test|spec)\.[cm]?[jt]sx?$`)

// selectNode hands the changed files to the runner's own related-test
// mode: jest --findRelatedTests, vitest related --run. Whether a file has
// related tests is only known when that runs; a run that finds none is
// the caller's cue to run the full suite (see FallbackReason). A jest
// configuration that may limit the roots jest crawls is listed first
// instead (listRelated).
func selectNode(ctx context.Context, r *run.Runner, in Input) (Selection, error) {
	if n := countJSTests(in.Check.Dir); n <= MinTestFiles {
		return fullSelection(in.Check, scope.Count(scope.FewTestFiles, MinTestFiles)), nil
	}
	var files []string
	seen := map[string]bool{}
	for _, f := range cleanChanged(in.Changed) {
		if t, ok := snapshotTest(in.Check.Dir, f); ok {
			f = t
		}
		if seen[f] {
			continue
		}
		seen[f] = true
		switch {
		case !jsExts[path.Ext(f)]:
			return fullSelection(in.Check, scope.For(scope.NotCode, "JavaScript or TypeScript", f)), nil
		case !fileExists(filepath.Join(in.Check.Dir, filepath.FromSlash(f))):
			// A deleted test file has nothing left to run. A deleted module
			// that no file names any more (the old half of a rename) has no
			// tests of its own: the files that changed their imports bring
			// theirs. One still named may break its importers, which the
			// runner's graph can no longer see.
			if jsTestName.MatchString(f) {
				continue
			}
			if by := jsNamedBy(in.Check.Dir, f); by != "" {
				return fullSelection(in.Check, scope.Because(scope.DeletedStillNamed, f, by)), nil
			}
			continue
		case path.Ext(f) == ".json" && jsNamedBy(in.Check.Dir, f) == "":
			// Data no module imports is read at run time (fs, a glob of
			// fixtures); the runner's module graph cannot see who reads it.
			return fullSelection(in.Check, scope.Because(scope.UnimportedData, f)), nil
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return fullSelection(in.Check, scope.Because(scope.OnlyDeleted)), nil
	}
	args := in.Check.Args
	if len(args) == 0 {
		args = runner.SimpleWords(in.Check.Command)
	}
	rn := runner.For(in.Check.Runner)
	if l, ok := rn.(runner.RelatedLister); ok {
		if sel, listed := listRelated(ctx, r, in, l, args, files); listed {
			return sel, nil
		}
	}
	out, reason := rn.Related(in.Check.Dir, args, files)
	if out == nil {
		return fullSelection(in.Check, reason), nil
	}
	return narrowed(out, files, nil), nil
}

// listTimeout bounds the listing run of the related tests.
const listTimeout = 3 * time.Minute

// listRelated selects through a listing run when the runner needs one
// (jest with configured roots): the related test files are listed over
// the whole project, then run by path. listed is false when the runner's
// one-run related mode sees the whole project.
func listRelated(ctx context.Context, r *run.Runner, in Input, l runner.RelatedLister, args, files []string) (sel Selection, listed bool) {
	dir := in.Check.Dir
	listArgs, reason := l.ListRelated(dir, args, files)
	if listArgs == nil {
		if !reason.IsZero() {
			return fullSelection(in.Check, reason), true
		}
		return Selection{}, false
	}
	// The two listings are independent, and each is mostly the runner's
	// start-up (npm, jest, its haste map): run side by side they cost
	// about one (0.98 and 0.71 s one after the other on dayjs).
	var all []string
	var allWhy scope.Reason
	var lists sync.WaitGroup
	lists.Add(1)
	go func() {
		defer lists.Done()
		all, allWhy = runList(ctx, r, in, l, l.ListAll(dir, args))
	}()
	related, why := runList(ctx, r, in, l, listArgs)
	lists.Wait()
	if !why.IsZero() {
		return fullSelection(in.Check, why), true
	}
	if !allWhy.IsZero() {
		return fullSelection(in.Check, allWhy), true
	}
	// The widened roots may reach tests the configuration leaves out.
	tests := slices.DeleteFunc(related, func(t string) bool { return !slices.Contains(all, t) })
	switch len(tests) {
	case 0:
		return fullSelection(in.Check, scope.Because(scope.NoRelatedTests)), true
	case len(all):
		return fullSelection(in.Check, scope.For(scope.ReachesAll, "test file")), true
	}
	out, reason := l.RunPaths(dir, args, tests)
	if out == nil {
		return fullSelection(in.Check, reason), true
	}
	return narrowed(out, files, nil), true
}

// runList runs one listing and reads the test files it printed; a zero
// reason means it worked.
func runList(ctx context.Context, r *run.Runner, in Input, l runner.RelatedLister, args []string) ([]string, scope.Reason) {
	if args == nil {
		return nil, scope.Reason{Code: scope.NotWorkedOut, Detail: "the test files cannot be listed"}
	}
	var stdout bytes.Buffer
	res, err := r.Run(ctx, run.Spec{Args: args, Dir: in.Check.Dir, Purpose: run.Check, Env: runner.For(in.Check.Runner).Env(),
		Timeout: listTimeout, Stdout: &stdout, Approve: shell.Join(args)})
	switch {
	case err != nil:
		return nil, scope.Reason{Code: scope.NotWorkedOut, Detail: shell.Join(args) + ": " + err.Error()}
	case res.ExitCode != 0 || res.TimedOut:
		return nil, scope.Reason{Code: scope.NotWorkedOut, Detail: listFailure(args, res)}
	}
	tests, err := l.ParseList(in.Check.Dir, stdout.Bytes())
	if err != nil {
		return nil, scope.Reason{Code: scope.NotWorkedOut, Detail: err.Error()}
	}
	return tests, scope.Reason{}
}

// listFailure says how a listing run failed: its command and last line.
func listFailure(args []string, res run.Result) string {
	if res.TimedOut {
		return shell.Join(args) + " timed out"
	}
	return fmt.Sprintf("%s exited %d: %s", shell.Join(args), res.ExitCode, lastLine(res.Output))
}

// snapshotTest maps a jest or vitest snapshot, __snapshots__/x.test.ts.snap,
// to the test file that owns it, x.test.ts beside the folder, when that
// file exists: the snapshot is that test's expected output and nothing
// else reads it. An orphaned snapshot maps to nothing.
func snapshotTest(dir, f string) (string, bool) {
	if path.Ext(f) != ".snap" || path.Base(path.Dir(f)) != "__snapshots__" {
		return "", false
	}
	t := path.Join(path.Dir(path.Dir(f)), strings.TrimSuffix(path.Base(f), ".snap"))
	if !jsTestName.MatchString(t) && !strings.Contains("/"+t, "/__tests__/") || !fileExists(filepath.Join(dir, filepath.FromSlash(t))) {
		return "", false
	}
	return t, true
}

// jsSpecifier finds the module names a JavaScript source imports:
// require("x"), import("x"), jest.mock("x"), import ... from "x", import "x".
var jsSpecifier = regexp.MustCompile(`(?:\b(?:require|import|mock|requireActual|importActual|doMock)\s*\(\s*|\b(?:from|import)\s+)['"\x60]([^'"\x60\n]+)['"\x60]`)

// jsNamedBy returns the first source file that imports a module that could
// be the (deleted) file f: one whose last path element, extension dropped,
// is f's name, or its folder's name for an index file. Bare package names
// that happen to match make it err on the side of the full suite.
func jsNamedBy(dir, f string) string {
	stem := strings.TrimSuffix(path.Base(f), path.Ext(f))
	if stem == "index" {
		stem = path.Base(path.Dir(f))
	}
	found := ""
	walkFiles(dir, keepSourceDir, func(rel string) bool {
		if !jsExts[path.Ext(rel)] || path.Ext(rel) == ".json" {
			return true
		}
		src, err := readHead(filepath.Join(dir, filepath.FromSlash(rel)), 1<<20)
		if err != nil {
			return true
		}
		for _, m := range jsSpecifier.FindAllSubmatch(src, -1) {
			spec := string(m[1])
			last := path.Base(spec)
			if last == stem || strings.TrimSuffix(last, path.Ext(last)) == stem {
				found = rel
				return false
			}
		}
		return true
	})
	return found
}

// countJSTests counts test files the way jest's defaults see them.
func countJSTests(dir string) int {
	n := 0
	walkFiles(dir, keepSourceDir, func(rel string) bool {
		if jsTestName.MatchString(rel) || strings.Contains("/"+rel, "/__tests__/") && jsExts[path.Ext(rel)] {
			n++
		}
		return n <= MinTestFiles
	})
	return n
}
