package junit

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/verify"
	"github.com/chanto-dev/chanto/internal/verify/protect"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// reports are the shapes a verify run ends in, each with its golden file.
var reports = map[string]struct {
	rep     *verify.Report
	planned []string
}{
	"failed_then_skipped": {
		rep: &verify.Report{
			Verdict: verify.NotVerified, Evidence: "⚠ Not verified: go test ./calc failed: TestAdd.", Root: "/repo", Base: "origin/main",
			Checks: []verify.CheckRun{
				{Command: "go vet ./calc", Dir: ".", Scope: scope.Scope{Reason: scope.Because(scope.RelatedToChange)}, Passed: true, Duration: 700 * time.Millisecond},
				{Command: "go test ./calc", Dir: ".", Scope: scope.Scope{Reason: scope.Because(scope.RelatedToChange)}, ExitCode: 1, Duration: 2 * time.Second,
					Failures: []verify.Failure{{ID: "example.com/calc.TestAdd", Name: "TestAdd"}},
					Output:   "--- FAIL: TestAdd (0.00s)\n    calc_test.go:6: Add(2, 3) = -1, want 5 & <no>\nFAIL"},
			},
		},
		planned: []string{"go vet ./calc", "go test ./calc", "cd web && npm test"},
	},
	"protection": {
		rep: &verify.Report{
			Verdict: verify.NotVerified, Evidence: "⚠ Not verified: calc/calc_test.go: TestAdd: assertion removed (fix the code, not the tests).",
			Violations: []protect.Violation{{File: "calc/calc_test.go", Test: "TestAdd", Line: 6, Kind: "assertion_removed",
				Before: `if got := Add(2, 3); got != 5 {`, Message: "an assertion was removed"}},
		},
	},
	"errors": {
		rep: &verify.Report{
			Verdict: verify.NotVerified, Evidence: "⚠ Not verified: cargo test: cargo is not installed.",
			Checks: []verify.CheckRun{
				{Command: "cargo test", Dir: "crates/a", ExitCode: -1, NotFound: "cargo"},
				{Command: "pytest -q", Dir: ".", ExitCode: -1, TimedOut: true, Duration: 90 * time.Second, Output: "....\n(killed after 90s)"},
			},
		},
	},
	"already_failing": {
		rep: &verify.Report{
			Verdict: verify.NotVerified, Evidence: "⚠ Not verified: go test ./... failed: TestOld (already failing before this change).",
			Checks: []verify.CheckRun{{Command: "go test ./...", Dir: ".", ExitCode: 1, Duration: time.Second,
				Failures:       []verify.Failure{{ID: "m.TestOld", Name: "TestOld"}},
				AlreadyFailing: []verify.Failure{{ID: "m.TestOld", Name: "TestOld"}},
				Output:         "--- FAIL: TestOld\nFAIL"}},
		},
	},
	"verified": {
		rep: &verify.Report{
			Verdict: verify.Verified, Evidence: "Verified: go test ./... (1s) passed (full suite: no files changed).",
			Checks: []verify.CheckRun{{Command: "go test ./...", Dir: ".", Scope: scope.Scope{Full: true, Reason: scope.Because(scope.NoChange)}, Passed: true, Duration: time.Second, Tests: 3}},
		},
		planned: []string{"go test ./..."},
	},
}

func TestGolden(t *testing.T) {
	stamp := time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC)
	for name, c := range reports {
		t.Run(name, func(t *testing.T) {
			got, err := Render(c.rep, Options{Planned: c.planned, Timestamp: stamp})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", name+".xml")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the rendering:\n%s", path, got)
			}
		})
	}
}

// TestRoundTrip reads each rendering back with encoding/xml: the counts on
// the suite agree with its cases, every case has the attributes the JUnit
// schema requires, and a case carries at most one outcome.
func TestRoundTrip(t *testing.T) {
	for name, c := range reports {
		t.Run(name, func(t *testing.T) {
			data, err := Render(c.rep, Options{Planned: c.planned})
			if err != nil {
				t.Fatal(err)
			}
			var doc Suites
			if err := xml.Unmarshal(data, &doc); err != nil {
				t.Fatalf("not well-formed: %v\n%s", err, data)
			}
			if len(doc.Suites) != 1 {
				t.Fatalf("%d suites, want 1", len(doc.Suites))
			}
			s := doc.Suites[0]
			var failures, errs, skipped int
			for _, tc := range s.Cases {
				if tc.Name == "" || tc.Classname == "" || tc.Time == "" {
					t.Errorf("case %+v lacks a required attribute", tc)
				}
				n := 0
				if tc.Failure != nil {
					failures, n = failures+1, n+1
				}
				if tc.Error != nil {
					errs, n = errs+1, n+1
				}
				if tc.Skipped != nil {
					skipped, n = skipped+1, n+1
				}
				if n > 1 {
					t.Errorf("case %q has %d outcomes", tc.Name, n)
				}
			}
			if s.Tests != len(s.Cases) || s.Failures != failures || s.Errors != errs || s.Skipped != skipped {
				t.Errorf("suite counts tests=%d failures=%d errors=%d skipped=%d; cases say %d %d %d %d",
					s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), failures, errs, skipped)
			}
			if doc.Tests != s.Tests || doc.Failures != s.Failures || doc.Errors != s.Errors || doc.Skipped != s.Skipped {
				t.Errorf("testsuites counts differ from the suite's")
			}
			want := len(c.rep.Checks) + len(c.rep.Violations) + max(0, len(c.planned)-len(c.rep.Checks))
			if len(c.rep.Violations) > 0 && len(c.planned) == 0 {
				want++ // the "checks not run" case
			}
			if len(s.Cases) != want {
				t.Errorf("%d cases, want %d", len(s.Cases), want)
			}
			// The trimmed output reaches the reader intact, escapes undone.
			for _, ch := range c.rep.Checks {
				if ch.Passed || ch.Output == "" {
					continue
				}
				if !strings.Contains(string(data), "&lt;no&gt;") && strings.Contains(ch.Output, "<no>") {
					t.Errorf("output not escaped")
				}
				found := false
				for _, tc := range s.Cases {
					for _, p := range []*Problem{tc.Failure, tc.Error} {
						if p != nil && p.Text == verify.TrimOutput(ch.Output) {
							found = true
						}
					}
				}
				if !found {
					t.Errorf("output of %q not in any case", ch.Command)
				}
			}
		})
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.xml")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, reports["verified"].rep, Options{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !bytes.HasPrefix(data, []byte(xml.Header)) {
		t.Errorf("report not replaced: %q", data)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) > 0 {
		t.Errorf("side files left: %v", left)
	}
}

func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	for path, want := range map[string]string{
		filepath.Join(dir, "r.xml"):          "",
		filepath.Join(dir, "nope", "r.xml"):  "no such file or directory",
		dir:                                  "is a folder",
		filepath.Join(dir, "r.xml", "x.xml"): "no such file",
	} {
		err := CheckPath(path)
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", path, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", path, err, want)
		}
	}
}
