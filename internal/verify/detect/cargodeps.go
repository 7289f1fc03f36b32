package detect

import (
	"fmt"
	"path/filepath"
)

// Crates of one repository can depend on each other by path outside a
// shared workspace (two workspaces, or standalone crates): a change in
// one then reaches the tests of the others, whose project runs too.
// Inside one workspace, selection follows the reverse dependencies.

// cargoCrate is a package manifest of the repository.
type cargoCrate struct {
	dir, name string
	// paths are the folders of its path dependencies.
	paths []string
}

// cargoCrates reads the repository's Cargo.toml files that have a [package].
func cargoCrates(repoRoot string, files *manifests) []cargoCrate {
	var crates []cargoCrate
	roots := map[string]wsPaths{}
	for _, p := range files.paths("Cargo.toml") {
		m, ok := cargoManifest(p)
		pkg, isPkg := m["package"].(map[string]any)
		if !ok || !isPkg {
			continue
		}
		c := cargoCrate{dir: filepath.Dir(p)}
		c.name, _ = pkg["name"].(string)
		c.paths = cargoPathDeps(c.dir, m, workspacePaths(repoRoot, c.dir, roots))
		crates = append(crates, c)
	}
	return crates
}

// wsPaths are the local folders a workspace root manifest names for its
// members: [workspace.dependencies] entries with a path (used through
// dep = { workspace = true }) and [patch.<registry>] entries with one
// (which replace that crate in every member's graph).
type wsPaths struct{ deps, patches map[string]string }

// workspacePaths reads the wsPaths of the workspace crate dir belongs to,
// once per workspace root.
func workspacePaths(repoRoot, dir string, cache map[string]wsPaths) wsPaths {
	root := cargoWorkspaceRoot(repoRoot, dir)
	if w, ok := cache[root]; ok {
		return w
	}
	w := wsPaths{deps: map[string]string{}, patches: map[string]string{}}
	m, _ := cargoManifest(filepath.Join(root, "Cargo.toml"))
	ws, _ := m["workspace"].(map[string]any)
	deps, _ := ws["dependencies"].(map[string]any)
	for name, d := range deps {
		if spec, ok := d.(map[string]any); ok {
			if p, ok := spec["path"].(string); ok && p != "" {
				w.deps[name] = absFrom(root, p)
			}
		}
	}
	patch, _ := m["patch"].(map[string]any)
	for _, reg := range patch {
		entries, _ := reg.(map[string]any)
		for name, d := range entries {
			if spec, ok := d.(map[string]any); ok {
				if p, ok := spec["path"].(string); ok && p != "" {
					w.patches[name] = absFrom(root, p)
				}
			}
		}
	}
	cache[root] = w
	return w
}

// cargoPathDeps lists the folders of a manifest's path dependencies:
// [dependencies], [dev-dependencies], [build-dependencies] and their
// [target.'cfg(…)'.…] forms, with a path of their own, inherited from the
// workspace, or patched in by it.
func cargoPathDeps(dir string, m map[string]any, ws wsPaths) []string {
	var out []string
	tables := []map[string]any{m}
	if targets, ok := m["target"].(map[string]any); ok {
		for _, t := range targets {
			if tm, ok := t.(map[string]any); ok {
				tables = append(tables, tm)
			}
		}
	}
	for _, t := range tables {
		for _, key := range []string{"dependencies", "dev-dependencies", "build-dependencies"} {
			deps, _ := t[key].(map[string]any)
			for name, d := range deps {
				spec, _ := d.(map[string]any)
				if real, ok := spec["package"].(string); ok && real != "" {
					name = real
				}
				if p, ok := spec["path"].(string); ok && p != "" {
					out = append(out, absFrom(dir, p))
				} else if inherit, _ := spec["workspace"].(bool); inherit && ws.deps[name] != "" {
					out = append(out, ws.deps[name])
				} else if ws.patches[name] != "" {
					out = append(out, ws.patches[name])
				}
			}
		}
	}
	return out
}

// cargoDependents finds the crates, outside the projects in roots, that
// depend by path on a crate holding a changed file, directly or through
// another such crate; it maps each one's project root (its workspace
// root) to the reason.
func cargoDependents(repoRoot string, roots, changed []string, files *manifests) map[string]string {
	anyCargo := false
	for _, r := range roots {
		anyCargo = anyCargo || fileExists(filepath.Join(r, "Cargo.toml"))
	}
	if !anyCargo {
		return nil
	}
	crates := cargoCrates(repoRoot, files)
	if len(crates) < 2 {
		return nil
	}
	byDir := map[string]*cargoCrate{}
	wsOf := map[string]string{} // crate folder → its project (workspace) root
	seed := map[string]bool{}   // crates holding a changed file
	for i := range crates {
		c := &crates[i]
		byDir[c.dir], wsOf[c.dir] = c, cargoWorkspaceRoot(repoRoot, c.dir)
		for _, f := range changed {
			if inside(c.dir, filepath.Join(repoRoot, filepath.FromSlash(f))) {
				seed[c.dir] = true
				break
			}
		}
	}
	// why[root] is why a workspace runs in full. Inside one workspace the
	// related selection follows reverse dependencies; across workspaces a
	// path dependency on an affected crate makes the whole workspace run,
	// and every crate in it is then affected in turn.
	why := map[string]string{}
	affected := func(c *cargoCrate) bool { return seed[c.dir] || why[wsOf[c.dir]] != "" }
	for grew := true; grew; {
		grew = false
		for i := range crates {
			x := &crates[i]
			if why[wsOf[x.dir]] != "" {
				continue
			}
			for _, p := range x.paths {
				y := byDir[p]
				if y == nil || wsOf[y.dir] == wsOf[x.dir] || !affected(y) {
					continue
				}
				how := "which changed"
				if !seed[y.dir] {
					how = "which depends on a changed crate"
				}
				why[wsOf[x.dir]] = fmt.Sprintf("it depends on crate %s from %s (path dependency), %s", y.name, relDir(repoRoot, y.dir), how)
				grew = true
				break
			}
		}
	}
	return why
}
