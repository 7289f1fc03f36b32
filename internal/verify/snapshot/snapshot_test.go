package snapshot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
)

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func gitRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	runGit(t, root, "init", "-q")
	write(t, root, "a.go", "package a\n")
	write(t, root, "b.go", "package a // b\n")
	write(t, root, "dir with space/ü.txt", "unicode\n")
	write(t, root, "keep.txt", "committed\n")
	write(t, root, ".gitignore", "build/\n")
	runGit(t, root, "add", "-A")
	runGit(t, root, "commit", "-qm", "init")
	// Dirty before the turn: the snapshot must hold this, not HEAD.
	write(t, root, "keep.txt", "dirty before the turn\n")
	write(t, root, "untracked.txt", "untracked before the turn\n")
	return root
}

func TestChangesInGitRepo(t *testing.T) {
	ctx := context.Background()
	root := gitRepo(t)
	s, err := Take(ctx, &run.Runner{}, root)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Empty() {
		t.Fatalf("no edits yet, got %+v", c)
	}
	// Give mtimes a chance to differ on coarse filesystems.
	time.Sleep(10 * time.Millisecond)
	write(t, root, "a.go", "package a\n\nfunc A() {}\n")           // like sed -i
	if err := os.Remove(filepath.Join(root, "b.go")); err != nil { // rm
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "dir with space/ü.txt"), filepath.Join(root, "moved.txt")); err != nil { // mv
		t.Fatal(err)
	}
	write(t, root, "new.go", "package a\n")
	write(t, root, "build/out.bin", "ignored\n")
	write(t, root, "untracked.txt", "untracked before the turn\n") // rewritten, same bytes
	if err := os.Chmod(filepath.Join(root, "keep.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err = s.Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := Change{
		Modified: []string{"a.go", "keep.txt"},
		Added:    []string{"moved.txt", "new.go"},
		Deleted:  []string{"b.go", "dir with space/ü.txt"},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("changes:\n got %+v\nwant %+v", c, want)
	}
	for path, content := range map[string]string{
		"a.go":                 "package a\n",
		"b.go":                 "package a // b\n",
		"keep.txt":             "dirty before the turn\n",
		"untracked.txt":        "untracked before the turn\n",
		"dir with space/ü.txt": "unicode\n",
	} {
		got, err := s.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("ReadFile(%q) = %q, %v; want %q", path, got, err, content)
		}
	}
	if _, err := s.ReadFile("new.go"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a file added this turn: want not-exist, got %v", err)
	}
	// Put a file back to its original bytes: no longer changed.
	write(t, root, "a.go", "package a\n")
	if err := os.Chmod(filepath.Join(root, "keep.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ = s.Changes(ctx)
	if !reflect.DeepEqual(c.Modified, []string(nil)) {
		t.Errorf("restored files still reported modified: %v", c.Modified)
	}
}

func TestChangesOutsideGit(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, "x.py", "x = 1\n")
	write(t, root, "node_modules/dep/index.js", "skipped\n")
	s, err := Take(ctx, &run.Runner{}, root)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 1 {
		t.Fatalf("want 1 file recorded (node_modules skipped), got %d", s.Len())
	}
	write(t, root, "x.py", "x = 2\n")
	c, err := s.Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Modified, []string{"x.py"}) {
		t.Fatalf("got %+v", c)
	}
	got, _ := s.ReadFile("x.py")
	if string(got) != "x = 1\n" {
		t.Fatalf("original bytes: %q", got)
	}
}

func TestDigestAndMaterialize(t *testing.T) {
	ctx := context.Background()
	root := gitRepo(t)
	if err := os.Remove(filepath.Join(root, "b.go")); err != nil { // deleted before the turn
		t.Fatal(err)
	}
	s, err := Take(ctx, &run.Runner{}, root)
	if err != nil {
		t.Fatal(err)
	}
	c0, _ := s.Changes(ctx)
	d0 := s.Digest(c0)
	write(t, root, "a.go", "package a // edited\n")
	c1, _ := s.Changes(ctx)
	d1 := s.Digest(c1)
	write(t, root, "a.go", "package a // edited again\n")
	c2, _ := s.Changes(ctx)
	if d0 == d1 || d1 == s.Digest(c2) {
		t.Fatal("digest did not move with the content")
	}
	write(t, root, "a.go", "package a\n")
	c3, _ := s.Changes(ctx)
	if s.Digest(c3) != d0 {
		t.Fatal("content back as it was, digest should be too")
	}

	dir := t.TempDir()
	if err := s.Materialize(ctx, dir); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"a.go": "package a\n", "keep.txt": "dirty before the turn\n", "untracked.txt": "untracked before the turn\n", "dir with space/ü.txt": "unicode\n"} {
		got, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "b.go")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("b.go was deleted before the turn; the copy has it (%v)", err)
	}
}

// The watcher's answer must equal a full scan's, and a change check with
// only file-level edits must not need a full scan.
func TestWatcherMatchesRescan(t *testing.T) {
	ctx := context.Background()
	root := gitRepo(t)
	write(t, root, ".gitignore", "build/\n*.log\n")
	runGit(t, root, "add", ".gitignore")
	runGit(t, root, "commit", "-qm", "ignore logs")
	s, err := Take(ctx, &run.Runner{}, root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.w == nil {
		t.Skip("inotify is not available here")
	}
	if _, err := s.Changes(ctx); err != nil { // the first check scans
		t.Fatal(err)
	}
	scans := s.scans
	steps := []func(){
		func() { write(t, root, "a.go", "package a // 1\n") },
		func() { write(t, root, "new.go", "package a\n") },
		func() { write(t, root, "debug.log", "ignored\n") },
		func() { os.Remove(filepath.Join(root, "b.go")) },
		func() {
			os.Rename(filepath.Join(root, "dir with space/ü.txt"), filepath.Join(root, "dir with space/v.txt"))
		},
		func() { os.Chmod(filepath.Join(root, "keep.txt"), 0o755) },
		func() { write(t, root, "a.go", "package a\n") }, // back to the original
		func() {}, // nothing at all
	}
	for i, step := range steps {
		step()
		fast, err := s.Changes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.scans != scans {
			t.Fatalf("step %d: a file-level edit needed a full scan", i)
		}
		full, err := s.Rescan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		scans = s.scans
		if !reflect.DeepEqual(fast, full) {
			t.Fatalf("step %d: watcher says %+v, scan says %+v", i, fast, full)
		}
	}
	// A new folder is beyond the watcher: the next check scans.
	write(t, root, "pkg/new.go", "package pkg\n")
	c, _ := s.Changes(ctx)
	if s.scans == scans || !slices.Contains(c.Added, "pkg/new.go") {
		t.Fatalf("new folder: scans %d→%d, added %v", scans, s.scans, c.Added)
	}
}
