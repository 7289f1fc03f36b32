package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestJSFailures(t *testing.T) {
	report := `{"testResults":[
	 {"name":"/p/test/a.test.js","status":"failed","assertionResults":[{"fullName":"a adds","status":"failed"},{"fullName":"a keeps","status":"passed"}]},
	 {"name":"/p/test/b.test.js","status":"failed","message":"SyntaxError","assertionResults":[]},
	 {"name":"/p/test/c.test.js","status":"passed","assertionResults":[{"fullName":"c","status":"passed"}]}]}`
	got, err := jsFailures("/p", []byte(report))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"test test/a.test.js a adds": true, "file test/b.test.js": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("jsFailures = %v, want %v", got, want)
	}
}

// A fault counts as caught only when chanto names a new failure; outside
// the sample a catch stands for the full suite's; ratios come from the
// sample only.
func TestVerifyRowAdd(t *testing.T) {
	var r verifyRow
	for _, o := range []outcome{
		{Sample: true, ChantoNew: true, FullRan: true, FullNew: []string{"test X"}, ChantoSecs: 1, FullSecs: 4},
		{Sample: true, FullRan: true, ChantoSecs: 1, FullSecs: 2},
		{ChantoNew: true}, // inferred
		{OldFailure: true, FullRan: true, FullNew: []string{"test Y"}}, // exit 3 on an old failure only: a miss
		{ChantoTimedOut: true, FullRan: true, FullTimedOut: true},
		{FullRan: true, FullSecs: 3}, // passing, outside the sample: no ratio
	} {
		r.add(o)
	}
	if r.caughtFull != 4 || r.caught != 3 || r.inferred != 1 || r.timeoutCatches != 1 || len(r.misses) != 1 || r.oldSeen != 1 {
		t.Errorf("row = %+v", r)
	}
	if len(r.failRatios) != 1 || r.failRatios[0] != 0.25 || len(r.passRatios) != 1 || r.passRatios[0] != 0.5 {
		t.Errorf("ratios: failing %v, passing %v", r.failRatios, r.passRatios)
	}
}

// go test -json output reads like the text: failing tests, a package that
// did not build, a panic; events' Output carries the lines.
func TestTestFailuresJSON(t *testing.T) {
	out := `{"Action":"start","Package":"m/a"}
{"Action":"output","Package":"m/a","Test":"TestX","Output":"--- FAIL: TestX (0.00s)\n"}
{"Action":"fail","Package":"m/a","Test":"TestX"}
{"Action":"output","Package":"m/a","Output":"FAIL\tm/a\t0.01s\n"}
{"Action":"output","Package":"m/b","Output":"FAIL\tm/b [build failed]\n"}
{"Action":"output","Package":"m/c","Output":"panic: boom\n"}
{"Action":"output","Package":"m/d","Output":"ok  \tm/d\t(cached)\n"}
`
	want := map[string]bool{"test TestX": true, "pkg m/a ": true, "pkg m/b build failed": true, "panic": true}
	if got := testFailures([]byte(out)); !reflect.DeepEqual(got, want) {
		t.Errorf("testFailures = %v, want %v", got, want)
	}
}

func TestChantoRevision(t *testing.T) {
	for _, c := range []struct{ binary, flag, want string }{
		{"/tmp/bench/chanto-a453703", "", "a453703"},
		{"/tmp/bench/chanto-a453703", "beef", "beef"},
		{"/tmp/bench/chanto", "", "unknown"},
	} {
		if got := chantoRevision(c.binary, c.flag); got != c.want {
			t.Errorf("chantoRevision(%q, %q) = %q, want %q", c.binary, c.flag, got, c.want)
		}
	}
}

