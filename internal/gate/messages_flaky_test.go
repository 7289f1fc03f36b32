package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/verify"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
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
	rep.NotRun, rep.ChecksNotRun = nil, []string{"go test ./..."}
	if got, want := gateSendBack(rep, 1, 3), "The checks after this one did not run yet (`go test ./...`): they run when these pass."; !strings.Contains(got, want) {
		t.Fatalf("no %q in\n%s", want, got)
	}
	rep.ChecksNotRun = nil
	if got := gateSendBack(rep, 1, 3); strings.Contains(got, "did not run yet") {
		t.Fatalf("nothing stopped, yet\n%s", got)
	}
}

// An interrupted pytest session is said to have been: the failures named
// are all the model hears of it.
func TestGateSendBackSaysTheRunWasInterrupted(t *testing.T) {
	f := verify.Failure{ID: "tests.test_calc", Name: "tests.test_calc (collection error)"}
	rep := &verify.Report{Planned: 1, NewFailures: []verify.Failure{f},
		Checks: []verify.CheckRun{{Command: "python3 -m pytest", Dir: ".", ExitCode: 2, Failures: []verify.Failure{f},
			Interrupted: "pytest stopped at its collection errors, so none of its tests ran"}}}
	if got, want := gateSendBack(rep, 1, 3), "Note: pytest stopped at its collection errors, so none of its tests ran.\n"; !strings.Contains(got, want) {
		t.Fatalf("no %q in\n%s", want, got)
	}
}

// A full run split in two names the rest of the suite it stopped, not the
// changed packages' importers.
func TestGateSendBackNamesTheRestOfTheSuite(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	t.Setenv("GOFLAGS", "-mod=mod")
	old := selecttest.MinRunPatternSecs
	selecttest.MinRunPatternSecs = 0
	t.Cleanup(func() { selecttest.MinRunPatternSecs = old })
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":      "module example.com/r\n\ngo 1.22\n",
		"a/a.go":      "package a\n\nfunc V() int { return 1 }\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestV(t *testing.T) {\n\tif V() != 1 {\n\t\tt.Fatal(V())\n\t}\n}\n",
		"b/b.go":      "package b\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {}\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a/a.go"), []byte("package a\n\nfunc V() int { return 2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Run(context.Background(), verify.Options{Root: dir, Timeout: time.Minute, NoBaseline: true})
	if err != nil {
		t.Fatal(err)
	}
	got := gateSendBack(rep, 1, 3)
	if want := "The rest of the suite, the packages the change is not in, did not run yet (`go test ./b`): it runs when these pass."; !strings.Contains(got, want) {
		t.Fatalf("no %q in\n%s", want, got)
	}
}
