package verify

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chanto-dev/chanto/internal/verify/protect"
)

func TestTrimOutputKeepsHeadAndTailWhole(t *testing.T) {
	long := strings.Repeat("日本", MaxFailureOutput) + "E"
	got := TrimOutput(long)
	if len(got) > MaxFailureOutput+64 || !strings.HasSuffix(got, "E") || !utf8.ValidString(got) {
		t.Fatalf("trimmed to %d bytes, valid %v, ends %q", len(got), utf8.ValidString(got), got[len(got)-1:])
	}
	if !strings.Contains(got, "… [output trimmed] …") {
		t.Error("no trim marker")
	}
	if short := " ok \n"; TrimOutput(short) != "ok" {
		t.Errorf("short output changed: %q", TrimOutput(short))
	}
}

func TestViolationsEvidenceNamesFileTestAndKind(t *testing.T) {
	v := protect.Violation{File: "p06/p06_test.go", Test: "TestV06", Kind: protect.BodyChanged, Message: "assertion changed; " + protect.Instruction}
	if got, want := ViolationsEvidence([]protect.Violation{v}), "⚠ Not verified: p06/p06_test.go: TestV06: assertion changed (fix the code, not the tests)."; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	del := protect.Violation{File: "a_test.go", Kind: protect.TestFileDeleted}
	got := ViolationsEvidence([]protect.Violation{v, del, v, v, v})
	want := "⚠ Not verified: p06/p06_test.go: TestV06: assertion changed; a_test.go: test file deleted; p06/p06_test.go: TestV06: assertion changed; and 2 more (fix the code, not the tests)."
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestFailureDetailsOnlyWhenNotVerified(t *testing.T) {
	rep := &Report{Verdict: NotVerified, Checks: []CheckRun{
		{Command: "go vet ./...", Dir: ".", Passed: true},
		{Command: "go test ./...", Dir: "svc", Failures: []Failure{{ID: "m.TestAdd", Name: "TestAdd"}}, Output: "--- FAIL: TestAdd\n  want 5\n"},
		{Command: "npm test", Dir: ".", Refused: true},
	}}
	got := rep.FailureDetails()
	if len(got) != 1 || got[0].Check != "go test ./..." || got[0].Dir != "svc" || got[0].Output != "--- FAIL: TestAdd\n  want 5" ||
		len(got[0].Tests) != 1 || got[0].Tests[0] != "TestAdd" {
		t.Errorf("details: %+v", got)
	}
	rep.Verdict = Verified
	if got := rep.FailureDetails(); got == nil || len(got) != 0 {
		t.Errorf("verified report has details: %+v", got)
	}
}

// pytest prints its warnings summary after the failures and before the
// short summary: left in, a long one pushes the failing assertion out of
// the kept tail.
func TestTrimOutputLeavesOutPytestWarnings(t *testing.T) {
	var b strings.Builder
	b.WriteString("============================= test session starts ==============================\n")
	b.WriteString("=================================== FAILURES ===================================\n")
	b.WriteString("____________________________ test_should_bump_patch _____________________________\n")
	b.WriteString(">       assert v.bump_patch() == '3.4.7'\nE       AssertionError: assert '3.4.6' == '3.4.7'\n")
	b.WriteString("=============================== warnings summary ===============================\n")
	for i := 0; i < 800; i++ {
		b.WriteString("tests/test_semver.py::test_x\n  /usr/lib/python3/dist-packages/x.py:12: DeprecationWarning: old\n")
	}
	b.WriteString("=========================== short test summary info ============================\n")
	b.WriteString("FAILED tests/test_bump.py::test_should_bump_patch - AssertionError\n")
	got := TrimOutput(b.String())
	for _, want := range []string{"assert '3.4.6' == '3.4.7'", "FAILED tests/test_bump.py::test_should_bump_patch", "warnings summary", "[1600 lines of warnings left out]"} {
		if !strings.Contains(got, want) {
			t.Errorf("trimmed output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "DeprecationWarning") {
		t.Errorf("the warnings were kept:\n%s", got)
	}
}
