package verify

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

// stagedModule is a module of more than 20 test files (so related tests
// are selected, not the full suite): a, whose own test checks V, b, which
// imports a and checks it again, and twenty packages of their own.
// aTest is a's test file.
func stagedModule(t *testing.T, aTest string) string {
	return splitModule(t, aTest, 20)
}

// splitModule is a and b, as stagedModule has them, and others packages of
// their own, with tests.
func splitModule(t *testing.T, aTest string, others int) string {
	t.Helper()
	t.Setenv("CHANTO_HOME", t.TempDir())
	t.Setenv("GOFLAGS", "-mod=mod")
	dir := gitRepo(t)
	put(t, dir, "go.mod", "module example.com/s\n\ngo 1.22\n")
	put(t, dir, "a/a.go", aGo("1", "2"))
	put(t, dir, "a/a_test.go", aTest)
	put(t, dir, "b/b.go", "package b\n\nimport \"example.com/s/a\"\n\n// Sum is three.\nfunc Sum() int { return a.V() + a.W() }\n")
	put(t, dir, "b/b_test.go", "package b\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif Sum() != 3 {\n\t\tt.Fatal(Sum())\n\t}\n}\n")
	for i := 0; i < others; i++ {
		put(t, dir, fmt.Sprintf("p%02d/p.go", i), fmt.Sprintf("package p%02d\n", i))
		put(t, dir, fmt.Sprintf("p%02d/p_test.go", i), fmt.Sprintf("package p%02d\n\nimport \"testing\"\n\nfunc TestP(t *testing.T) {}\n", i))
	}
	put(t, dir, "notest/n.go", "package notest\n")
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")
	return dir
}

// aGo is package a with V and W returning v and w.
func aGo(v, w string) string {
	return "package a\n\n// V is one.\nfunc V() int { return " + v + " }\n\n// W is two.\nfunc W() int { return " + w + " }\n"
}

// wantCommands checks the commands of the checks that ran.
func wantCommands(t *testing.T, rep *Report, want ...string) {
	t.Helper()
	if got := commands(rep); !reflect.DeepEqual(got, want) {
		t.Errorf("checks %q, want %q", got, want)
	}
}

const aTestV = "package a\n\nimport \"testing\"\n\nfunc TestV(t *testing.T) {\n\tif V() != 1 {\n\t\tt.Fatal(V())\n\t}\n}\n"

