package verify

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// pytest stops at a collection error before any test runs. A new one is
// the news, said to have stopped the run; one that was there before the
// change no longer blinds the gate: the run is made again past it, so a
// fault the other tests catch is named new.
func TestPytestInterruptedAtCollection(t *testing.T) {
	dir := pytestRepo(t, map[string]string{
		"pytest.ini":         "[pytest]\npythonpath = .\n",
		"calc.py":            "def add(a, b):\n    return a + b\n",
		"tests/test_add.py":  "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n",
		"tests/test_more.py": "from calc import add\n\n\ndef test_more():\n    assert add(1, 2) == 3\n",
	})
	verify := func() *Report { return verifyWithin(t, dir, time.Minute) }

	// A new collection error.
	put(t, dir, "calc.py", "def add(a, b):\n    return a + b\n\n\ndef sub(a, b)\n    return a - b\n")
	rep := verify()
	want := "⚠ Not verified: python3 -m pytest failed: tests.test_add (collection error), tests.test_more (collection error); pytest stopped at its collection errors, so none of its tests ran."
	if rep.Evidence != want || rep.Checks[0].Interrupted == "" {
		t.Errorf("new collection error: %q\nwant %q", rep.Evidence, want)
	}

	// One that was there before: the run goes on past it, in its place.
	put(t, dir, "calc.py", "def add(a, b):\n    return a + b\n")
	put(t, dir, "tests/test_more.py", "from calc import add, mul\n\n\ndef test_more():\n    assert add(1, 2) == 3\n")
	sh(t, dir, "git", "commit", "-qam", "a test file that does not import")
	put(t, dir, "calc.py", "def add(a, b):\n    return a - b\n")
	rep = verify()
	wantCommands(t, rep, "python3 -m pytest --continue-on-collection-errors")
	want = "⚠ Not verified: python3 -m pytest --continue-on-collection-errors failed: test_add; tests.test_more (collection error) already failing before this change."
	if rep.Evidence != want || len(rep.AlreadyFailing) != 1 {
		t.Errorf("old collection error: %q (already failing %v)\nwant %q", rep.Evidence, rep.AlreadyFailing, want)
	}

	// An honest change: only the old error is left.
	put(t, dir, "calc.py", "def add(a, b):\n    return b + a\n")
	rep = verify()
	if rep.Verdict != NotVerified || !strings.Contains(rep.Evidence, "--continue-on-collection-errors failed: tests.test_more (collection error) (already failing before this change)") || len(rep.NewFailures) != 0 {
		t.Errorf("honest change: %s %q", rep.Verdict, rep.Evidence)
	}
}

// -x (here in addopts) stops pytest at its first failure: an old one no
// longer hides the tests after it.
func TestPytestStoppedByExitFirst(t *testing.T) {
	dir := pytestRepo(t, map[string]string{
		"pytest.ini": "[pytest]\naddopts = -x\n",
		"mod.py":     "V = 1\n",
		"test_a.py":  "def test_broken():\n    assert 0\n",
		"test_b.py":  "import mod\n\n\ndef test_v():\n    assert mod.V == 1\n",
	})
	put(t, dir, "mod.py", "V = 2\n")
	rep := verifyWithin(t, dir, time.Minute)
	wantCommands(t, rep, "python3 -m pytest --maxfail=0")
	if want := "⚠ Not verified: python3 -m pytest --maxfail=0 failed: test_v; test_broken already failing before this change."; rep.Evidence != want {
		t.Errorf("evidence %q\nwant %q", rep.Evidence, want)
	}
}

// pytestRepo is a git repository of files, committed, for Debian's pytest
// (/usr/bin/python3 first on PATH).
func pytestRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if exec.Command("/usr/bin/python3", "-m", "pytest", "--version").Run() != nil {
		t.Fatal("/usr/bin/python3 has no pytest; scripts/test installs it")
	}
	t.Setenv("CHANTO_HOME", t.TempDir())
	t.Setenv("PATH", "/usr/bin:/bin")
	dir := gitRepo(t)
	for name, body := range files {
		put(t, dir, name, body)
	}
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")
	return dir
}

// verifyWithin runs the gate on dir's change with a time limit per check.
func verifyWithin(t *testing.T, dir string, limit time.Duration) *Report {
	t.Helper()
	rep, err := Run(context.Background(), Options{Root: dir, Timeout: limit})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A run that records every failure (the gate's baseline copy, KeepGoing)
// goes on past the collection errors too: a failure it never reached
// would read as new later.
func TestPytestInterruptedKeepGoing(t *testing.T) {
	dir := pytestRepo(t, map[string]string{
		"pytest.ini":         "[pytest]\npythonpath = .\n",
		"calc.py":            "def add(a, b):\n    return a + b\n",
		"tests/test_add.py":  "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 5\n",
		"tests/test_more.py": "from calc import mul\n",
	})
	rep, err := Run(context.Background(), Options{Root: dir, Timeout: time.Minute, KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	wantCommands(t, rep, "python3 -m pytest --continue-on-collection-errors")
	if got := ids(rep.Checks[0].Failures); !slices.Contains(got, "tests.test_add::test_add") {
		t.Errorf("failures %q, want test_add among them", got)
	}
}
