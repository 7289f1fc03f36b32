package selecttest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/config"
)

// pyEdge is a dependency of one Python file on another. A deep edge means
// the target's code runs and its own imports count; a shallow one (a
// package __init__ passed through on the way to a submodule or to the
// module that defines an imported name) counts only the file itself.
type pyEdge struct {
	To   string
	Deep bool
	// Hidden names a dependency no import shows ("runs project code in a
	// subprocess", "loads modules by name"); empty for imports.
	Hidden string
}

// pyProject is the static import graph of a Python project.
type pyProject struct {
	dir   string
	cfg   pytestConfig
	files map[string]bool // .py files, slash paths relative to dir
	dirs  map[string]bool // folders holding them
	roots []string        // import roots, "." first
	src   map[string]*pyFile
	edges map[string][]pyEdge
	// exporting guards export resolution against import cycles.
	exporting map[string]bool
	// Resolutions are pure functions of the indexed files, asked for again
	// and again (every test reaches the same modules): memos keep a large
	// project's selection to one resolution of each.
	modules   map[string]moduleWalk
	absolute  map[string]moduleWalk // resolveAbs, by base folder and name
	bases     map[string]string     // baseDir, by folder
	exports   map[string]exportResult
	exported  map[string]moduleWalk // exportedModule from a fresh start
	cycleCut  int                   // how many lookups a cycle cut short; their answers depend on the path
	docFiles  []string              // text files matching pytest's doctest globs
	effects   map[string][]pyEdge   // effectEdges, by file
	effectful map[string]bool       // hasEffects, by file
}

type moduleWalk struct {
	edges []pyEdge
	t     pyTarget
	ok    bool
}

type exportResult struct {
	edges []pyEdge
	state int
}

// loadPyProject indexes the .py files under dir. extra are paths (deleted
// files) that imports may still name.
func loadPyProject(dir string, cfg pytestConfig, extra []string) *pyProject {
	p := &pyProject{dir: dir, cfg: cfg, files: map[string]bool{}, dirs: map[string]bool{},
		src: map[string]*pyFile{}, edges: map[string][]pyEdge{}, exporting: map[string]bool{},
		modules: map[string]moduleWalk{}, absolute: map[string]moduleWalk{}, bases: map[string]string{},
		exports: map[string]exportResult{}, exported: map[string]moduleWalk{},
		effects: map[string][]pyEdge{}, effectful: map[string]bool{}}
	walkFiles(dir, func(rel string) bool {
		return keepSourceDir(rel) && !fileExists(filepath.Join(dir, filepath.FromSlash(rel), "pyvenv.cfg"))
	}, func(rel string) bool {
		if strings.HasSuffix(rel, ".py") {
			p.addFile(rel)
		} else if matchAny(cfg.DoctestGlobs, path.Base(rel)) {
			p.docFiles = append(p.docFiles, rel)
		}
		return true
	})
	for _, f := range extra {
		if strings.HasSuffix(f, ".py") {
			p.addFile(f)
		}
	}
	p.roots = []string{"."}
	if p.dirs["src"] {
		p.roots = append(p.roots, "src")
	}
	for _, r := range cfg.PythonPath {
		r = path.Clean(filepath.ToSlash(r))
		if !strings.HasPrefix(r, "..") && !contains(p.roots, r) {
			p.roots = append(p.roots, r)
		}
	}
	return p
}

func (p *pyProject) addFile(rel string) {
	p.files[rel] = true
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		p.dirs[d] = true
	}
}

// parsed returns the facts of one file (empty for a deleted file). They
// are remembered by size and modification time across selections and
// processes (pyMemo): parsing is most of a cold selection's time.
func (p *pyProject) parsed(rel string) *pyFile {
	if f := p.src[rel]; f != nil {
		return f
	}
	file := filepath.Join(p.dir, filepath.FromSlash(rel))
	doctest := !strings.HasSuffix(rel, ".py")
	kind := "py"
	if doctest {
		kind = "doctest"
	}
	f := pyMemo.get(file, kind, func() *pyFile {
		data, _ := os.ReadFile(file)
		src := string(data)
		if doctest {
			src = doctestSource(src)
		}
		return parsePy(src)
	})
	p.src[rel] = f
	return f
}

