package baseline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/chanto-dev/chanto/internal/durable"
)

// tree is the project as a putback touches it. Every path is opened from
// the project root through os.Root, so nothing resolves outside it, and no
// path is used while one of its folders is anything but a real folder: a
// test run that turned a folder into a symlink (to the home folder, or to
// another part of the project) has changed the path's type, which is
// reported and never followed. The putback runs outside the sandbox, so
// this is what keeps a test's symlink from steering its writes.
type tree struct {
	dir  string
	root *os.Root
}

func openTree(dir string) (*tree, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &tree{dir: dir, root: r}, nil
}

func (t *tree) close() { t.root.Close() }

// TypeChangedError is a path whose folder is no longer a folder.
type TypeChangedError struct {
	Path   string // the file, relative to the root
	Folder string // the folder of it that changed, relative to the root
	Now    string // what it is now ("a symlink", "a file")
}

func (e *TypeChangedError) Error() string {
	return fmt.Sprintf("%s: its folder %s is %s now; not followed", e.Path, e.Folder, e.Now)
}

// checkFolders fails when an existing folder on the way to rel is a
// symlink or not a folder. Folders that do not exist are fine (mkdirs
// creates them).
func (t *tree) checkFolders(rel string) error {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/")
	for i := 1; i < len(parts); i++ {
		dir := filepath.Join(parts[:i]...)
		fi, err := t.root.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return &TypeChangedError{Path: rel, Folder: filepath.ToSlash(dir), Now: "a symlink"}
		case !fi.IsDir():
			return &TypeChangedError{Path: rel, Folder: filepath.ToSlash(dir), Now: "a " + kindName(fi.Mode())}
		}
	}
	return nil
}

func kindName(m fs.FileMode) string {
	if m.IsRegular() {
		return "file"
	}
	return strings.TrimPrefix(m.Type().String(), "-") + " entry"
}

// mkdirs creates the missing folders of rel's parent, one at a time.
func (t *tree) mkdirs(rel string) error {
	if err := t.checkFolders(rel); err != nil {
		return err
	}
	parts := strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/")
	for i := 1; i < len(parts); i++ {
		err := t.root.Mkdir(filepath.Join(parts[:i]...), 0o755)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return t.checkFolders(rel)
}

// syncDir makes renames inside the folder rel durable.
func (t *tree) syncDir(rel string) error {
	d, err := t.root.Open(rel)
	if err != nil {
		return err
	}
	err = durable.Sync(d)
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
