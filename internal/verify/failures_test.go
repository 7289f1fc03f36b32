package verify

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

func collect(t *testing.T, r detect.Runner, stdout string, res run.Result, report string) outcome {
	t.Helper()
	dir := t.TempDir()
	c := newCollector(r, dir, "/proj")
	w := c.stdout()
	if report != "" {
		name := "pytest.xml"
		if r == detect.Jest || r == detect.Vitest {
			name = "report.json"
		}
		os.WriteFile(filepath.Join(dir, name), []byte(report), 0o644)
	}
	// Write in odd-sized pieces: lines may arrive split.
	for i := 0; i < len(stdout); i += 7 {
		w.Write([]byte(stdout[i:min(i+7, len(stdout))]))
	}
	if res.Output == nil {
		res.Output = []byte(stdout)
	}
	return c.finish(res)
}

func TestGoJSON(t *testing.T) {
	out := `{"Action":"start","Package":"m/a"}
{"Action":"run","Package":"m/a","Test":"TestA"}
{"Action":"output","Package":"m/a","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"run","Package":"m/a","Test":"TestA/sub"}
{"Action":"output","Package":"m/a","Test":"TestA/sub","Output":"    a_test.go:9: boom\n"}
{"Action":"fail","Package":"m/a","Test":"TestA/sub"}
{"Action":"fail","Package":"m/a","Test":"TestA"}
{"Action":"run","Package":"m/a","Test":"TestB"}
{"Action":"pass","Package":"m/a","Test":"TestB"}
{"Action":"fail","Package":"m/a"}
{"ImportPath":"m/b [m/b.test]","Action":"build-output","Output":"b.go:3:1: syntax error\n"}
{"ImportPath":"m/b [m/b.test]","Action":"build-fail"}
{"Action":"start","Package":"m/b"}
{"Action":"output","Package":"m/b","Output":"FAIL\tm/b [build failed]\n"}
{"Action":"fail","Package":"m/b","FailedBuild":"m/b [m/b.test]"}
`
	o := collect(t, detect.Go, out, run.Result{ExitCode: 1}, "")
	want := []Failure{{ID: "m/a.TestA/sub", Name: "TestA/sub"}, {ID: "m/b [build failed]", Name: "m/b [build failed]"}}
	if !reflect.DeepEqual(o.failures, want) || o.tests != 3 {
		t.Errorf("failures = %+v, tests %d", o.failures, o.tests)
	}
	if !strings.Contains(o.text, "    a_test.go:9: boom\n") || strings.Contains(o.text, "=== RUN") {
		t.Errorf("text = %q", o.text)
	}
	o = collect(t, detect.Go, `{"Action":"output","Package":"m","Output":"?   \tm\t[no test files]\n"}
{"Action":"skip","Package":"m"}
`, run.Result{}, "")
	if o.tests != 0 || len(o.failures) != 0 {
		t.Errorf("no tests: %+v", o)
	}
}

func TestJUnit(t *testing.T) {
	xml := `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="3">
<testcase classname="tests.test_io" name="test_ok" />
<testcase classname="tests.test_io" name="test_roundtrip"><failure message="assert 1 == 2">x</failure></testcase>
<testcase classname="tests.test_io.TestIO" name="test_read"><error message="boom">y</error></testcase>
<testcase classname="" name="tests.test_bad"><error message="collection failure">z</error></testcase>
</testsuite></testsuites>`
	o := collect(t, detect.Pytest, "", run.Result{ExitCode: 1}, xml)
	want := []Failure{
		{ID: "tests.test_io::test_roundtrip", Name: "test_roundtrip"},
		{ID: "tests.test_io.TestIO::test_read", Name: "TestIO.test_read"},
		{ID: "tests.test_bad", Name: "tests.test_bad (collection error)"},
	}
	if !reflect.DeepEqual(o.failures, want) || o.tests != 4 {
		t.Errorf("failures = %+v, tests %d", o.failures, o.tests)
	}
}

