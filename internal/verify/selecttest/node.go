package selecttest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/detect"
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
		return fullSelection(in.Check, fmt.Sprintf("the project has %d or fewer test files", MinTestFiles)), nil
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
			return fullSelection(in.Check, f+" is not JavaScript or TypeScript code"), nil
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
				return fullSelection(in.Check, f+" was deleted and "+by+" still names it"), nil
			}
			continue
		case path.Ext(f) == ".json" && jsNamedBy(in.Check.Dir, f) == "":
			// Data no module imports is read at run time (fs, a glob of
			// fixtures); the runner's module graph cannot see who reads it.
			return fullSelection(in.Check, f+" is imported by no module, so the tests that read it are unknown"), nil
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return fullSelection(in.Check, "only deleted files changed, so no file is left to relate tests to"), nil
	}
	args := in.Check.Args
	if len(args) == 0 {
		args = simpleWords(in.Check.Command)
	}
	var out []string
	var reason string
	if in.Check.Runner == detect.Jest {
		out, reason = jestRelated(in.Check.Dir, args, files)
	} else {
		out, reason = vitestRelated(in.Check.Dir, args, files)
	}
	if reason != "" {
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

// runnerAt returns the index of the runner's word in a direct invocation
// (jest, npx jest, node_modules/.bin/jest), or -1.
func runnerAt(args []string, name string) int {
	for i, a := range args {
		if path.Base(a) == name {
			return i
		}
		if i == 0 && (a == "npx" || a == "pnpm" || a == "yarn" || a == "bunx") {
			continue
		}
		if strings.HasPrefix(a, "-") && i > 0 && args[0] == "npx" {
			continue
		}
		return -1
	}
	return -1
}

// npmScript reports whether args run the package's test script through a
// package manager, and the script's words.
func npmScript(dir string, args []string) (words []string, isScript bool, reason string) {
	if len(args) < 2 || !contains([]string{"npm", "yarn", "pnpm", "bun"}, args[0]) {
		return nil, false, ""
	}
	rest := args[1:]
	if rest[0] == "run" || rest[0] == "run-script" {
		rest = rest[1:]
	}
	if len(rest) == 0 || rest[0] != "test" {
		return nil, false, ""
	}
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return nil, true, "package.json cannot be read"
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return nil, true, "package.json is not valid JSON"
	}
	w, envs := scriptWords(pkg.Scripts["test"])
	if w == nil {
		return nil, true, "the test script is not a single command"
	}
	if envs {
		return w, true, "the test script sets environment variables"
	}
	return w, true, ""
}

// jestRelated builds `jest ... --findRelatedTests FILES`.
func jestRelated(dir string, args, files []string) ([]string, string) {
	if runnerAt(args, "jest") >= 0 {
		return append(append(append([]string{}, args...), "--findRelatedTests"), files...), ""
	}
	words, isScript, reason := npmScript(dir, args)
	if !isScript {
		return nil, "the command does not run jest directly"
	}
	if reason == "the test script sets environment variables" {
		reason = "" // npm keeps them: the arguments go through the script
	}
	if reason != "" {
		return nil, reason
	}
	if runnerAt(words, "jest") < 0 {
		return nil, "the test script is not a plain jest command"
	}
	out := append([]string{}, args...)
	if args[0] == "npm" && !contains(args, "--") {
		out = append(out, "--")
	}
	return append(append(out, "--findRelatedTests"), files...), ""
}

// vitestRelated builds `vitest related --run ... FILES`; the related
// subcommand must come first, so a script's run/watch word is replaced.
func vitestRelated(dir string, args, files []string) ([]string, string) {
	words := args
	if i := runnerAt(args, "vitest"); i < 0 {
		w, isScript, reason := npmScript(dir, args)
		if !isScript {
			return nil, "the command does not run vitest directly"
		}
		if reason != "" {
			return nil, reason
		}
		if runnerAt(w, "vitest") < 0 {
			return nil, "the test script is not a plain vitest command"
		}
		words = w
		if path.Base(words[0]) == "vitest" {
			words = append([]string{"npx"}, words...)
		}
	}
	i := runnerAt(words, "vitest")
	out := append([]string{}, words[:i+1]...)
	out = append(out, "related", "--run")
	for j, a := range words[i+1:] {
		if j == 0 && (a == "run" || a == "watch" || a == "dev") {
			continue
		}
		if a == "--run" || a == "--watch" {
			continue
		}
		if !strings.HasPrefix(a, "-") && j == 0 {
			return nil, "the vitest command has its own subcommand or filter"
		}
		out = append(out, a)
	}
	return append(out, files...), ""
}

// scriptWords parses a package.json script; it returns nil unless the
// script is one simple command with literal words. envs reports leading
// VAR=value assignments.
func scriptWords(script string) (words []string, envs bool) {
	parsed, err := shell.Parse(script)
	if err != nil || !parsed.Simple || !parsed.Commands[0].Literal || len(parsed.Commands[0].Args) == 0 {
		return nil, false
	}
	c := parsed.Commands[0]
	return c.Args, len(c.Env) > 0
}

// simpleWords splits a command line that is one simple command.
func simpleWords(cmd string) []string {
	w, envs := scriptWords(cmd)
	if envs {
		return nil
	}
	return w
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
