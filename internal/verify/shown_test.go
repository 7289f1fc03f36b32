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
