package detect

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
)

// A repository can hold several Go modules that build against each other
// from source: through a go.work that uses them, or a replace directive
// with a local path. A change in one then reaches the tests of the
// others, so their checks run too.

// goModule is a Go module folder of the repository.
type goModule struct {
	dir, path string
	requires  map[string]bool
	// replaced are the folders its replace directives point at.
	replaced []string
	// imports are the import paths of its Go files, read on first use.
	imports map[string]bool
}

// importsFrom reports whether a Go file of the module imports a package
// of module path mod.
func (m *goModule) importsFrom(mod string) bool {
	if m.imports == nil {
		m.imports = goImports(m.dir)
	}
	for imp := range m.imports {
		if imp == mod || strings.HasPrefix(imp, mod+"/") {
			return true
		}
	}
	return false
}

// goImports reads the import paths of the Go files of the module at dir,
// leaving out nested modules and the folders skipDir names.
func goImports(dir string) map[string]bool {
	out := map[string]bool{}
	fset := token.NewFileSet()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != dir && (skipDir(d.Name()) || fileExists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return nil
		}
		for _, imp := range f.Imports {
			if path, err := strconv.Unquote(imp.Path.Value); err == nil {
				out[path] = true
			}
		}
		return nil
	})
	return out
}

// goWork is a go.work file: its folder and the module folders it uses.
type goWork struct {
	dir string
	use []string
}

// skipDir reports folders no module search needs to enter.
func skipDir(name string) bool {
	switch name {
	case "node_modules", "vendor", "testdata", "target":
		return true
	}
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// goLayout reads the repository's go.mod and go.work files. Files that
// do not parse are left out: checkGoMod reports a broken go.mod of a
// project that runs.
func goLayout(files *manifests) (mods []goModule, works []goWork) {
	for _, p := range files.paths("go.mod") {
		if m, ok := readGoMod(p); ok {
			mods = append(mods, m)
		}
	}
	for _, p := range files.paths("go.work") {
		if w, ok := readGoWork(p); ok {
			works = append(works, w)
		}
	}
	return mods, works
}

func readGoMod(file string) (goModule, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return goModule{}, false
	}
	f, err := modfile.Parse(file, data, nil)
	if err != nil || f.Module == nil {
		return goModule{}, false
	}
	dir := filepath.Dir(file)
	m := goModule{dir: dir, path: f.Module.Mod.Path, requires: map[string]bool{}}
	for _, r := range f.Require {
		m.requires[r.Mod.Path] = true
	}
	for _, r := range f.Replace {
		if modfile.IsDirectoryPath(r.New.Path) {
			m.replaced = append(m.replaced, absFrom(dir, r.New.Path))
		}
	}
	return m, true
}

func readGoWork(file string) (goWork, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return goWork{}, false
	}
	f, err := modfile.ParseWork(file, data, nil)
	if err != nil {
		return goWork{}, false
	}
	w := goWork{dir: filepath.Dir(file)}
	for _, u := range f.Use {
		w.use = append(w.use, absFrom(w.dir, u.Path))
	}
	return w, true
}

func absFrom(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, filepath.FromSlash(p))
}

// workspaceModules are the module folders a go.work in dir uses, inside
// repoRoot; nil when dir has no go.work.
func workspaceModules(repoRoot, dir string) []string {
	w, ok := readGoWork(filepath.Join(dir, "go.work"))
	if !ok {
		return nil
	}
	var dirs []string
	for _, u := range w.use {
		if inside(repoRoot, u) && fileExists(filepath.Join(u, "go.mod")) {
			dirs = append(dirs, u)
		}
	}
	return dirs
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// goDependents finds the Go modules of the repository that build against
// one of the module folders in roots from source, directly or through
// another such module, and says why for each; roots themselves are left
// out.
func goDependents(repoRoot string, roots []string, files *manifests) map[string]string {
	isRoot := map[string]bool{}
	anyGo := false
	for _, r := range roots {
		isRoot[r] = true
		anyGo = anyGo || fileExists(filepath.Join(r, "go.mod"))
	}
	if !anyGo {
		return nil
	}
	mods, works := goLayout(files)
	if len(mods) < 2 {
		return nil
	}
	byDir := map[string]*goModule{}
	for i := range mods {
		byDir[mods[i].dir] = &mods[i]
	}
	// uses[x] lists the modules x builds against from source, with how.
	type use struct {
		dep *goModule
		via string
	}
	uses := map[string][]use{}
	for i := range mods {
		x := &mods[i]
		for _, dir := range x.replaced {
			if y := byDir[dir]; y != nil && y != x {
				uses[x.dir] = append(uses[x.dir], use{y, "a replace in its go.mod"})
			}
		}
	}
	for _, w := range works {
		for _, xd := range w.use {
			x := byDir[xd]
			if x == nil {
				continue
			}
			for _, yd := range w.use {
				// A workspace module may import another without a
				// require line: its imports say it.
				if y := byDir[yd]; y != nil && y != x && (x.requires[y.path] || x.importsFrom(y.path)) {
					uses[x.dir] = append(uses[x.dir], use{y, "go.work"})
				}
			}
		}
	}
	// Walk outwards from the changed modules until nothing new is reached.
	why := map[string]string{}
	for changed := true; changed; {
		changed = false
		dirs := slices.Sorted(maps.Keys(uses))
		for _, xd := range dirs {
			// A changed module can build against another changed one:
			// it gets the reason too, which makes its run full.
			if why[xd] != "" {
				continue
			}
			for _, u := range uses[xd] {
				switch {
				case isRoot[u.dep.dir]:
					why[xd] = fmt.Sprintf("it builds against %s from %s (%s), which changed", u.dep.path, relDir(repoRoot, u.dep.dir), u.via)
				case why[u.dep.dir] != "":
					why[xd] = fmt.Sprintf("it builds against %s from %s (%s), which builds against a changed module", u.dep.path, relDir(repoRoot, u.dep.dir), u.via)
				}
				if why[xd] != "" {
					changed = true
					break
				}
			}
		}
	}
	return why
}

// relDir is dir relative to repoRoot with a trailing slash ("./" for the root).
func relDir(repoRoot, dir string) string {
	rel, err := filepath.Rel(repoRoot, dir)
	if err != nil || rel == "." {
		return "./"
	}
	return filepath.ToSlash(rel) + "/"
}
