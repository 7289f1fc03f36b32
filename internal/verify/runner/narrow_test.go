package runner

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
)

func TestPytestNarrowTargetsDropsNamedPaths(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "tests", "test_a.py"), nil)
	got, ok := For(Pytest).NarrowTargets(dir, []string{"/usr/bin/python3", "-m", "pytest", "-q", "tests"}, []string{"tests/test_a.py"})
	if want := []string{"/usr/bin/python3", "-m", "pytest", "-q", "tests/test_a.py"}; !ok || !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestCargoFlagsPlacement(t *testing.T) {
	got := CargoArgs([]string{"cargo", "test", "--workspace", "--quiet", "--", "--nocapture"}, []string{"-p", "a"})
	if want := []string{"cargo", "test", "-p", "a", "--quiet", "--", "--nocapture"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestGoNarrowTargets(t *testing.T) {
	got, _ := For(Go).NarrowTargets("", []string{"go", "test", "-count=1", "./..."}, []string{"./a", "./b"})
	if want := []string{"go", "test", "-count=1", "./a", "./b"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestCollectorArgs(t *testing.T) {
	if got := withExtraArgs([]string{"npm", "test"}, "--json"); !slices.Equal(got, []string{"npm", "test", "--", "--json"}) {
		t.Errorf("npm: %q", got)
	}
	if got := withExtraArgs([]string{"npx", "jest", "a.js"}, "--json"); !slices.Equal(got, []string{"npx", "jest", "a.js", "--json"}) {
		t.Errorf("npx: %q", got)
	}
	if got := For(Cargo).Collector("", "").Args([]string{"cargo", "test", "-p", "a", "--", "--exact"}); !slices.Equal(got, []string{"cargo", "test", "--no-fail-fast", "-p", "a", "--", "--exact"}) {
		t.Errorf("cargo: %q", got)
	}
	if got := For(Go).Collector("", "").Args([]string{"go", "test", "./a", "./b"}); !slices.Equal(got, []string{"go", "test", "-json", "./a", "./b"}) {
		t.Errorf("go: %q", got)
	}
}

func TestJestTextFallback(t *testing.T) {
	dir := t.TempDir()
	for script, plain := range map[string]bool{
		"jest":                         true,
		"jest --ci --coverage":         true,
		"NODE_ENV=test npx vitest run": true,
		"jest && eslint .":             false,
		"tsc; vitest run":              false,
		"react-scripts test":           false,
		`FOO="a b" jest`:               true,
		"NODE_OPTIONS='--max-old-space-size=4096 --trace-warnings' vitest run": true,
		"echo 'x' > out; jest": false,
		"jest $(cat args)":     false,
	} {
		os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts":{"test":`+strconv.Quote(script)+`}}`), 0o644)
		if got := plainTestScript(dir); got != plain {
			t.Errorf("%q: plain = %v", script, got)
		}
		j := newJestJSON(t.TempDir(), dir, false)
		args := j.Args([]string{"npm", "test"})
		if plain != (len(args) > 2) || plain == j.text {
			t.Errorf("%q: args %q, text %v", script, args, j.text)
		}
	}
}

// A runner that exits 0 without the report it was asked for verified
// nothing; the outcome names the missing report.
func TestMissingReport(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		r    Name
		want string
	}{
		{Pytest, "the JUnit report it was asked for (--junitxml)"},
		{Jest, "the jest JSON report it was asked for"},
		{Vitest, "the vitest JSON report it was asked for"},
	} {
		col := For(c.r).Collector(dir, dir)
		col.Args([]string{"x"})
		col.Stdout()
		if o := col.Finish(run.Result{Output: []byte("helper loaded\n")}); o.NoReport != c.want {
			t.Errorf("%s: NoReport %q, want %q", c.r, o.NoReport, c.want)
		}
	}
	// With chanto's plugin asked for, the report named is the plugin's:
	// the run was never given --junitxml.
	col := For(Pytest).Collector(dir, dir)
	col.Args([]string{"/usr/bin/python3", "-m", "pytest"})
	col.Stdout()
	want := "the report it was asked for (chanto's pytest plugin, -p chanto_pytest_report)"
	if o := col.Finish(run.Result{Output: []byte("helper loaded\n")}); o.NoReport != want {
		t.Errorf("pytest with the plugin: NoReport %q, want %q", o.NoReport, want)
	}
	col = For(Pytest).Collector("", dir)
	col.Stdout()
	if o := col.Finish(run.Result{}); o.NoReport != "" {
		t.Errorf("no report asked for, yet NoReport %q", o.NoReport)
	}
}

// TestJSNarrowTests: a jest or vitest baseline runs the failing tests'
// files only (a file the base lacks is left out) with -t over their full
// names; without files in the failures' IDs, -t alone.
func TestJSNarrowTests(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"package.json", "test/a.test.js", "test/b.test.js"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(`{"scripts":{"test":"jest"}}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	failures := []Failure{
		{ID: "test/b.test.js › b works", Name: "b works"},
		{ID: "test/a.test.js › a (x) works", Name: "a (x) works"},
		{ID: "test/new.test.js › new works", Name: "new works"},
	}
	pattern := `^(b works|a \(x\) works|new works)( \(with seed=-?\d+\))?$`
	cases := []struct {
		r    Name
		args []string
		fs   []Failure
		want []string
	}{
		{Jest, []string{"npm", "test", "--", "--runTestsByPath", "test/a.test.js", "test/b.test.js", "test/c.test.js"}, failures,
			[]string{"npm", "test", "--", "--runTestsByPath", "test/a.test.js", "test/b.test.js", "-t", pattern}},
		{Jest, []string{"npx", "jest", "--ci", "--findRelatedTests", "src/a.js"}, failures,
			[]string{"npx", "jest", "--ci", "--runTestsByPath", "test/a.test.js", "test/b.test.js", "-t", pattern}},
		{Jest, []string{"npm", "test"}, failures,
			[]string{"npm", "test", "--", "--runTestsByPath", "test/a.test.js", "test/b.test.js", "-t", pattern}},
		{Jest, []string{"npx", "jest"}, []Failure{{ID: "b works", Name: "b works"}},
			[]string{"npx", "jest", "-t", `^(b works)( \(with seed=-?\d+\))?$`}},
		{Vitest, []string{"npx", "vitest", "related", "--run", "--reporter", "dot", "src/a.ts"}, failures,
			[]string{"npx", "vitest", "run", "--reporter", "dot", "test/a.test.js", "test/b.test.js", "-t", pattern}},
		{Vitest, []string{"npx", "vitest", "run"}, failures,
			[]string{"npx", "vitest", "run", "test/a.test.js", "test/b.test.js", "-t", pattern}},
		{Vitest, []string{"npx", "vitest", "run"}, []Failure{{ID: "test/a.test.js", Name: "test/a.test.js (suite failed to run)"}}, nil},
	}
	for _, tc := range cases {
		got, ok := For(tc.r).NarrowTests(dir, tc.args, tc.fs)
		if !slices.Equal(got, tc.want) || ok != (tc.want != nil) {
			t.Errorf("%s %q:\n got %q, %v\nwant %q", tc.r, tc.args, got, ok, tc.want)
		}
	}
}
