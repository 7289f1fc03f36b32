package verify

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
)

// Files read after Prefetch are the bytes, or the absence, that reading
// each with its own git call gives.
func TestGitSourcePrefetchReadsAsReadFile(t *testing.T) {
	dir := gitRepo(t)
	put(t, dir, "a.txt", "a\n")
	put(t, dir, "with space.py", "def test_x():\n    pass\n")
	put(t, dir, "sub/empty", "")
	if err := os.WriteFile(filepath.Join(dir, "bin.dat"), []byte("x\n\x00\n\nend"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")
	paths := []string{"a.txt", "with space.py", "sub/empty", "bin.dat", "link", "sub", "gone.txt", "sub/gone"}
	r := &run.Runner{}
	plain := GitSource{Ctx: context.Background(), Runner: r, Root: dir, Rev: "HEAD"}
	pre := plain
	pre.Prefetch(paths)
	if pre.pre == nil || len(pre.pre.files) != 5 || len(pre.pre.missing) != 2 {
		t.Fatalf("prefetched %+v", pre.pre)
	}
	for _, p := range paths {
		want, werr := plain.ReadFile(p)
		got, gerr := pre.ReadFile(p)
		if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) || errors.Is(werr, fs.ErrNotExist) != errors.Is(gerr, fs.ErrNotExist) {
			t.Errorf("%s: prefetched %q, %v; alone %q, %v", p, got, gerr, want, werr)
		}
	}
}