// pyMemo holds the parsed facts of Python files; they are read only once
// made. pyMemoFormat changes when parsePy's output does.
var pyMemo fileMemo[*pyFile]

const pyMemoFormat = "python-v1"

// pyMemoFile is where the facts of the files under dir are kept between
// processes.
func pyMemoFile(dir string) string {
	abs, _ := filepath.Abs(dir)
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(config.Home(), "cache", "selecttest", pyMemoFormat+"-"+hex.EncodeToString(sum[:8])+".json")
}

// join is path.Join that keeps "." roots clean.
func join(dir string, parts ...string) string {
	return path.Join(append([]string{dir}, parts...)...)
}

// pyTarget is where a dotted name landed: a module file, or a package
// folder (with or without __init__.py).
type pyTarget struct {
	File string // module file or package __init__.py; "" for a namespace package
	Dir  string // package folder; "" for a plain module
}

// walkModule resolves parts below base (a root or a relative-import
// folder), returning the shallow edges passed through and the target.
func (p *pyProject) walkModule(base string, parts []string) ([]pyEdge, pyTarget, bool) {
	key := base + "\x00" + strings.Join(parts, ".")
	if w, ok := p.modules[key]; ok {
		return w.edges, w.t, w.ok
	}
	edges, t, ok := p.walkModuleOnce(base, parts)
	// Clipped, so a caller's append copies rather than writing into the memo.
	edges = slices.Clip(edges)
	p.modules[key] = moduleWalk{edges, t, ok}
	return edges, t, ok
}

func (p *pyProject) walkModuleOnce(base string, parts []string) ([]pyEdge, pyTarget, bool) {
	var edges []pyEdge
	cur := base
	if len(parts) == 0 {
		init := join(cur, "__init__.py")
		if p.files[init] {
			return nil, pyTarget{File: init, Dir: cur}, true
		}
		return nil, pyTarget{Dir: cur}, cur == "." || p.dirs[cur]
	}
	for i, part := range parts {
		mod := join(cur, part+".py")
		pkg := join(cur, part)
		init := join(pkg, "__init__.py")
		last := i == len(parts)-1
		switch {
		case p.files[init] || p.dirs[pkg]:
			if last {
				t := pyTarget{Dir: pkg}
				if p.files[init] {
					t.File = init
				}
				return edges, t, true
			}
			if p.files[init] {
				edges = append(edges, pyEdge{To: init})
			}
			cur = pkg
		case p.files[mod]:
			// Anything after a module is an attribute of it.
			return edges, pyTarget{File: mod}, true
		default:
			return nil, pyTarget{}, false
		}
	}
	return edges, pyTarget{}, false
}

// resolveAbs resolves an absolute module name from file `from`: through
// the configured roots, then the folder pytest puts on sys.path for it
// (the first ancestor without __init__.py).
func (p *pyProject) resolveAbs(from, name string) ([]pyEdge, pyTarget, bool) {
	if name == "" {
		return nil, pyTarget{}, false
	}
	base := p.baseDir(from)
	key := base + "\x00" + name
	if w, ok := p.absolute[key]; ok {
		return w.edges, w.t, w.ok
	}
	parts := strings.Split(name, ".")
	for _, root := range append(p.roots, base) {
		if edges, t, ok := p.walkModule(root, parts); ok {
			p.absolute[key] = moduleWalk{edges, t, true}
			return edges, t, true
		}
	}
	p.absolute[key] = moduleWalk{}
	return nil, pyTarget{}, false
}

// baseDir is the folder pytest's default import mode inserts for a file.
func (p *pyProject) baseDir(file string) string {
	dir := path.Dir(file)
	if d, ok := p.bases[dir]; ok {
		return d
	}
	d := dir
	for d != "." && p.files[join(d, "__init__.py")] {
		d = path.Dir(d)
	}
	p.bases[dir] = d
	return d
}