func TestJestJSON(t *testing.T) {
	rep := `{"numTotalTests":3,"testResults":[
{"name":"/proj/src/a.test.js","status":"failed","assertionResults":[
 {"fullName":"math adds","status":"failed","failureMessages":["expected 5"]},
 {"fullName":"math subs","status":"passed"}]},
{"name":"/proj/src/b.test.js","status":"failed","message":"SyntaxError","assertionResults":[]}]}`
	o := collect(t, detect.Jest, "", run.Result{ExitCode: 1}, rep)
	want := []Failure{{ID: "src/a.test.js › math adds", Name: "math adds"}, {ID: "src/b.test.js", Name: "src/b.test.js (suite failed to run)"}}
	if !reflect.DeepEqual(o.failures, want) || o.tests != 3 {
		t.Errorf("failures = %+v, tests %d", o.failures, o.tests)
	}
}

func TestGoJSONCrash(t *testing.T) {
	out := `{"Action":"start","Package":"m/a"}
{"Action":"run","Package":"m/a","Test":"TestOK"}
{"Action":"pass","Package":"m/a","Test":"TestOK"}
{"Action":"run","Package":"m/a","Test":"TestF"}
{"Action":"output","Package":"m/a","Test":"TestF","Output":"runtime: goroutine stack exceeds 1000000000-byte limit\n"}
{"Action":"output","Package":"m/a","Test":"TestF","Output":"fatal error: stack overflow\n"}
{"Action":"fail","Package":"m/a","Elapsed":6.6}
`
	o := collect(t, detect.Go, out, run.Result{ExitCode: 1}, "")
	if len(o.failures) != 1 || o.failures[0].ID != "m/a.TestF" || o.failures[0].Name != "TestF (did not finish: its test binary died)" {
		t.Fatalf("failures = %+v", o.failures)
	}
	if !strings.Contains(o.text, "fatal error: stack overflow") {
		t.Errorf("the crash is not in the output:\n%s", o.text)
	}
}

func TestTextParsers(t *testing.T) {
	cases := []struct {
		r     detect.Runner
		out   string
		want  []string
		tests int
	}{
		{detect.Cargo, "     Running unittests src/lib.rs (target/debug/deps/adder-0123456789abcdef)\nrunning 2 tests\ntest tests::adds ... FAILED\ntest tests::ok ... ok\n\n   Doc-tests adder\nrunning 0 tests\n", []string{"adder::tests::adds"}, 2},
		{detect.Cargo, "error[E0425]: cannot find value `c`\nerror: could not compile `adder` (lib test) due to 1 previous error\n", []string{"adder [build failed]"}, -1},
		{detect.Cargo, "running 0 tests\n\nrunning 0 tests\n", nil, 0},
		{detect.Cargo, "     Running tests/a.rs (/t/debug/deps/a-9f985b3a9f8178d3)\n\nrunning 1 test\n\nthread 'a' has overflowed its stack\nfatal runtime error: stack overflow, aborting\nerror: test failed, to rerun pass `--test a`\n\nCaused by:\n  process didn't exit successfully: `/t/debug/deps/a-9f985b3a9f8178d3` (signal: 6, SIGABRT: process abort signal)\n", []string{"a [crashed]"}, 1},
		{detect.Cargo, "     Running tests/b.rs (/t/debug/deps/b-9f985b3a9f8178d3)\n\nrunning 1 test\nerror: test failed, to rerun pass `--test b`\n\nCaused by:\n  process didn't exit successfully: `/t/debug/deps/b-9f985b3a9f8178d3 --nocapture` (signal: 11, SIGSEGV: invalid memory reference)\n", []string{"b [crashed]"}, 1},
		{detect.Unittest, "F.\n======\nFAIL: test_x (tests.test_m.TestM.test_x)\n------\nRan 2 tests in 0.001s\n", []string{"TestM.test_x"}, 2},
		{detect.Unittest, "ERROR: test_y (tests.test_m.TestM)\nRan 1 test in 0.001s\n", []string{"TestM.test_y"}, 1},
		{detect.GoVet, "# m/syntax\n# [m/syntax]\nvet: syntax/parser.go:1889:6: declared and not used: i\n./a.go:3:2: fmt.Printf format %d has arg s of wrong type string\n", []string{"syntax/parser.go:1889: declared and not used: i", "a.go:3: fmt.Printf format %d has arg s of wrong type string"}, -1},
		{detect.Pytest, "tests/test_io.py F.\n=== short test summary info ===\nFAILED tests/test_io.py::test_roundtrip - assert 1 == 2\nFAILED tests/test_io.py::TestIO::test_read - boom\n===== 2 failed, 1 passed in 0.12s =====\n", []string{"test_roundtrip", "TestIO.test_read"}, 3},
		{detect.Mocha, "  math\n    1) adds\n    ✔ subs\n\n  1 passing (4ms)\n  1 failing\n\n  1) math\n       adds:\n\n      AssertionError: -1 == 5\n      at Context.<anonymous> (test/m.js:5:12)\n", []string{"math adds"}, 2},
		{detect.NodeTest, "✖ adds (0.8ms)\n  AssertionError\nℹ tests 2\nℹ pass 1\nℹ fail 1\n\n✖ failing tests:\n\ntest at math.test.js:5:1\n✖ adds (0.8ms)\n", []string{"adds"}, 2},
		{detect.NodeTest, "TAP version 13\n# Subtest: adds\nnot ok 1 - adds\n  ---\n# tests 2\n# pass 1\n", []string{"adds"}, 2},
	}
	for _, c := range cases {
		o := collect(t, c.r, c.out, run.Result{ExitCode: 1}, "")
		var got []string
		for _, f := range o.failures {
			if c.r == detect.Cargo {
				got = append(got, f.ID)
			} else {
				got = append(got, f.Name)
			}
		}
		if !reflect.DeepEqual(got, c.want) || o.tests != c.tests {
			t.Errorf("%s %q: got %q tests %d, want %q tests %d", c.r, c.out, got, o.tests, c.want, c.tests)
		}
	}
}

