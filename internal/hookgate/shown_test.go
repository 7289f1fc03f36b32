package hookgate

import (
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/verify"
)

// What the user is shown at a stop that ends unverified: the agent prints
// every line of systemMessage (Claude Code as "Stop says: …" each), so a
// long test output is cut to its last lines; the evidence line stays last.
func TestUserMessageIsShort(t *testing.T) {
	var out strings.Builder
	for i := 0; i < 70; i++ {
		out.WriteString("    uuid_test.go:178: Random UUID of version VERSION_5\n")
	}
	out.WriteString("--- FAIL: TestRandomUUID (0.00s)\nFAIL\n")
	rep := &verify.Report{Verdict: verify.NotVerified, Evidence: "⚠ Not verified: go test ./... failed: TestRandomUUID.",
		Checks: []verify.CheckRun{{Command: "go test ./...", Dir: ".", Output: out.String(), Failures: []verify.Failure{{ID: "TestRandomUUID", Name: "TestRandomUUID"}}}}}
	msg := userMessage(rep)
	lines := strings.Split(msg, "\n")
	if len(lines) > shownLines+3 {
		t.Errorf("the user is shown %d lines:\n%s", len(lines), msg)
	}
	if !strings.HasSuffix(msg, rep.Evidence) || !strings.Contains(msg, "--- FAIL: TestRandomUUID") || !strings.Contains(msg, "go test ./... failed") {
		t.Errorf("shown:\n%s", msg)
	}
	short := &verify.Report{Verdict: verify.NotVerified, Evidence: "⚠ Not verified: go test ./... failed: TestAdd.",
		Checks: []verify.CheckRun{{Command: "go test ./...", Dir: ".", Output: "--- FAIL: TestAdd\n    want 5\nFAIL\n"}}}
	if got, want := userMessage(short), "go test ./... failed:\n--- FAIL: TestAdd\n    want 5\nFAIL\n"+short.Evidence; got != want {
		t.Errorf("a short output is shown whole: got\n%s\nwant\n%s", got, want)
	}
	long := &verify.Report{Verdict: verify.NotVerified, Evidence: "⚠ Not verified: pytest … failed.",
		Checks: []verify.CheckRun{{Command: "/usr/bin/python3 -m pytest " + strings.Repeat("tests/test_bump.py ", 17), Dir: ".", Output: "FAILED tests/test_bump.py::test_should_bump_patch\n"}}}
	if first, _, _ := strings.Cut(userMessage(long), "\n"); len(first) > 140 || !strings.HasPrefix(first, "/usr/bin/python3 -m pytest tests/test_bump.py") {
		t.Errorf("the check's command above its output: %q", first)
	}
}
