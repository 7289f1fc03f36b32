package snapshot

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
)

// A saved snapshot read back in another process tells the same change set
// and gives back the original bytes of clean, dirty and untracked files.
func TestSaveLoadKeepsTheTurnStart(t *testing.T) {
	ctx := context.Background()
	root := gitRepo(t)
	s, err := Take(ctx, &run.Runner{}, root)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "turn")
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	s.Close()
	write(t, root, "a.go", "package a // edited\n")
	write(t, root, "keep.txt", "edited again\n")
	write(t, root, "new.txt", "new\n")
	runGit(t, root, "rm", "-q", "b.go")

	l, err := Load(ctx, &run.Runner{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Rescan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Modified, []string{"a.go", "keep.txt"}) || !slices.Equal(c.Added, []string{"new.txt"}) || !slices.Equal(c.Deleted, []string{"b.go"}) {
		t.Fatalf("change after load: %+v", c)
	}
	for p, want := range map[string]string{"a.go": "package a\n", "keep.txt": "dirty before the turn\n", "untracked.txt": "untracked before the turn\n", "b.go": "package a // b\n"} {
		got, err := l.ReadFile(p)
		if err != nil || string(got) != want {
			t.Errorf("%s: %q %v, want %q", p, got, err, want)
		}
	}
	if l.Root() != s.Root() || l.Len() != s.Len() {
		t.Errorf("root %s len %d, want %s %d", l.Root(), l.Len(), s.Root(), s.Len())
	}
	if _, err := Load(ctx, &run.Runner{}, t.TempDir()); err == nil {
		t.Error("loading an empty folder did not fail")
	}
}