// -summarize says which builds judged each project's rows.
func TestSummarizeBuilds(t *testing.T) {
	dir := t.TempDir()
	f := dir + "/a.jsonl"
	rows := `{"project":"go:x","head":true,"packages":3,"build":{"chanto":"aaa","harness":"h1"},"load":4}
{"project":"go:x","mutation":"m1","chanto_new":true,"build":{"chanto":"aaa","harness":"h1"},"load":9}
{"project":"go:x","mutation":"m2","full_ran":true,"build":{"chanto":"bbb","harness":"h1"},"load":6}
{"project":"go:x","mutation":"m1","full_ran":true,"full_new":["test T"],"build":{"chanto":"bbb","harness":"h1"},"load":6}
`
	if err := os.WriteFile(f, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := summarize(&out, []string{f}, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "aaa (1), bbb (1); harness h1") || !strings.Contains(out.String(), "4–9") ||
		!strings.Contains(out.String(), "1 mutations judged again") || strings.Contains(out.String(), "miss:") {
		t.Errorf("summary does not name the builds and loads:\n%s", out.String())
	}
	out.Reset()
	if err := summarize(&out, []string{f}, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| go:x | 3 | 0 / 0 | 2 |") || !strings.Contains(out.String(), "|---|---|") {
		t.Errorf("markdown summary:\n%s", out.String())
	}
}

// pytest's usage error prints no FAILED line; it must not read as a pass.
func TestPytestNotRun(t *testing.T) {
	for exit, want := range map[int]string{0: "", 1: "", 2: "", 3: "internal error", 4: "usage error", 5: "no tests collected"} {
		if got := pytestNotRun(exit); got != want {
			t.Errorf("pytestNotRun(%d) = %q, want %q", exit, got, want)
		}
	}
}

// chanto verify runs a check and its baseline, each up to the check limit
// writeChantoConfig gives it: the benchmark must not kill it before both
// could finish, or a slow machine turns a catch into a miss.
func TestChantoOutlivesItsCheckAndBaseline(t *testing.T) {
	for _, rt := range []time.Duration{0, 90 * time.Second, 4 * time.Minute} {
		b := &bench{opts: options{timeout: 4 * time.Minute}, runTimeout: rt}
		checkLimit := time.Duration(max(30, int(rt.Seconds()*0.4))) * time.Second
		if got := b.chantoLimit(); got < 2*checkLimit+b.limit() {
			t.Errorf("runTimeout %s: chanto gets %s, its check and baseline up to %s each", rt, got, checkLimit)
		}
	}
}

func TestModuleName(t *testing.T) {
	for mod, want := range map[string]string{
		"github.com/hashicorp/hcl/v2": "hcl", "gotest.tools/v3": "gotest.tools", "go.uber.org/zap": "zap",
		"github.com/pelletier/go-toml/v2": "go-toml", "github.com/x/vendor": "vendor", "v2": "v2",
	} {
		if got := moduleName(mod); got != want {
			t.Errorf("moduleName(%q) = %q, want %q", mod, got, want)
		}
	}
}

// What a mutant's runs wrote into the tree is put back before the next
// mutation; what was there at HEAD stays.
func TestRepairTree(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a_test.go", "package a\n")
	write("b.go", "package a\n")
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "base")
	write("left.txt", "there at HEAD\n")
	ctx := context.Background()
	head, err := treeStatus(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	p := &project{name: "p", dir: dir, headStatus: head, bench: &bench{log: io.Discard}}
	write("a_test.go", "")
	write("gen/out.txt", "written by a test\n")
	got, err := repairTree(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a_test.go", "gen/out.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("repaired %v, want %v", got, want)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a_test.go")); string(data) != "package a\n" {
		t.Errorf("a_test.go = %q after the repair", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "gen", "out.txt")); !os.IsNotExist(err) {
		t.Errorf("gen/out.txt still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "left.txt")); err != nil {
		t.Errorf("left.txt, untracked at HEAD, was removed: %v", err)
	}
	if again, err := repairTree(ctx, p); err != nil || len(again) != 0 {
		t.Errorf("a second repair = %v, %v; want nothing", again, err)
	}
}

// The full suite of a py:DIR project runs what chanto's detected check
// adds to plain pytest: the doctests tox.ini's command collects.
func TestPytestExtraFollowsTheDetectedCheck(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("CHANTO_HOME", t.TempDir())
	dir := t.TempDir()
	for name, body := range map[string]string{
		"boltons/a.py":    "def f():\n    return 1\n",
		"tests/test_a.py": "def test_a():\n    pass\n",
		"tox.ini":         "[testenv]\ncommands = pytest --doctest-modules {env_site_packages_dir}/boltons {tox_root}/tests {posargs}\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := pytestExtra(dir), []string{"--doctest-modules", "boltons", "tests"}; !slices.Equal(got, want) {
		t.Errorf("extra %q, want %q", got, want)
	}
}
