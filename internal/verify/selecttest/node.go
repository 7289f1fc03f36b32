package selecttest

import (
	"context"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
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
// the caller's cue to run the full suite (see FallbackReason).
func selectNode(_ context.Context, _ *run.Runner, in Input) (Selection, error) {
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
	out, reason := runner.For(in.Check.Runner).Related(in.Check.Dir, args, files)
	if out == nil {
		return fullSelection(in.Check, reason), nil
	}
	return narrowed(out, files, nil), nil
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
