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

// A failure in the changed packages that stopped their importers' tests
// says so, so the model knows more tests run once these pass.
func TestGateSendBackNamesTheImportersNotRun(t *testing.T) {
	f := verify.Failure{ID: "example.com/s/a.TestV", Name: "TestV"}
	rep := &verify.Report{Planned: 2, NewFailures: []verify.Failure{f}, NotRun: []string{"go test ./b"},
		Checks: []verify.CheckRun{{Command: "go vet ./a ./b", Dir: ".", Passed: true}, {Command: "go test ./a", Dir: ".", ExitCode: 1, Failures: []verify.Failure{f}}}}
	got := gateSendBack(rep, 1, 3)
	if want := "The tests of the packages that depend on the changed ones did not run yet (`go test ./b`): they run when these pass."; !strings.Contains(got, want) {
		t.Fatalf("no %q in\n%s", want, got)
	}
	rep.NotRun = nil
	if got := gateSendBack(rep, 1, 3); strings.Contains(got, "did not run yet") {
		t.Fatalf("nothing stopped, yet\n%s", got)
	}
}
