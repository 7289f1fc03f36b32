package detect

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v4"
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
// or the "packages" list of pnpm-workspace.yaml. nil when dir is none; the
// error names a pnpm-workspace.yaml that is not YAML, since a workspace
// whose packages cannot be read would miss their dependents.
func workspaceGlobs(dir string) ([]string, error) {
	if data, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
		var pkg struct {
			Workspaces json.RawMessage `json:"workspaces"`
		}
		if json.Unmarshal(data, &pkg) == nil && len(pkg.Workspaces) > 0 {
			var list []string
			if json.Unmarshal(pkg.Workspaces, &list) == nil {
				return list, nil
			}
			var yarn struct {
				Packages []string `json:"packages"`
			}
			if json.Unmarshal(pkg.Workspaces, &yarn) == nil {
				return yarn.Packages, nil
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "pnpm-workspace.yaml")); err == nil {
		return pnpmPackages(data)
	}
	return nil, nil
}

// pnpmPackages reads the "packages" list of pnpm-workspace.yaml with a
// YAML parser: block or flow lists, quoted or not, anchors, comments.
// The error is a *ManifestError without its File.
func pnpmPackages(data []byte) ([]string, error) {
	var ws struct {
		Packages []string `yaml:"packages"`
	}
	err := yaml.Unmarshal(data, &ws)
	var perr *yaml.ParserError
	var terr *yaml.TypeError
	switch {
	case err == nil:
		return ws.Packages, nil
	case errors.As(err, &perr):
		return nil, &ManifestError{Line: perr.Line, Msg: "invalid YAML: " + perr.Message}
	case errors.As(err, &terr) && len(terr.Errors) > 0:
		e := terr.Errors[0]
		return nil, &ManifestError{Line: e.Line, Msg: "packages: " + strings.TrimPrefix(e.Err.Error(), "yaml: ")}
	}
	return nil, &ManifestError{Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
}

// workspaceError names the workspace file an error of workspaceGlobs came
// from, relative to the repository root.
func workspaceError(repoRoot, dir string, err error) error {
	var me *ManifestError
	if errors.As(err, &me) && me.File == "" {
		r, rerr := filepath.Rel(repoRoot, filepath.Join(dir, "pnpm-workspace.yaml"))
		if rerr != nil {
			r = "pnpm-workspace.yaml"
		}
		me.File = filepath.ToSlash(r)
	}
	return err
}

// workspacePackages are the packages a workspace root at dir lists, in
// folder order; globs starting with "!" leave folders out.
func workspacePackages(dir string) ([]nodePackage, error) {
	globs, err := workspaceGlobs(dir)
	if len(globs) == 0 || err != nil {
		return nil, err
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
	return pkgs, nil
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
			// One whose file cannot be read counts, so its error is reported.
			if globs, err := workspaceGlobs(dir); (globs != nil || err != nil) && !slices.Contains(out, dir) {
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
func nodeDependents(repoRoot string, roots []string) (map[string]string, error) {
	why := map[string]string{}
	for _, ws := range nodeWorkspaceRoots(repoRoot, roots) {
		pkgs, err := workspacePackages(ws)
		if err != nil {
			return nil, workspaceError(repoRoot, ws, err)
		}
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
	return why, nil
}