// resolveImport finds the module or package an import statement names,
// with the package __init__ files passed through on the way.
func (p *pyProject) resolveImport(from string, imp pyImport) ([]pyEdge, pyTarget, bool) {
	if imp.Level == 0 {
		return p.resolveAbs(from, imp.Module)
	}
	base := path.Dir(from)
	for i := 1; i < imp.Level; i++ {
		base = path.Dir(base)
	}
	var parts []string
	if imp.Module != "" {
		parts = strings.Split(imp.Module, ".")
	}
	return p.walkModule(base, parts)
}

// importEdges resolves one import statement of file `from`.
func (p *pyProject) importEdges(from string, imp pyImport) []pyEdge {
	edges, t, ok := p.resolveImport(from, imp)
	if !ok {
		return nil
	}
	if !imp.From {
		if p.attrsOnly(imp) {
			return append(edges, p.attrEdges(from, imp, t)...)
		}
		if t.File != "" {
			edges = append(edges, pyEdge{To: t.File, Deep: true})
		}
		return edges
	}
	if t.Dir == "" {
		return append(edges, pyEdge{To: t.File, Deep: true})
	}
	if t.File != "" {
		edges = append(edges, pyEdge{To: t.File})
	}
	for _, n := range imp.Names {
		edges = append(edges, p.nameEdges(t, n.Name)...)
	}
	return edges
}

// attrsOnly reports whether a plain import's bound name is only read
// through attributes (`nx.shortest_path`), so that the attributes can
// stand for the whole package. Storing it in pytest's doctest_namespace,
// and chains written in strings, count only when doctests are collected;
// a name the file never uses keeps the whole package (it may be imported
// for its side effects).
func (p *pyProject) attrsOnly(imp pyImport) bool {
	if imp.Bind == "" || imp.Escapes || imp.Doctest && p.cfg.DoctestModules {
		return false
	}
	return len(imp.Attrs) > 0 || imp.Doctest || len(imp.DocAttrs) > 0
}

// attrEdges resolves a plain import whose bound name is only read through
// attributes: the imported package's __init__ counts for its own lines,
// and each attribute chain for where it leads. A module imported by name
// still counts whole.
func (p *pyProject) attrEdges(from string, imp pyImport, t pyTarget) []pyEdge {
	var edges []pyEdge
	if t.File != "" {
		edges = append(edges, pyEdge{To: t.File, Deep: t.Dir == ""})
	}
	base := imp.Module
	if imp.As == "" {
		base = imp.Bind
	}
	target := t.Dir
	if target == "" {
		target = t.File
	}
	_, bt, ok := p.resolveAbs(from, base)
	if !ok || bt.Dir == "" || base != imp.Module && !strings.HasPrefix(target, bt.Dir+"/") {
		// `import a.b` where a resolves elsewhere than a.b: all of a.b.
		if t.File != "" {
			edges = append(edges, pyEdge{To: t.File, Deep: true})
		}
		return edges
	}
	for _, a := range imp.Attrs {
		edges = append(edges, p.chainEdges(bt, strings.Split(a, "."), true)...)
	}
	for _, a := range imp.DocAttrs {
		if !p.cfg.DoctestModules {
			break
		}
		edges = append(edges, p.chainEdges(bt, strings.Split(a, "."), false)...)
	}
	return edges
}

// chainEdges resolves `pkg.a.b.name` read on package t: through the
// subpackages and submodules the chain names, then the first other name
// as `from package import name` would. A chain that ends on a package
// uses all of it when whole is set.
func (p *pyProject) chainEdges(t pyTarget, chain []string, whole bool) []pyEdge {
	var edges []pyEdge
	for _, name := range chain {
		sub, st, ok := p.walkModule(t.Dir, []string{name})
		if !ok && t.File != "" {
			// A package the __init__ re-exports (`nx.bipartite`).
			var via []pyEdge
			via, st, ok = p.exportedModuleOf(t.File, name)
			edges = append(edges, via...)
		}
		if !ok {
			if t.File == "" {
				return edges
			}
			return append(edges, p.exportEdges(t.File, name)...)
		}
		edges = append(edges, sub...)
		if st.Dir == "" {
			return append(edges, pyEdge{To: st.File, Deep: true})
		}
		if st.File != "" {
			edges = append(edges, pyEdge{To: st.File})
		}
		t = st
	}
	if whole && t.File != "" {
		edges = append(edges, pyEdge{To: t.File, Deep: true})
	}
	return edges
}

