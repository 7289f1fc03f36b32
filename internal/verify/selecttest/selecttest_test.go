package selecttest

import (
	"fmt"
	"testing"

	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// The rules that need no runner knowledge, each on its own. The check's
// folder does not exist: none of them may look at the project.
func TestGeneralRules(t *testing.T) {
	check := goCheck("/nonexistent/project")
	many := make([]string, 21)
	for i := range many {
		many[i] = fmt.Sprintf("p/f%d.go", i)
	}
	cases := []struct {
		name   string
		in     Input
		reason string
	}{
		{"--full", Input{Check: check, ForceFull: true, Changed: []string{"a.go"}}, "--full"},
		{"scope = full", Input{Check: check, ForceFull: true, ForceFullReason: scope.For(scope.Asked, `scope = "full"`)}, `scope = "full"`},
		{"unknown change", Input{Check: check, ChangeUnknown: true}, "the change set is unknown"},
		{"nothing changed", Input{Check: check}, "no files changed"},
		{"more than 20", Input{Check: check, Changed: many}, "more than 20 files changed"},
		{"setup file", Input{Check: check, Changed: []string{"a.go", "tests/conftest.py"}}, "tests/conftest.py changed"},
		{"CI file", Input{Check: check, Changed: []string{".github/workflows/ci.yml"}}, ".github/workflows/ci.yml changed"},
		{"fast full run", Input{Check: check, Changed: []string{"a.go"}, FullRunSecs: 12.4}, "a full run took 12s earlier this session"},
		{"fast full run, short", Input{Check: check, Changed: []string{"a.go"}, FullRunSecs: 0.43}, "a full run took 0.4s earlier this session"},
		{"make", Input{Check: detect.Check{Command: "make test", Args: []string{"make", "test"}, Runner: detect.Make}, Changed: []string{"a.c"}}, "make checks always run in full"},
		{"custom", Input{Check: detect.Check{Command: "./ci.sh", Runner: detect.Custom}, Changed: []string{"a.c"}}, "configured checks always run in full"},
		{"mocha", Input{Check: detect.Check{Command: "npm test", Args: []string{"npm", "test"}, Runner: detect.Mocha, Narrowable: true}, Changed: []string{"a.js"}}, "mocha has no related-test mode"},
		{"node --test", Input{Check: detect.Check{Command: "npm test", Args: []string{"npm", "test"}, Runner: detect.NodeTest, Narrowable: true}, Changed: []string{"a.js"}}, "node's test runner has no related-test mode"},
		{"unknown npm runner", Input{Check: detect.Check{Command: "npm test", Args: []string{"npm", "test"}, Runner: detect.NPM, Narrowable: true}, Changed: []string{"a.js"}}, "the npm test script has no known related-test mode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sel := mustSelect(t, tc.in)
			wantFull(t, sel, tc.reason)
			if sel.Command == "" {
				t.Fatal("full selection without a command")
			}
		})
	}
}

func TestFullRunOverThirtySecondsStillNarrows(t *testing.T) {
	if reason, full := generalRule(Input{Check: goCheck("/x"), Changed: []string{"a.go"}, FullRunSecs: 31}); full {
		t.Fatalf("a 31s full run forced the full suite: %s", reason)
	}
}

func TestSetupFiles(t *testing.T) {
	yes := []string{"conftest.py", "sub/conftest.py", "pytest.ini", "pyproject.toml", "setup.py", "setup.cfg",
		"tox.ini", "requirements.txt", "requirements-dev.txt", "reqs/requirements/base.txt",
		"Cargo.toml", "crates/a/Cargo.toml", "Cargo.lock", "build.rs", "crates/a/build.rs", "go.mod", "go.sum",
		"package.json", "web/package.json", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "jest.config.js",
		"vitest.config.ts", "vite.config.mts", "tsconfig.json", "tsconfig.build.json", "babel.config.js",
		"Makefile", "rules.mk", ".github/workflows/ci.yml", ".gitlab-ci.yml", ".circleci/config.yml"}
	no := []string{"main.go", "src/pkg/mod.py", "requirements.py", "lib/index.ts", "README.md", "docs/setup.md",
		"tsconfig.ts", "gomod.go", "src/build.rs.txt"}
	for _, f := range yes {
		if !IsSetupFile(f) {
			t.Errorf("%s is shared setup, not recognised", f)
		}
	}
	for _, f := range no {
		if IsSetupFile(f) {
			t.Errorf("%s taken for shared setup", f)
		}
	}
}