func TestWithExtraArgs(t *testing.T) {
	if got := withExtraArgs([]string{"npm", "test"}, "--json"); !reflect.DeepEqual(got, []string{"npm", "test", "--", "--json"}) {
		t.Errorf("npm: %q", got)
	}
	if got := withExtraArgs([]string{"npx", "jest", "a.js"}, "--json"); !reflect.DeepEqual(got, []string{"npx", "jest", "a.js", "--json"}) {
		t.Errorf("npx: %q", got)
	}
	if got := (&cargoText{}).args([]string{"cargo", "test", "-p", "a", "--", "--exact"}); !reflect.DeepEqual(got, []string{"cargo", "test", "--no-fail-fast", "-p", "a", "--", "--exact"}) {
		t.Errorf("cargo: %q", got)
	}
	g := &goJSON{}
	if got := g.args([]string{"go", "test", "./a", "./b"}); !reflect.DeepEqual(got, []string{"go", "test", "-json", "./a", "./b"}) {
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
		j := &jestJSON{dir: dir, file: filepath.Join(dir, "r.json")}
		args := j.args([]string{"npm", "test"})
		if plain != (len(args) > 2) || plain == j.text {
			t.Errorf("%q: args %q, text %v", script, args, j.text)
		}
	}
	out := "FAIL src/a.test.js\n  ● math › adds\n\n    expect(received)\n  ● Test suite failed to run\n FAIL  src/b.test.js > math > subs 3ms\n"
	o := collect(t, detect.Jest, out, run.Result{ExitCode: 1}, "")
	var got []string
	for _, f := range o.failures {
		got = append(got, f.Name)
	}
	if want := []string{"math adds", "math subs"}; !reflect.DeepEqual(got, want) {
		t.Errorf("text names = %q, want %q", got, want)
	}
}

// A runner that exits 0 without the report it was asked for verified
// nothing; the outcome names the missing report.
func TestMissingReport(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		r    detect.Runner
		want string
	}{
		{detect.Pytest, "the JUnit report it was asked for (--junitxml)"},
		{detect.Jest, "the jest JSON report it was asked for"},
		{detect.Vitest, "the vitest JSON report it was asked for"},
	} {
		col := newCollector(c.r, dir, dir)
		col.args([]string{"x"})
		col.stdout()
		if o := col.finish(run.Result{Output: []byte("helper loaded\n")}); o.noReport != c.want {
			t.Errorf("%s: noReport %q, want %q", c.r, o.noReport, c.want)
		}
	}
	col := newCollector(detect.Pytest, "", dir)
	col.stdout()
	if o := col.finish(run.Result{}); o.noReport != "" {
		t.Errorf("no report asked for, yet noReport %q", o.noReport)
	}
}