// exportedModuleOf is exportedModule from a fresh start, remembered.
func (p *pyProject) exportedModuleOf(init, name string) ([]pyEdge, pyTarget, bool) {
	key := init + "\x00" + name
	if w, ok := p.exported[key]; ok {
		return w.edges, w.t, w.ok
	}
	edges, t, ok := p.exportedModule(init, name, map[string]bool{})
	edges = slices.Clip(edges)
	p.exported[key] = moduleWalk{edges, t, ok}
	return edges, t, ok
}

// exportedModule finds the module or package that init binds name to
// with a from-import of a submodule (`from pkg.algorithms import
// bipartite`), directly or through star imports, with the __init__
// files passed through.
func (p *pyProject) exportedModule(init, name string, seen map[string]bool) ([]pyEdge, pyTarget, bool) {
	if seen[init] {
		return nil, pyTarget{}, false
	}
	seen[init] = true
	f := p.parsed(init)
	if f.Nested[name] || f.Dynamic {
		return nil, pyTarget{}, false
	}
	for _, imp := range f.Imports {
		if !imp.Top || !imp.From {
			continue
		}
		for _, n := range imp.Names {
			if n.As != name || n.Name == "*" {
				continue
			}
			if via, t, ok := p.resolveImport(init, imp); ok && t.Dir != "" {
				if sub, st, ok := p.walkModule(t.Dir, []string{n.Name}); ok {
					via = append(append(via, pyEdge{To: init}), sub...)
					if t.File != "" {
						via = append(via, pyEdge{To: t.File})
					}
					return via, st, true
				}
			}
			return nil, pyTarget{}, false
		}
	}
	if f.Defined[name] {
		return nil, pyTarget{}, false
	}
	for _, imp := range f.Imports {
		if !imp.Top || !imp.From || len(imp.Names) != 1 || imp.Names[0].Name != "*" {
			continue
		}
		if via, t, ok := p.resolveImport(init, imp); ok && t.File != "" && p.parsed(t.File).starExports(name) {
			if sub, st, ok := p.exportedModule(t.File, name, seen); ok {
				return append(via, sub...), st, true
			}
		}
	}
	return nil, pyTarget{}, false
}

// nameEdges resolves `from pkg import name`: a submodule, or the module
// that defines the name the package re-exports.
func (p *pyProject) nameEdges(t pyTarget, name string) []pyEdge {
	if name == "*" {
		if t.File == "" {
			return nil
		}
		return []pyEdge{{To: t.File, Deep: true}}
	}
	if sub, st, ok := p.walkModule(t.Dir, []string{name}); ok {
		if st.File != "" {
			return append(sub, pyEdge{To: st.File, Deep: true})
		}
		return sub
	}
	if t.File == "" {
		return nil
	}
	return p.exportEdges(t.File, name)
}

// exportEdges finds where a package __init__ gets name from. When it
// cannot tell (the name is defined in the __init__ itself, or comes from
// a __getattr__), the whole __init__ counts.
func (p *pyProject) exportEdges(init, name string) []pyEdge {
	switch edges, st := p.findExport(init, name); st {
	case exportFound:
		return edges
	case exportCycle:
		// An outer lookup of the same name is under way and covers it.
		return nil
	}
	return []pyEdge{{To: init, Deep: true}}
}

const (
	exportAbsent = iota
	exportFound
	exportCycle
)

// findExport finds where file's module-level name comes from: the
// imports that bind it, the file itself when it defines it, or else every
// star import (followed to any depth, cycles cut) whose source exports it.
func (p *pyProject) findExport(file, name string) ([]pyEdge, int) {
	key := file + "\x00" + name
	if r, ok := p.exports[key]; ok {
		return r.edges, r.state
	}
	if p.exporting[key] {
		p.cycleCut++
		return nil, exportCycle
	}
	p.exporting[key] = true
	cuts := p.cycleCut
	edges, state := p.findExportOnce(file, name)
	edges = slices.Clip(edges)
	delete(p.exporting, key)
	if p.cycleCut == cuts {
		p.exports[key] = exportResult{edges, state}
	}
	return edges, state
}

