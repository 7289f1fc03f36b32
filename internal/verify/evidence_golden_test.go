package verify

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/protect"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

var updateEvidence = flag.Bool("update", false, "rewrite testdata/evidence/*.golden")

// TestEvidenceGolden renders the evidence line of one report per case
// and compares it with testdata/evidence/NAME.golden (-update writes it).
// Evidence is a pure function of the report, so each case is only data.
func TestEvidenceGolden(t *testing.T) {
	goTest := detect.Check{Runner: detect.Go, Narrowable: true, Dir: "/r"}
	goVet := detect.Check{Runner: detect.GoVet, Narrowable: true, Dir: "/r"}
	jest := detect.Check{Runner: detect.Jest, Narrowable: true, Dir: "/r/web", Args: []string{"npm", "test"}}
	custom := detect.Check{Runner: detect.Custom, Dir: "/r"}
	pass := func(c detect.Check, cmd string, sc scope.Scope, d time.Duration) CheckRun {
		return CheckRun{Command: cmd, Scope: sc, Passed: true, Duration: d, check: c}
	}
	related := scope.Scope{Reason: scope.Because(scope.RelatedToChange)}
	full := func(r scope.Reason) scope.Scope { return scope.Scope{Full: true, Reason: r} }
	fullNoReason := scope.Scope{Full: true}
	tf := Failure{ID: "example.com/m.TestAdd", Name: "TestAdd"}
	vf := Failure{ID: "a_test.go:12: struct field tag", Name: "a_test.go:12: struct field tag"}
	noChange := full(scope.Because(scope.NoChange))
	// jest titles are sentences: commas inside a name, a name's own full stop.
	sentences := []Failure{{ID: "a.test.js › Locale: zh-cn, Global localeData", Name: "Locale: zh-cn, Global localeData"},
		{ID: "b.test.js › yearStart: 4.", Name: "yearStart: 4."}}
	cases := map[string]*Report{
		"verified-related": {Root: "/r", Changed: []string{"a.go"}, Checks: []CheckRun{
			pass(goVet, "go vet ./a", related, 400*time.Millisecond),
			pass(goTest, "go test ./a", related, 2*time.Second)}},
		"verified-full-reason": {Root: "/r", Changed: []string{"go.mod"}, Checks: []CheckRun{
			pass(goTest, "go test ./...", full(scope.Because(scope.SetupChanged, "go.mod")), 9*time.Second)}},
		"verified-configured": {Root: "/r", Changed: []string{"a.go"}, Checks: []CheckRun{
			pass(custom, "make lint", full(scope.For(scope.AlwaysFull, "configured")), 2*time.Second),
			pass(custom, "make test", full(scope.For(scope.AlwaysFull, "configured")), 9*time.Second)}},
		"verified-own-run": {Root: "/r", Changed: []string{"a.go"}, Checks: []CheckRun{
			{Command: "go test ./...", Scope: full(scope.Because(scope.OwnFullRun)), Passed: true, FromModelRun: true, check: goTest}}},
		"failed-named": {Root: "/r", Changed: []string{"a.go"}, Checks: []CheckRun{
			{Command: "go test ./a", Scope: related, ExitCode: 1, Failures: []Failure{tf}, check: goTest}},
			NewFailures: []Failure{tf}},
		"failed-opaque": {Root: "/r", Changed: []string{"a.go"}, Checks: []CheckRun{
			{Command: "make lint", Scope: fullNoReason, ExitCode: 2, check: custom}},
			NewFailures: []Failure{{ID: "make lint"}}},
		"timed-out": {Root: "/r", timeout: 90 * time.Second, Changed: []string{"a.go"}, Checks: []CheckRun{
			{Command: "go test ./...", Scope: fullNoReason, ExitCode: -1, TimedOut: true, check: goTest}}},
		"not-installed-npm": {Root: "/r", Changed: []string{"web/a.js"}, Checks: []CheckRun{
			{Command: "npm test", Dir: "web", Scope: fullNoReason, ExitCode: -1, NotFound: "jest", installHint: "node_modules is missing: run npm install", check: jest}}},
		"no-packages": {Root: "/r", Changed: []string{"a.go"}, Checks: []CheckRun{
			{Command: "go vet ./...", Scope: fullNoReason, NoTests: true, check: goVet}}},
		"no-tests": {Root: "/r", Changed: []string{"a.go"}, Checks: []CheckRun{
			{Command: "go test ./...", Scope: fullNoReason, NoTests: true, check: goTest}}},
		"could-not-run": {Root: "/r", Changed: []string{"t.py"}, Checks: []CheckRun{
			{Command: "python3 -m pytest", Scope: fullNoReason, CouldNotRun: "it exited 0 without writing the JUnit report it was asked for (--junitxml), so no test is known to have run", check: detect.Check{Runner: detect.Pytest, Narrowable: true, Dir: "/r"}}}},
		"refused": {Root: "/r", Changed: []string{"a.go"}, Checks: []CheckRun{
			{Command: "go test ./...", Scope: fullNoReason, ExitCode: -1, Refused: true, check: goTest}}},
		"protection": {Root: "/r", Violations: []protect.Violation{{File: "a_test.go", Test: "TestAdd", Kind: protect.AssertionRemoved}, {File: "b_test.go", Test: "TestB", Kind: protect.AssertionLoosened}}},
		"old-before-change": {Root: "/r", Changed: []string{"a.go"}, Checks: []CheckRun{
			{Command: "go vet ./...", Scope: fullNoReason, ExitCode: 1, Failures: []Failure{vf}, AlreadyFailing: []Failure{vf}, check: goVet,
				Baseline: &BaselineRun{Kind: "putback", Ran: true}},
			pass(goTest, "go test ./a", related, 2*time.Second)},
			AlreadyFailing: []Failure{vf}},
		"failed-sentence-names": {Root: "/r", Changed: []string{"web/a.js"}, Checks: []CheckRun{
			{Command: "npm test", Dir: "web", Scope: related, ExitCode: 1, Failures: sentences, check: jest}},
			NewFailures: sentences},
		"old-tests-counted": {Root: "/r", Changed: []string{"web/a.js"}, Checks: []CheckRun{
			{Command: "npm test", Dir: "web", Scope: fullNoReason, ExitCode: 1, Tests: 1240, Failures: sentences[:1], AlreadyFailing: sentences[:1], check: jest,
				Baseline: &BaselineRun{Kind: "putback", Ran: true}}},
			AlreadyFailing: sentences[:1]},
		"old-nothing-changed": {Root: "/r", Checks: []CheckRun{
			{Command: "go vet ./...", Scope: noChange, ExitCode: 1, Failures: []Failure{vf}, AlreadyFailing: []Failure{vf}, check: goVet,
				Baseline: &BaselineRun{Kind: unchangedKind, at: "HEAD"}},
			pass(goTest, "go test ./...", noChange, 41*time.Second)},
			AlreadyFailing: []Failure{vf}},
		"old-nothing-changed-opaque": {Root: "/r", Checks: []CheckRun{
			{Command: "python3 -m pytest", Scope: noChange, ExitCode: 4, AlreadyFailing: []Failure{{ID: "python3 -m pytest"}}, check: detect.Check{Runner: detect.Pytest, Narrowable: true, Dir: "/r"},
				Baseline: &BaselineRun{Kind: unchangedKind, at: "HEAD"}}},
			AlreadyFailing: []Failure{{ID: "python3 -m pytest"}}},
		"nothing": {Root: "/r"},
		"problem": {Root: "/r", Problem: "go.mod:3: unknown directive: modul"},
	}
	for name, rep := range cases {
		if rep.NewFailures == nil {
			rep.NewFailures = []Failure{}
		}
		if rep.AlreadyFailing == nil {
			rep.AlreadyFailing = []Failure{}
		}
		verdict, evidence := Evidence(rep)
		got := string(verdict) + "\n" + evidence + "\n"
		file := filepath.Join("testdata", "evidence", name+".golden")
		if *updateEvidence {
			os.MkdirAll(filepath.Dir(file), 0o755)
			if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%s: %v (run with -update)", name, err)
		}
		if got != string(want) {
			t.Errorf("%s:\ngot  %swant %s", name, got, want)
		}
	}
}