func runStagedModule(t *testing.T, dir string) *Report {
	t.Helper()
	rep, err := Run(context.Background(), Options{Root: dir, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func commands(rep *Report) []string {
	var out []string
	for _, c := range rep.Checks {
		out = append(out, c.Command)
	}
	return out
}

// The changed package's own tests run first and the importers' alongside;
// a new failure in the first stops the second, and the evidence says
// which tests did not run yet.
func TestStagesStopAtTheChangedPackagesFailure(t *testing.T) {
	dir := stagedModule(t, aTestV)
	put(t, dir, "a/a.go", aGo("7", "2"))
	rep := runStagedModule(t, dir)
	wantCommands(t, rep, "go vet ./a ./b", "go test ./a")
	if got := ids(rep.NewFailures); !reflect.DeepEqual(got, []string{"example.com/s/a.TestV"}) {
		t.Errorf("new failures %q", got)
	}
	if !reflect.DeepEqual(rep.NotRun, []string{"go test ./b"}) || rep.NotRunIsRest() {
		t.Errorf("not run %q (the rest of the suite: %v)", rep.NotRun, rep.NotRunIsRest())
	}
	want := "⚠ Not verified: go test ./a failed: TestV. The tests of the packages that depend on ./a did not run yet (go test ./b): they run once these pass."
	if rep.Verdict != NotVerified || rep.Evidence != want {
		t.Errorf("%s: evidence %q\nwant %q", rep.Verdict, rep.Evidence, want)
	}
}

// A change that passes reads as the one run of both stages.
func TestStagesPassingReadAsOneRun(t *testing.T) {
	dir := stagedModule(t, aTestV)
	put(t, dir, "a/a.go", aGo("2 - 1", "2"))
	rep := runStagedModule(t, dir)
	wantCommands(t, rep, "go vet ./a ./b", "go test ./a ./b")
	last := rep.Checks[len(rep.Checks)-1]
	if !last.Passed || last.Tests != 2 || !reflect.DeepEqual(last.Targets, []string{"./a", "./b"}) {
		t.Errorf("passed %v, tests %d, targets %q", last.Passed, last.Tests, last.Targets)
	}
	if rep.Verdict != Verified || !strings.HasPrefix(rep.Evidence, "Verified: go vet ./a ./b (") || !strings.Contains(rep.Evidence, "go test ./a ./b (") || rep.NotRun != nil {
		t.Errorf("%s: %s (not run %q)", rep.Verdict, rep.Evidence, rep.NotRun)
	}
}

// A fault only the importers' tests catch fails the one run, named there.
func TestStagesImportersCatch(t *testing.T) {
	dir := stagedModule(t, aTestV)
	put(t, dir, "a/a.go", aGo("1", "5"))
	rep := runStagedModule(t, dir)
	wantCommands(t, rep, "go vet ./a ./b", "go test ./a ./b")
	if got := ids(rep.NewFailures); !reflect.DeepEqual(got, []string{"example.com/s/b.TestSum"}) {
		t.Errorf("new failures %q; evidence %q", got, rep.Evidence)
	}
	if rep.NotRun != nil || strings.Contains(rep.Evidence, "not tested yet") {
		t.Errorf("not run %q, evidence %q", rep.NotRun, rep.Evidence)
	}
}

// When the changed package's failures were all failing before the change,
// the importers' tests, stopped when they failed, run after all: here they
// catch the fault.
func TestStagesOldFailureRunsTheImporters(t *testing.T) {
	dir := stagedModule(t, aTestV+"\nfunc TestBroken(t *testing.T) { t.Fatal(\"broken at HEAD\") }\n")
	put(t, dir, "a/a.go", aGo("1", "5"))
	rep := runStagedModule(t, dir)
	wantCommands(t, rep, "go vet ./a ./b", "go test ./a", "go test ./b")
	if got := ids(rep.AlreadyFailing); !reflect.DeepEqual(got, []string{"example.com/s/a.TestBroken"}) {
		t.Errorf("already failing %q", got)
	}
	if got := ids(rep.NewFailures); !reflect.DeepEqual(got, []string{"example.com/s/b.TestSum"}) {
		t.Errorf("new failures %q; evidence %q", got, rep.Evidence)
	}
	if rep.Planned != 3 {
		t.Errorf("planned %d, want 3", rep.Planned)
	}

	// Once the base's record holds TestBroken as failing there, a second
	// verify does not stop the importers for it: the two stages read as
	// one run, classified as one.
	rep = runStagedModule(t, dir)
	wantCommands(t, rep, "go vet ./a ./b", "go test ./a ./b")
	if got := ids(rep.AlreadyFailing); !reflect.DeepEqual(got, []string{"example.com/s/a.TestBroken"}) {
		t.Errorf("second verify: already failing %q", got)
	}
	if got := ids(rep.NewFailures); !reflect.DeepEqual(got, []string{"example.com/s/b.TestSum"}) {
		t.Errorf("second verify: new failures %q; evidence %q", got, rep.Evidence)
	}
	if want := "⚠ Not verified: go test ./a ./b failed: TestSum; TestBroken already failing before this change."; rep.Evidence != want {
		t.Errorf("second verify: evidence %q\nwant %q", rep.Evidence, want)
	}
}

// A check that sets go's package parallelism keeps one command: two at
// once would run packages side by side that -p 1 keeps apart.
func TestStagesNotWithPackageParallelism(t *testing.T) {
	dir := stagedModule(t, aTestV)
	put(t, dir, "a/a.go", aGo("7", "2"))
	t.Setenv("GOFLAGS", "-mod=mod -p=1")
	rep := runStagedModule(t, dir)
	wantCommands(t, rep, "go vet ./a ./b", "go test ./a ./b")
	if rep.NotRun != nil {
		t.Errorf("not run %q", rep.NotRun)
	}
}

// smallModule is stagedModule with one package of its own instead of
// twenty: the module has too few test files to narrow, so its runs are
// full, and the -run pattern's time rule is off, so they are split.
func smallModule(t *testing.T, aTest string) string {
	t.Helper()
	old := selecttest.MinRunPatternSecs
	selecttest.MinRunPatternSecs = 0
	t.Cleanup(func() { selecttest.MinRunPatternSecs = old })
	return splitModule(t, aTest, 1)
}

// A full run is split too: the changed package's tests first, the rest of
// the module alongside, stopped by a new failure in the first.
func TestFullStagesStopAtTheChangedPackagesFailure(t *testing.T) {
	dir := smallModule(t, aTestV)
	put(t, dir, "a/a.go", aGo("7", "2"))
	rep := runStagedModule(t, dir)
	wantCommands(t, rep, "go vet ./...", "go test ./a")
	if got := ids(rep.NewFailures); !reflect.DeepEqual(got, []string{"example.com/s/a.TestV"}) {
		t.Errorf("new failures %q", got)
	}
	want := "⚠ Not verified: go test ./a failed: TestV. The rest of the suite did not run yet (go test ./b ./notest ./p00): it runs once these pass."
	if rep.Verdict != NotVerified || rep.Evidence != want || !rep.NotRunIsRest() {
		t.Errorf("%s: evidence %q\nwant %q", rep.Verdict, rep.Evidence, want)
	}

	// Mended, the two read as the one full run.
	put(t, dir, "a/a.go", aGo("2 - 1", "2"))
	rep = runStagedModule(t, dir)
	wantCommands(t, rep, "go vet ./...", "go test ./...")
	last := rep.Checks[len(rep.Checks)-1]
	if !last.Passed || last.Tests != 3 || !last.Scope.Full || last.Targets != nil {
		t.Errorf("passed %v, tests %d, scope %s, targets %q", last.Passed, last.Tests, last.Scope.Summary(), last.Targets)
	}
	if rep.Verdict != Verified || !strings.Contains(rep.Evidence, "go test ./... (") || !strings.Contains(rep.Evidence, "full suite: the project has 20 or fewer test files") {
		t.Errorf("%s: %s", rep.Verdict, rep.Evidence)
	}
}

// When the changed package's failures were all old, the rest of the suite
// runs next and says what it is.
func TestFullStagesOldFailureRunsTheRest(t *testing.T) {
	dir := smallModule(t, aTestV+"\nfunc TestBroken(t *testing.T) { t.Fatal(\"broken at HEAD\") }\n")
	put(t, dir, "a/a.go", aGo("1", "5"))
	rep := runStagedModule(t, dir)
	wantCommands(t, rep, "go vet ./...", "go test ./a", "go test ./b ./notest ./p00")
	if got := ids(rep.NewFailures); !reflect.DeepEqual(got, []string{"example.com/s/b.TestSum"}) {
		t.Errorf("new failures %q; evidence %q", got, rep.Evidence)
	}
	if got, want := rep.Checks[2].Scope.String(), "the rest of the full suite (the project has 20 or fewer test files)"; got != want {
		t.Errorf("rest scope %q, want %q", got, want)
	}
}

// A new go vet finding ends the chain before the tests: the evidence and
// the report say they did not run.
func TestChecksNotRunAfterANewVetFinding(t *testing.T) {
	dir := stagedModule(t, aTestV)
	put(t, dir, "a/a.go", "package a\n\n// V is one.\nfunc V() int {\n\treturn 1\n\tprintln()\n}\n\n// W is two.\nfunc W() int { return 2 }\n")
	rep := runStagedModule(t, dir)
	wantCommands(t, rep, "go vet ./a ./b")
	if !reflect.DeepEqual(rep.ChecksNotRun, []string{"go test ./a ./b"}) {
		t.Errorf("checks not run %q", rep.ChecksNotRun)
	}
	if want := "The check after it did not run yet (go test ./a ./b): it runs once these pass."; !strings.HasSuffix(rep.Evidence, want) {
		t.Errorf("evidence %q\nwant it to end %q", rep.Evidence, want)
	}
}
