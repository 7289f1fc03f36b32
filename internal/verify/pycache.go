package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
)

// Python trusts a cached .pyc whose source has the size and the mtime
// second it was compiled from. A put-back baseline writes base files that
// may match the changed ones on both, so it cannot share the tree's
// __pycache__ folders; it runs with PYTHONPYCACHEPREFIX naming a folder of
// its own. That folder is kept per project: a fresh one made every baseline
// compile the standard library and pytest from source (with a prefix,
// Python reads no __pycache__ folder at all), 0.6 s of a 1 s baseline on
// python-semver. What makes keeping it safe:
//
//   - only put-back baselines use it, so it only ever sees the base
//     versions of the changed files and files as they are on disk;
//   - the changed files' entries are removed before the run and after it,
//     so no bytecode of a put-back file outlives the run that put it back;
//   - a marker held during the run tells a later run that this one did not
//     end (chanto was killed): that run starts from an empty folder.
//
// PYTHONDONTWRITEBYTECODE is cleared for the run: what Python writes goes
// to that folder only, never into the project.

// pycacheMarker is the file that stands in the folder while a run uses it.
const pycacheMarker = ".chanto-in-use"

// baselineBytecode gives a baseline of a check in dir its bytecode folder:
// the project's own (see above) when the base files are put back in the
// tree, one in the run's report folder when the base is a copy. It returns
// the variables the run gets and what to call after it (nil: nothing);
// env is nil when there is no folder to give.
func (e *engine) baselineBytecode(dir, reportDir string) (env []string, done func()) {
	if within(e.cs.Root, dir) {
		if env, done, ok := e.projectBytecode(e.cs.Changed); ok {
			return env, done
		}
	}
	if reportDir == "" {
		return nil, nil
	}
	return []string{"PYTHONPYCACHEPREFIX=" + filepath.Join(reportDir, "pycache")}, nil
}

// projectBytecode prepares the project's baseline bytecode folder for a
// put-back run with the changed files; ok is false when it cannot be made.
func (e *engine) projectBytecode(changed []string) (env []string, done func(), ok bool) {
	dir := e.pycacheDir()
	if dir == "" {
		return nil, nil, false
	}
	marker := filepath.Join(dir, pycacheMarker)
	if _, err := os.Lstat(marker); err == nil {
		os.RemoveAll(dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, false
	}
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		return nil, nil, false
	}
	roots := sourceRoots(e.cs.Root)
	dropPrefixedBytecode(dir, roots, changed)
	done = func() {
		dropPrefixedBytecode(dir, roots, changed)
		os.Remove(marker)
	}
	return []string{"PYTHONPYCACHEPREFIX=" + dir, "PYTHONDONTWRITEBYTECODE="}, done, true
}

// pycacheDir is the project's baseline bytecode folder: in the checks' own
// temp folder when sandboxed (the only part of chanto's home a check can
// write), else under chanto's cache. "" when neither can be named.
func (e *engine) pycacheDir() string {
	if t := e.r.TempDir(run.Check); t != "" && e.r.Sandbox != nil {
		return filepath.Join(t, "pycache")
	}
	home := config.Home()
	if home == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(e.cs.Root))
	return filepath.Join(home, "cache", "pycache", filepath.Base(e.cs.Root)+"-"+hex.EncodeToString(sum[:6]))
}

// sourceRoots is root as given and as the kernel resolves it: Python names
// a cached file after the path it imported the source by.
func sourceRoots(root string) []string {
	roots := []string{root}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		roots = append(roots, real)
	}
	return roots
}

// dropPrefixedBytecode removes what Python cached under prefix for the
// changed .py files (paths relative to each of roots): with a prefix, the
// cache of /a/b/c.py is prefix/a/b/c.<tag>.pyc.
func dropPrefixedBytecode(prefix string, roots, changed []string) {
	for _, p := range changed {
		if !strings.HasSuffix(p, ".py") {
			continue
		}
		for _, root := range roots {
			dir, file := filepath.Split(filepath.Join(root, filepath.FromSlash(p)))
			removeBytecodeOf(filepath.Join(prefix, strings.TrimLeft(dir, string(filepath.Separator))), file)
		}
	}
}

// removeBytecodeOf removes cache's compiled files of the source named file
// (calc.py: calc.cpython-311.pyc, calc.cpython-311.opt-1.pyc; a name is
// matched as it is, not as a glob pattern).
func removeBytecodeOf(cache, file string) {
	ents, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	stem := strings.TrimSuffix(file, ".py") + "."
	for _, ent := range ents {
		if n := ent.Name(); strings.HasPrefix(n, stem) && strings.HasSuffix(n, ".pyc") {
			os.Remove(filepath.Join(cache, n))
		}
	}
}

// within reports whether path is root or inside it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
