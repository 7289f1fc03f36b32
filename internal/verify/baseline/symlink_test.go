package baseline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A test run (project code) turns the folder of a changed file into a
// symlink to a folder outside the project. The restore, which runs outside
// the sandbox, must neither write nor delete through it, must say so, and
// must keep the saved copies.
func TestRestoreNeverFollowsASymlinkedFolder(t *testing.T) {
	for _, target := range []string{"outside", "inside"} {
		t.Run(target, func(t *testing.T) {
			root, hist, home := t.TempDir(), t.TempDir(), t.TempDir()
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(os.MkdirAll(filepath.Join(root, "src"), 0o755))
			must(os.WriteFile(filepath.Join(root, "src", ".bashrc"), []byte("model's version\n"), 0o644))
			must(os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# the user's\n"), 0o644))
			must(os.WriteFile(filepath.Join(home, "gone.txt"), []byte("keep me\n"), 0o644))
			dest := home
			if target == "inside" {
				dest = filepath.Join(root, "elsewhere")
				must(os.MkdirAll(dest, 0o755))
				must(os.WriteFile(filepath.Join(dest, ".bashrc"), []byte("# another project file\n"), 0o644))
				must(os.WriteFile(filepath.Join(dest, "gone.txt"), []byte("keep me\n"), 0o644))
			}
			files := []File{
				{Path: "src/.bashrc", Base: []byte("base version\n")},
				{Path: "src/gone.txt", Base: nil}, // added by the model: the putback removes it
			}
			must(os.WriteFile(filepath.Join(root, "src", "gone.txt"), []byte("model's new file\n"), 0o644))
			opts := PutbackOptions{Root: root, Files: files, HistoryDir: hist, Watcher: testWatcher()}
			err := Putback(context.Background(), opts, func(context.Context) error {
				// The test run: src becomes a symlink.
				must(os.Rename(filepath.Join(root, "src"), filepath.Join(root, "src.moved")))
				must(os.Symlink(dest, filepath.Join(root, "src")))
				return nil
			})
			var tc *TypeChangedError
			if !errors.As(err, &tc) || tc.Folder != "src" || !strings.Contains(err.Error(), "kept in") {
				t.Fatalf("Putback error = %v, want a type change of src with the save kept", err)
			}
			for _, f := range []string{".bashrc", "gone.txt"} {
				b, err := os.ReadFile(filepath.Join(dest, f))
				if err != nil || (f == ".bashrc" && strings.Contains(string(b), "version")) {
					t.Errorf("%s through the symlink: %q, %v", f, b, err)
				}
			}
			// Nothing lost: the model's versions are in the save.
			found := 0
			_ = filepath.Walk(hist, func(p string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode().IsRegular() {
					if b, _ := os.ReadFile(p); strings.HasPrefix(string(b), "model's") {
						found++
					}
				}
				return nil
			})
			if found != 2 {
				t.Errorf("saved copies of the model's versions: %d, want 2", found)
			}
		})
	}
}

// A clean putback leaves no lock file behind (issue 10 item 13).
func TestPutbackLeavesNoLockFile(t *testing.T) {
	root, hist := t.TempDir(), t.TempDir()
	files := fixture(t, root, 1)
	for range 2 {
		if err := Putback(context.Background(), PutbackOptions{Root: root, Files: files, HistoryDir: hist, Watcher: testWatcher()},
			func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(hist, "putback", "*"))
	if len(left) != 0 {
		t.Errorf("left in putback/: %v", left)
	}
}
