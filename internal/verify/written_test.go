package verify

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A check that writes into the project is named for it: a tracked file it
// emptied and a file it left behind, not the change's own file, and
// nothing is put back. A check that writes nothing adds no note.
func TestWrittenByChecks(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	dir := gitRepo(t)
	put(t, dir, "golden_test.txt", "want 1\n")
	put(t, dir, "code.txt", "1\n")
	put(t, dir, ".gitignore", "ignored.out\n")
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")
	put(t, dir, "code.txt", "2\n")

	rep, err := Run(context.Background(), Options{Root: dir, Timeout: time.Minute,
		Checks: []string{"sh -c ': > golden_test.txt; echo run > left.out; echo run > ignored.out'"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"golden_test.txt", "left.out"}; !reflect.DeepEqual(rep.WrittenByChecks, want) {
		t.Errorf("written by checks = %q, want %q", rep.WrittenByChecks, want)
	}
	if rep.Verdict != Verified || !strings.HasSuffix(rep.Evidence, " Note: the checks wrote files your change did not touch: golden_test.txt, left.out (left as they are; git diff shows what they did).") {
		t.Errorf("verdict %s, evidence %q", rep.Verdict, rep.Evidence)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "golden_test.txt")); err != nil || len(got) != 0 {
		t.Errorf("golden_test.txt = %q, %v: the gate put back what the check wrote", got, err)
	}

	put(t, dir, "golden_test.txt", "want 1\n")
	sh(t, dir, "rm", "left.out")
	rep, err = Run(context.Background(), Options{Root: dir, Timeout: time.Minute, Checks: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.WrittenByChecks != nil || strings.Contains(rep.Evidence, "Note:") {
		t.Errorf("a check that wrote nothing: written %q, evidence %q", rep.WrittenByChecks, rep.Evidence)
	}
}

// The putback baseline puts back the files the checks wrote, not only the
// change: here the change's run makes TestWrite overwrite data.txt, which
// TestOld (failing at HEAD) reads. Run at a base still holding what the
// check wrote, TestOld would pass there and read as new (or flaky); put
// back, it fails as it did at HEAD and is already failing. Afterwards
// data.txt holds what the check wrote, as before the baseline.
func TestBaselinePutsBackWhatChecksWrote(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	t.Setenv("GOFLAGS", "-mod=mod")
	dir := gitRepo(t)
	put(t, dir, "go.mod", "module example.com/w\n\ngo 1.22\n")
	put(t, dir, "a/a.go", "package a\n\nfunc V() int { return 1 }\n")
	put(t, dir, "b/data.txt", "bad\n")
	put(t, dir, "b/b_test.go", `package b

import (
	"os"
	"testing"

	"example.com/w/a"
)

func TestOld(t *testing.T) {
	if data, _ := os.ReadFile("data.txt"); string(data) == "bad\n" {
		t.Fatal("data.txt is bad")
	}
}

func TestWrite(t *testing.T) {
	if a.V() != 1 {
		os.WriteFile("data.txt", []byte("weird\n"), 0o644)
		t.Fatal(a.V())
	}
}
`)
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")
	put(t, dir, "a/a.go", "package a\n\nfunc V() int { return 2 }\n")

	rep, err := Run(context.Background(), Options{Root: dir, Checks: []string{"go test ./..."}, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(rep.NewFailures); !reflect.DeepEqual(got, []string{"example.com/w/b.TestWrite"}) {
		t.Errorf("new failures %q, want TestWrite only; evidence %q", got, rep.Evidence)
	}
	if got := ids(rep.AlreadyFailing); !reflect.DeepEqual(got, []string{"example.com/w/b.TestOld"}) {
		t.Errorf("already failing %q, want TestOld", got)
	}
	for _, c := range rep.Checks {
		if len(c.Flaky) > 0 {
			t.Errorf("%s: flaky %v: the baseline ran on what the check wrote", c.Command, ids(c.Flaky))
		}
	}
	if !reflect.DeepEqual(rep.WrittenByChecks, []string{"b/data.txt"}) {
		t.Errorf("written by checks = %q", rep.WrittenByChecks)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "b", "data.txt")); string(data) != "weird\n" {
		t.Errorf("data.txt = %q after the baseline, want what the check wrote", data)
	}
}
