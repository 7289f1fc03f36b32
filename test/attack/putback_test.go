package attack

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The related-scope baseline puts the changed files back and runs the
// check again; the check (project code) turns the changed files' folder
// into a symlink to the home folder. The restore runs on the host: it must
// not write or delete through the link, must say so, and must keep the
// changed versions.
func TestPutbackNeverFollowsASymlink(t *testing.T) {
	requireSandbox(t)
	for _, mode := range []string{"verify", "print"} {
		t.Run(mode, func(t *testing.T) {
			w := newWorld(t)
			os.Remove(filepath.Join(w.proj, "planted"))
			must(t, os.WriteFile(filepath.Join(w.home, "new.txt"), []byte("keep me\n"), 0o644))
			w.write(t, "src/.bashrc", "base\n")
			w.write(t, "check.sh", `if grep -q MODEL src/.bashrc; then echo 'src is wrong'; exit 1; fi
mv src src.old && ln -s `+w.home+` src
exit 1
`)
			w.git(t, "add", "-A")
			w.git(t, "commit", "-qm", "init")
			var out []byte
			if mode == "verify" {
				w.write(t, "src/.bashrc", "MODEL\n")
				w.write(t, "src/new.txt", "MODEL new\n")
				out, _ = w.chanto(t, 3*time.Minute, "verify", "--check", "bash check.sh")
			} else {
				script := filepath.Join(w.base, "model.script")
				must(t, os.WriteFile(script, []byte(`call bash {"command": "echo MODEL > src/.bashrc; echo MODEL new > src/new.txt"}
---
say Done.
`), 0o644))
				out, _ = w.chanto(t, 3*time.Minute, "-p", "change it", "--model", "scripted:"+script, "--permission-mode", "bypass", "--verify", "--verify-check", "bash check.sh")
			}
			if b, _ := os.ReadFile(filepath.Join(w.home, ".bashrc")); string(b) != "# original\n" {
				t.Errorf("~/.bashrc written through the symlink: %q\n%s", b, out)
			}
			if b, err := os.ReadFile(filepath.Join(w.home, "new.txt")); err != nil || string(b) != "keep me\n" {
				t.Errorf("~/new.txt changed or deleted through the symlink: %q %v\n%s", b, err, out)
			}
			if !strings.Contains(string(out), "not followed") {
				t.Errorf("the type change was not reported:\n%s", out)
			}
			// Nothing lost: the model's versions are kept in the save.
			kept := 0
			_ = filepath.Walk(filepath.Join(w.base, "chanto-home"), func(p string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode().IsRegular() {
					if b, _ := os.ReadFile(p); strings.HasPrefix(string(b), "MODEL") {
						kept++
					}
				}
				return nil
			})
			if kept < 2 {
				t.Errorf("the model's versions are not kept (%d found):\n%s", kept, out)
			}
		})
	}
}
