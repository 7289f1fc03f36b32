package selecttest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFileMemo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a.go")
	write := func(content string, age time.Duration) {
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(file, when, when); err != nil {
			t.Fatal(err)
		}
	}
	var fm fileMemo[string]
	calls := 0
	read := func() string {
		calls++
		b, _ := os.ReadFile(file)
		return string(b)
	}

	write("one", time.Hour)
	if fm.get(file, "", read) != "one" || fm.get(file, "", read) != "one" || calls != 1 {
		t.Fatalf("an old, unchanged file should be read once; read %d times", calls)
	}
	write("two", time.Hour+time.Minute) // same size, other mtime
	if got := fm.get(file, "", read); got != "two" || calls != 2 {
		t.Fatalf("a changed file must be read again: %q after %d reads", got, calls)
	}
	write("six", 0) // just written: within the racy window, never trusted
	fm.get(file, "", read)
	fm.get(file, "", read)
	if calls != 4 {
		t.Fatalf("a file modified just now must not be memoized; %d reads", calls)
	}
	if fm.get(file, "other", read); calls != 5 {
		t.Fatal("a different computation on the same file must not share the entry")
	}
}

// A new process reads the entries an earlier one saved.
func TestFileMemoAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	if err := os.WriteFile(file, []byte("package a"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(file, old, old); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "cache", "memo.json")
	var first fileMemo[string]
	first.get(file, "", func() string { return "header" })
	first.save(saved)

	var second fileMemo[string]
	second.load(saved)
	if got := second.get(file, "", func() string { t.Fatal("recomputed"); return "" }); got != "header" {
		t.Fatalf("got %q", got)
	}
}
