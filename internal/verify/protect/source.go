package protect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// DirSource reads the working tree under a directory.
type DirSource string

// ReadFile reads p below the directory. Missing files, directories and
// symlink loops all read as fs.ErrNotExist.
func (d DirSource) ReadFile(p string) ([]byte, error) {
	full := filepath.Join(string(d), filepath.FromSlash(path.Clean("/"+p)))
	b, err := os.ReadFile(full)
	if err == nil {
		return b, nil
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTDIR) {
		return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
	}
	return nil, err
}

// ListDir returns the names in folder dir below the directory.
func (d DirSource) ListDir(dir string) ([]string, error) {
	es, err := os.ReadDir(filepath.Join(string(d), filepath.FromSlash(path.Clean("/"+dir))))
	if err != nil {
		return nil, nil
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name()
	}
	return out, nil
}

// Snapshot is an in-memory tree, such as the test files kept at turn start.
type Snapshot map[string][]byte

// ReadFile returns a copy-free view of the stored bytes.
func (s Snapshot) ReadFile(p string) ([]byte, error) {
	b, ok := s[path.Clean(p)]
	if !ok {
		return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
	}
	return b, nil
}

// skipDirs are never searched for tests.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "target": true, "vendor": true, ".venv": true, "venv": true,
	"__pycache__": true, ".tox": true, "build": true, "dist": true, ".gradle": true, ".mypy_cache": true, ".pytest_cache": true}

// TakeSnapshot reads every file under root that d says to keep (test files,
// harness files, Rust and Java sources). Symlinked directories are
// followed once each, so a link loop ends. Files above MaxDeepSize*4 are
// skipped.
func TakeSnapshot(root string, d *Detector) (Snapshot, error) {
	if d == nil {
		d = NewDetector(DirSource(root))
	}
	snap := Snapshot{}
	onPath := map[string]bool{} // real directories being walked: a link back to one is a loop
	var walk func(dir, rel string) error
	walk = func(dir, rel string) error {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || onPath[real] || len(onPath) > 64 {
			return nil
		}
		onPath[real] = true
		defer delete(onPath, real)
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("snapshot %s: %w", dir, err)
		}
		for _, e := range entries {
			name := e.Name()
			full := filepath.Join(dir, name)
			p := path.Join(rel, name)
			info, err := os.Stat(full)
			if err != nil {
				continue // dangling link or loop
			}
			if info.IsDir() {
				if skipDirs[name] || strings.HasPrefix(name, ".") && name != ".github" && name != ".circleci" {
					continue
				}
				if err := walk(full, p); err != nil {
					return err
				}
				continue
			}
			if !info.Mode().IsRegular() || info.Size() > 4*MaxDeepSize || !d.ShouldSnapshot(p) {
				continue
			}
			b, err := os.ReadFile(full)
			if err != nil {
				continue
			}
			snap[p] = b
		}
		return nil
	}
	if err := walk(root, ""); err != nil {
		return nil, err
	}
	return snap, nil
}
