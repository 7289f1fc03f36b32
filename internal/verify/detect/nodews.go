package detect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// A JavaScript monorepo's packages (npm and yarn "workspaces", pnpm's
// pnpm-workspace.yaml) are linked into node_modules from their folders:
// a change in one reaches the tests of every package that depends on it.

// nodePackage is a workspace package: its folder, name and the names of
// the packages it depends on.
type nodePackage struct {
	dir, name string
	deps      map[string]bool
}

// workspaceGlobs reads the package globs of a workspace root at dir: the
// "workspaces" of its package.json (a list, or yarn's {"packages": […]})
// or the "packages" list of pnpm-workspace.yaml. nil when dir is none.
func workspaceGlobs(dir string) []string {
	if data, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
		var pkg struct {
			Workspaces json.RawMessage `json:"workspaces"`
		}
		if json.Unmarshal(data, &pkg) == nil && len(pkg.Workspaces) > 0 {
			var list []string
			if json.Unmarshal(pkg.Workspaces, &list) == nil {
				return list
			}
			var yarn struct {
				Packages []string `json:"packages"`
			}
			if json.Unmarshal(pkg.Workspaces, &yarn) == nil {
				return yarn.Packages
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "pnpm-workspace.yaml")); err == nil {
		return pnpmPackages(data)
	}
	return nil
}

// pnpmPackages reads the "packages:" list of pnpm-workspace.yaml, the
// one key detection needs (block list items, quoted or not).
func pnpmPackages(data []byte) []string {
	var globs []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case strings.HasPrefix(line, "packages:"):
			in = true
		case in && strings.HasPrefix(trimmed, "- "):
			g := strings.TrimSpace(strings.TrimPrefix(trimmed, "- "))
			if i := strings.Index(g, " #"); i >= 0 {
				g = strings.TrimSpace(g[:i])
			}
			globs = append(globs, strings.Trim(g, `"'`))
		case line[0] != ' ' && line[0] != '\t':
			in = false
		}
	}
	return globs
}

// workspacePackages are the packages a workspace root at dir lists, in
// folder order; globs starting with "!" leave folders out.
func workspacePackages(dir string) []nodePackage {
	globs := workspaceGlobs(dir)
	if len(globs) == 0 {
		return nil
	}
	var include, exclude []string
	for _, g := range globs {
		neg := strings.HasPrefix(g, "!")
		g = strings.TrimSuffix(path.Clean(strings.TrimPrefix(strings.TrimPrefix(g, "!"), "./")), "/")
		if neg {
			exclude = append(exclude, g)
		} else {
			include = append(include, g)
		}
	}
	// A walk that follows no symlink and skips node_modules: a glob of
	// "packages/**" must not wander into pnpm's linked dependencies.
	var dirs []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != dir && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." || !fileExists(filepath.Join(p, "package.json")) {
			return nil
		}
		matches := func(globs []string) bool {
			for _, g := range globs {
				if ok, _ := doublestar.Match(g, rel); ok {
					return true
				}
			}
			return false
		}
		if matches(include) && !matches(exclude) {
			dirs = append(dirs, rel)
		}
		return nil
	})
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	var pkgs []nodePackage
	for _, d := range dirs {
		if d == "." {
			continue
		}
		abs := filepath.Join(dir, filepath.FromSlash(d))
		if p, ok := readNodePackage(abs); ok {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs
}

func readNodePackage(dir string) (nodePackage, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return nodePackage{}, false
	}
	var pkg struct {
		Name                                   string
		Dependencies, DevDependencies          map[string]string
		PeerDependencies, OptionalDependencies map[string]string
	}
	if json.Unmarshal(data, &pkg) != nil {
		return nodePackage{}, false
	}
	p := nodePackage{dir: dir, name: pkg.Name, deps: map[string]bool{}}
	for _, m := range []map[string]string{pkg.Dependencies, pkg.DevDependencies, pkg.PeerDependencies, pkg.OptionalDependencies} {
		for name := range m {
			p.deps[name] = true
		}
	}
	return p, true
}

// nodeWorkspaceRoots are the workspace roots above the given project
// roots, up to repoRoot.
func nodeWorkspaceRoots(repoRoot string, roots []string) []string {
	var out []string
	for _, r := range roots {
		for dir := r; inside(repoRoot, dir); dir = filepath.Dir(dir) {
			if workspaceGlobs(dir) != nil && !slices.Contains(out, dir) {
				out = append(out, dir)
			}
			if dir == repoRoot || dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return out
}

// nodeDependents finds the workspace packages that depend on a package
// in roots, directly or through another workspace package, and says why
// for each; roots themselves are left out.
func nodeDependents(repoRoot string, roots []string) map[string]string {
	why := map[string]string{}
	for _, ws := range nodeWorkspaceRoots(repoRoot, roots) {
		pkgs := workspacePackages(ws)
		byName := map[string]*nodePackage{}
		for i := range pkgs {
			if pkgs[i].name != "" {
				byName[pkgs[i].name] = &pkgs[i]
			}
		}
		changed := map[string]bool{} // package names reached so far
		for i := range pkgs {
			if pkgs[i].name != "" && slices.Contains(roots, pkgs[i].dir) {
				changed[pkgs[i].name] = true
			}
		}
		for grew := true; grew; {
			grew = false
			for i := range pkgs {
				x := &pkgs[i]
				// A changed package can depend on another changed one:
				// it gets the reason too, which makes its run full.
				if why[x.dir] != "" {
					continue
				}
				for _, dep := range slices.Sorted(maps.Keys(x.deps)) {
					y := byName[dep]
					if y == nil || y == x || !changed[dep] {
						continue
					}
					how := "which changed"
					if !slices.Contains(roots, y.dir) {
						how = "which depends on a changed package"
					}
					why[x.dir] = fmt.Sprintf("it depends on %s from %s (workspace), %s", dep, relDir(repoRoot, y.dir), how)
					grew = true
					if x.name != "" {
						changed[x.name] = true
					}
					break
				}
			}
		}
	}
	return why
}
