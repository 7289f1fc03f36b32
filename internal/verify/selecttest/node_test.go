package selecttest

import (
	"fmt"
	"testing"

	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// nodeProject writes a package with the given test script and enough test
// files to be narrowed.
func nodeProject(t *testing.T, script string) string {
	dir := t.TempDir()
	files := map[string]string{
		"package.json": fmt.Sprintf(`{"name":"p","scripts":{"test":%q}}`, script),
		"src/a.js":     "module.exports = 1\n",
		"src/b.ts":     "export const b = 2\n",
		"README.md":    "# p\n",
	}
	for i := 0; i < 21; i++ {
		files[fmt.Sprintf("src/t%02d.test.js", i)] = "test('x', () => {})\n"
	}
	writeTree(t, dir, files)
	return dir
}

func TestJestCommands(t *testing.T) {
	cases := []struct {
		script string
		args   []string
		want   string
		reason string
	}{
		{"jest", []string{"npx", "jest"}, "npx jest --findRelatedTests src/a.js src/b.ts", ""},
		{"jest", []string{"node_modules/.bin/jest", "--ci"}, "node_modules/.bin/jest --ci --findRelatedTests src/a.js src/b.ts", ""},
		{"jest --coverage", []string{"npm", "test"}, "npm test -- --findRelatedTests src/a.js src/b.ts", ""},
		{"NODE_ENV=test jest", []string{"npm", "test", "--"}, "npm test -- --findRelatedTests src/a.js src/b.ts", ""},
		{"jest && eslint .", []string{"npm", "test"}, "", "the test script is not a single command"},
		{"react-scripts test", []string{"npm", "test"}, "", "the test script is not a plain jest command"},
	}
	for _, tc := range cases {
		dir := nodeProject(t, tc.script)
		check := detect.Check{Command: shell.Join(tc.args), Args: tc.args, Dir: dir, Runner: detect.Jest, Narrowable: true}
		sel := mustSelect(t, Input{Check: check, Changed: []string{"src/a.js", "src/b.ts"}})
		if tc.want != "" {
			wantNarrow(t, sel, tc.want)
		} else {
			wantFull(t, sel, tc.reason)
		}
	}
}

func TestVitestCommands(t *testing.T) {
	cases := []struct {
		script string
		args   []string
		want   string
		reason string
	}{
		{"vitest", []string{"npx", "vitest", "run"}, "npx vitest related --run src/a.js", ""},
		{"vitest run --reporter=dot", []string{"npm", "test"}, "npx vitest related --run --reporter=dot src/a.js", ""},
		{"vitest --run", []string{"npm", "run", "test"}, "npx vitest related --run src/a.js", ""},
		{"CI=1 vitest run", []string{"npm", "test"}, "", "the test script sets environment variables"},
	}
	for _, tc := range cases {
		dir := nodeProject(t, tc.script)
		check := detect.Check{Command: shell.Join(tc.args), Args: tc.args, Dir: dir, Runner: detect.Vitest, Narrowable: true}
		sel := mustSelect(t, Input{Check: check, Changed: []string{"src/a.js"}})
		if tc.want != "" {
			wantNarrow(t, sel, tc.want)
		} else {
			wantFull(t, sel, tc.reason)
		}
	}
}

func TestNodeFullRules(t *testing.T) {
	dir := nodeProject(t, "jest")
	check := detect.Check{Command: "npx jest", Args: []string{"npx", "jest"}, Dir: dir, Runner: detect.Jest, Narrowable: true}
	wantFull(t, mustSelect(t, Input{Check: check, Changed: []string{"src/a.js", "README.md"}}),
		"README.md is not JavaScript or TypeScript code")
	writeTree(t, dir, map[string]string{"src/user.js": "const g = require('./gone')\n"})
	wantFull(t, mustSelect(t, Input{Check: check, Changed: []string{"src/gone.js"}}),
		"src/gone.js was deleted and src/user.js still names it")
	// A rename: the old path is named by nothing, the new one is related.
	wantNarrow(t, mustSelect(t, Input{Check: check, Changed: []string{"src/old_a.js", "src/a.js"}}),
		"npx jest --findRelatedTests src/a.js")
	// A renamed test file runs under its new name.
	wantNarrow(t, mustSelect(t, Input{Check: check, Changed: []string{"src/old.test.js", "src/t00.test.js"}}),
		"npx jest --findRelatedTests src/t00.test.js")
	wantFull(t, mustSelect(t, Input{Check: check, Changed: []string{"src/old_a.js"}}),
		"only deleted files changed, so no file is left to relate tests to")
	wantFull(t, mustSelect(t, Input{Check: check, Changed: []string{"jest.config.js"}}), "jest.config.js changed")
	small := t.TempDir()
	writeTree(t, small, map[string]string{"package.json": `{"scripts":{"test":"jest"}}`, "a.test.js": ""})
	check.Dir = small
	wantFull(t, mustSelect(t, Input{Check: check, Changed: []string{"a.js"}}), "the project has 20 or fewer test files")
	// No Args: the command line is parsed.
	check = detect.Check{Command: "npx jest --ci", Dir: dir, Runner: detect.Jest, Narrowable: true}
	wantNarrow(t, mustSelect(t, Input{Check: check, Changed: []string{"src/a.js"}}), "npx jest --ci --findRelatedTests src/a.js")
}

// A snapshot is its test's expected output: changing it runs that test,
// not the full suite; a snapshot with no test file beside it still does.
func TestNodeSnapshotRunsItsTest(t *testing.T) {
	dir := nodeProject(t, "jest")
	writeTree(t, dir, map[string]string{
		"src/__snapshots__/t03.test.js.snap":  "exports[`x 1`] = `1`;\n",
		"src/__snapshots__/gone.test.js.snap": "exports[`y 1`] = `2`;\n",
	})
	check := detect.Check{Command: "npx jest", Args: []string{"npx", "jest"}, Dir: dir, Runner: detect.Jest, Narrowable: true}
	wantNarrow(t, mustSelect(t, Input{Check: check, Changed: []string{"src/__snapshots__/t03.test.js.snap"}}),
		"npx jest --findRelatedTests src/t03.test.js")
	wantNarrow(t, mustSelect(t, Input{Check: check, Changed: []string{"src/__snapshots__/t03.test.js.snap", "src/a.js", "src/t03.test.js"}}),
		"npx jest --findRelatedTests src/t03.test.js src/a.js")
	wantFull(t, mustSelect(t, Input{Check: check, Changed: []string{"src/__snapshots__/gone.test.js.snap"}}),
		"src/__snapshots__/gone.test.js.snap is not JavaScript or TypeScript code")
	vcheck := detect.Check{Command: "npm test", Args: []string{"npm", "test"}, Dir: nodeProject(t, "vitest run"), Runner: detect.Vitest, Narrowable: true}
	writeTree(t, vcheck.Dir, map[string]string{"src/__snapshots__/t04.test.js.snap": "x\n"})
	wantNarrow(t, mustSelect(t, Input{Check: vcheck, Changed: []string{"src/__snapshots__/t04.test.js.snap"}}),
		"npx vitest related --run src/t04.test.js")
}

// A JSON file the tests read with fs is invisible to the runner's module
// graph: with another change beside it, a related run would skip the test
// that reads it. An imported JSON file is related as usual.
func TestNodeUnimportedJSONRunsFullSuite(t *testing.T) {
	dir := nodeProject(t, "jest")
	writeTree(t, dir, map[string]string{
		"test/fixtures/answer.json": `{"answer": 42}`,
		"test/fixture.test.js":      "const fs = require('fs')\ntest('x', () => JSON.parse(fs.readFileSync(__dirname + '/fixtures/answer.json')))\n",
		"src/config.json":           `{}`,
		"src/c.js":                  "module.exports = require('./config.json')\n",
	})
	check := detect.Check{Command: "npx jest", Args: []string{"npx", "jest"}, Dir: dir, Runner: detect.Jest, Narrowable: true}
	wantFull(t, mustSelect(t, Input{Check: check, Changed: []string{"src/a.js", "test/fixtures/answer.json"}}),
		"test/fixtures/answer.json is imported by no module, so the tests that read it are unknown")
	wantNarrow(t, mustSelect(t, Input{Check: check, Changed: []string{"src/a.js", "src/config.json"}}),
		"npx jest --findRelatedTests src/a.js src/config.json")
}