func (p *pyProject) findExportOnce(file, name string) ([]pyEdge, int) {
	f := p.parsed(file)
	// Imports that bind the name; those below module level (`if
	// TYPE_CHECKING:`, try/except) may each be the source.
	var edges []pyEdge
	found, top := false, false
	for _, imp := range f.Imports {
		if e, ok := p.bindingEdges(file, imp, name); ok {
			edges, found = append(edges, e...), true
			top = top || imp.Top
		}
	}
	if top {
		return uniqueEdges(edges), exportFound
	}
	if f.Defined[name] || f.Nested[name] || f.Dynamic {
		return append(edges, pyEdge{To: file, Deep: true}), exportFound
	}
	for _, imp := range f.Imports {
		if !imp.Top || !imp.From || len(imp.Names) != 1 || imp.Names[0].Name != "*" {
			continue
		}
		via, t, ok := p.resolveImport(file, imp)
		if !ok || t.File == "" || !p.parsed(t.File).starExports(name) {
			continue
		}
		sub, st := p.findExport(t.File, name)
		if st != exportFound {
			continue
		}
		found = true
		edges = append(edges, via...)
		if t.Dir != "" {
			edges = append(edges, pyEdge{To: t.File})
		}
		edges = append(edges, sub...)
	}
	if !found {
		return nil, exportAbsent
	}
	return uniqueEdges(edges), exportFound
}

// bindingEdges resolves imp when it binds name.
func (p *pyProject) bindingEdges(file string, imp pyImport, name string) ([]pyEdge, bool) {
	if !imp.From {
		if imp.Bind != name {
			return nil, false
		}
		imp.Bind = ""
		return p.importEdges(file, imp), true
	}
	for _, n := range imp.Names {
		if n.As == name && n.Name != "*" {
			imp.Names = []pyName{n}
			return p.importEdges(file, imp), true
		}
	}
	return nil, false
}

