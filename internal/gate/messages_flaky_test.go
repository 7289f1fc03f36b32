package gate

import (
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/verify"
)

// A flaky failure counts with the already-failing ones but is named on a
// line of its own, so the model is not told it was failing before.
func TestNotNewLinesNamesFlakyApart(t *testing.T) {
	old, flaky := verify.Failure{ID: "p/TestOld", Name: "TestOld"}, verify.Failure{ID: "p/TestFlaky", Name: "TestFlaky"}
	got := notNewLines(verify.CheckRun{AlreadyFailing: []verify.Failure{old, flaky}, Flaky: []verify.Failure{flaky}})
	want := "Already failing before this turn: TestOld\nFlaky (failed with your change, then passed when run again, alone and among the others; passed before this turn too): TestFlaky\n"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := notNewLines(verify.CheckRun{AlreadyFailing: []verify.Failure{old}}); strings.Contains(got, "Flaky") {
		t.Fatalf("no flaky failure, yet %q", got)
	}
}