// uniqueEdges drops repeated edges, keeping the first of each.
func uniqueEdges(edges []pyEdge) []pyEdge {
	seen := map[pyEdge]bool{}
	out := edges[:0:0]
	for _, e := range edges {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

// fileEdges lists every dependency of one file: its imports, pytest
// plugins, and the hidden ones (scripts it runs, modules it loads by name).
func (p *pyProject) fileEdges(rel string) []pyEdge {
	if e, ok := p.edges[rel]; ok {
		return e
	}
	p.edges[rel] = nil // cycles
	f := p.parsed(rel)
	var edges []pyEdge
	for _, imp := range f.Imports {
		edges = append(edges, p.importEdges(rel, imp)...)
	}
	for _, plug := range f.Plugins {
		edges = append(edges, p.importEdges(rel, pyImport{Module: plug})...)
	}
	edges = append(edges, p.hiddenEdges(rel, f)...)
	p.edges[rel] = edges
	return edges
}

const (
	hiddenSubprocess = "runs project code in a subprocess"
	hiddenDynamic    = "loads modules by name"
	hiddenSyntax     = "does not parse"
)

// hiddenEdges are dependencies no import shows. A file that starts
// processes depends on the scripts and modules it names; if it runs
// sys.executable with nothing we can resolve, on every module. A file
// that imports by computed name depends on every module of its top-level
// package.
func (p *pyProject) hiddenEdges(rel string, f *pyFile) []pyEdge {
	var edges []pyEdge
	add := func(to string, deep bool) {
		edges = append(edges, pyEdge{To: to, Deep: deep, Hidden: hiddenSubprocess})
	}
	if f.Subprocess {
		resolved := false
		for _, s := range f.Scripts {
			if t := p.findScript(rel, s); t != "" {
				add(t, true)
				resolved = true
			}
		}
		for _, m := range f.ModuleRuns {
			for _, e := range p.importEdges(rel, pyImport{Module: m}) {
				add(e.To, e.Deep)
				resolved = true
			}
		}
		for _, s := range f.Strings {
			if mod, ok := p.cfg.Scripts[s]; ok {
				for _, e := range p.importEdges(rel, pyImport{Module: mod}) {
					add(e.To, e.Deep)
					resolved = true
				}
			}
		}
		if f.SysExecutable && !resolved {
			for _, all := range p.sortedFiles("") {
				add(all, true)
			}
		}
	}
	if f.Dynamic {
		top := ""
		if d := path.Dir(rel); d != "." && p.files[join(d, "__init__.py")] {
			top = d
			for p.files[join(path.Dir(top), "__init__.py")] {
				top = path.Dir(top)
			}
		}
		why := hiddenDynamic
		if f.SyntaxError {
			why = hiddenSyntax
		}
		for _, t := range p.sortedFiles(top) {
			if t != rel {
				edges = append(edges, pyEdge{To: t, Deep: true, Hidden: why})
			}
		}
	}
	return edges
}

// findScript resolves a script literal against the project root and the
// file's folder.
func (p *pyProject) findScript(from, s string) string {
	s = filepath.ToSlash(s)
	for _, base := range []string{".", path.Dir(from)} {
		if t := path.Clean(join(base, s)); p.files[t] {
			return t
		}
	}
	return ""
}

// sortedFiles lists the project's files under dir ("" for all).
func (p *pyProject) sortedFiles(dir string) []string {
	var out []string
	for f := range p.files {
		if dir == "" || strings.HasPrefix(f, dir+"/") {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// pyReach is what one test file depends on.
type pyReach struct {
	// Files reached through imports only.
	Plain map[string]bool
	// All adds files reached through hidden dependencies, with why.
	All map[string]string
}

// reach walks the graph from a test file and its conftest.py files.
func (p *pyProject) reach(test string) pyReach {
	r := pyReach{Plain: map[string]bool{}, All: map[string]string{}}
	start := []pyEdge{{To: test, Deep: true}}
	if p.cfg.DoctestModules {
		// Its doctests run too, with what they import.
		for _, imp := range p.parsed(test).DocImports {
			start = append(start, p.importEdges(test, imp)...)
		}
	}
	for d := path.Dir(test); ; d = path.Dir(d) {
		if c := join(d, "conftest.py"); p.files[c] {
			start = append(start, pyEdge{To: c, Deep: true})
		}
		if d == "." {
			break
		}
	}
	p.walk(start, false, func(f string, _ string) { r.Plain[f] = true })
	p.walk(start, true, func(f string, why string) {
		if !r.Plain[f] {
			r.All[f] = why
		} else {
			r.All[f] = ""
		}
	})
	return r
}

// walk visits every file reachable from start; hidden edges are followed
// only when withHidden is set, and visit gets the reason of the first
// hidden edge on the way.
func (p *pyProject) walk(start []pyEdge, withHidden bool, visit func(file, why string)) {
	type item struct {
		e   pyEdge
		why string
	}
	deep := map[string]bool{}
	seen := map[string]bool{}
	effected := map[string]bool{}
	queue := make([]item, 0, len(start))
	for _, e := range start {
		queue = append(queue, item{e, e.Hidden})
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if !seen[it.e.To] {
			seen[it.e.To] = true
			visit(it.e.To, it.why)
		}
		if !it.e.Deep {
			// A package __init__ passed through counts for its own lines,
			// and for the modules it runs that change others' state.
			if !effected[it.e.To] {
				effected[it.e.To] = true
				for _, e := range p.effectEdges(it.e.To) {
					queue = append(queue, item{e, it.why})
				}
			}
			continue
		}
		if deep[it.e.To] {
			continue
		}
		deep[it.e.To] = true
		for _, e := range p.fileEdges(it.e.To) {
			if e.Hidden != "" && !withHidden {
				continue
			}
			why := it.why
			if why == "" {
				why = e.Hidden
			}
			queue = append(queue, item{e, why})
		}
	}
}
