package selecttest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// pyNames is the name-level graph of a Python project: a node is a
// top-level name of a module (a def, a class, an assigned global, or an
// unnamed module-level statement), and an edge says that running the
// first may run the second's code. It is built from the same statements
// as the import graph and answers one question: which names can reach a
// changed one (see docs/selection.md, "Test functions").
//
// Edges over-approximate what Python may do: a unit reaches every
// project name it mentions (attributes resolved through imported modules,
// not through objects); a class and its bases reach each other (a base
// may find its subclasses); a project decorator reaches what it
// decorates (it may register it); a mutable global reaches every unit
// that mentions it (a registry holds what was put in); an unnamed
// module-level statement joins every name it mentions. What no edge can
// show is recorded instead: a unit that loads code by name (eval,
// importlib, entry points) or runs a process counts as reaching
// everything; a name handed to code outside the project at import time
// (an unknown decorator, `atexit.register(f)`) is escaped.
type pyNames struct {
	p        *pyProject
	units    map[string][]pyUnit
	fwd      map[string]map[string]bool
	escaped  map[string]string // node → why
	dynamic  map[string]bool   // nodes that may reach anything
	mutable  map[string]bool   // globals bound to mutable values
	built    map[string]bool
	reach    map[string]bool // set by reaching
	bindings map[string]*pyBindings
	lookups  map[string][]string
	looking  map[string]bool
	pending  []string
}

func newPyNames(p *pyProject) *pyNames {
	return &pyNames{p: p, units: map[string][]pyUnit{}, fwd: map[string]map[string]bool{},
		escaped: map[string]string{}, dynamic: map[string]bool{}, mutable: map[string]bool{},
		built: map[string]bool{}, bindings: map[string]*pyBindings{}, lookups: map[string][]string{}, looking: map[string]bool{}}
}

// nodeKey names a node: a file's top-level name, "*" for the whole module.
func nodeKey(file, name string) string { return file + "\x00" + name }

func nodeFile(key string) string {
	f, _, _ := strings.Cut(key, "\x00")
	return f
}

func nodeName(key string) string {
	_, n, _ := strings.Cut(key, "\x00")
	return n
}

// pyUnitMemo keeps the files' parsed units (read only, never changed) for
// the process: a session's later selections parse only what changed.
var pyUnitMemo fileMemo[[]pyUnit]

// unitsOf parses a project file's top-level units (nil when it cannot be
// read).
func (g *pyNames) unitsOf(file string) []pyUnit {
	if u, ok := g.units[file]; ok {
		return u
	}
	full := filepath.Join(g.p.dir, filepath.FromSlash(file))
	units := pyUnitMemo.get(full, "units", func() []pyUnit {
		data, err := os.ReadFile(full)
		if err != nil {
			return nil
		}
		units, _ := pyUnits(string(data))
		return units
	})
	g.units[file] = units
	// Mutable globals are known before any edge is drawn: every unit's
	// references consult them.
	for i, ns := range unitNodes(units) {
		if u := &units[i]; u.kind == 'o' && mutableUnit(u) {
			for _, n := range ns {
				g.mutable[nodeKey(file, n)] = true
			}
		}
	}
	if !g.built[file] {
		g.pending = append(g.pending, file)
	}
	return units
}

// unitNodes are the node names of a file's units, in order.
func unitNodes(units []pyUnit) [][]string {
	out := make([][]string, len(units))
	for i := range units {
		u := &units[i]
		switch {
		case u.kind != 'o':
			out[i] = []string{u.name}
		case isImportStmt(u):
			out[i] = nil
		case len(u.binds) > 0:
			out[i] = u.binds
		default:
			out[i] = []string{"#" + strconv.Itoa(i)}
		}
	}
	return out
}

func isImportStmt(u *pyUnit) bool {
	return u.kind == 'o' && len(u.body) == 0 && (u.head[0].text == "import" || u.head[0].text == "from")
}

func (g *pyNames) edge(from, to string) {
	if from == to {
		return
	}
	m := g.fwd[from]
	if m == nil {
		m = map[string]bool{}
		g.fwd[from] = m
	}
	m[to] = true
}

// build adds the edges of every file given and of every file their
// names lead to.
func (g *pyNames) build(files []string) {
	for _, f := range files {
		g.unitsOf(f)
	}
	for len(g.pending) > 0 {
		f := g.pending[0]
		g.pending = g.pending[1:]
		if !g.built[f] {
			g.built[f] = true
			g.buildFile(f)
		}
	}
}

// buildFile adds the edges of one file's units.
func (g *pyNames) buildFile(file string) {
	units := g.unitsOf(file)
	nodes := unitNodes(units)
	for i := range units {
		u := &units[i]
		if len(nodes[i]) == 0 {
			continue
		}
		keys := make([]string, len(nodes[i]))
		for j, n := range nodes[i] {
			keys[j] = nodeKey(file, n)
		}
		refs, dyn := g.refs(file, u.tokens())
		for _, k := range keys {
			if dyn {
				g.dynamic[k] = true
			}
			for _, r := range refs {
				g.edge(k, r)
				if g.mutable[r] {
					g.edge(r, k)
				}
			}
		}
		switch u.kind {
		case 'c':
			// A class and its bases (and metaclass) reach each other.
			head, _ := g.refs(file, [][]pyTok{u.head})
			for _, r := range head {
				g.edge(r, keys[0])
			}
			for _, m := range u.members {
				g.decorated(file, m.decorators, keys[0])
			}
			g.decorated(file, u.decorators, keys[0])
		case 'd':
			g.decorated(file, u.decorators, keys[0])
		case 'o':
			if nodeName(keys[0])[0] == '#' {
				g.unnamed(file, u, keys[0], refs)
			}
		}
	}
}

// decorated records what a decorator may do with the def it decorates:
// a project decorator reaches it; an unknown outside one escapes it.
func (g *pyNames) decorated(file string, decorators [][]pyTok, key string) {
	for _, d := range decorators {
		refs, _ := g.refs(file, [][]pyTok{d})
		for _, r := range refs {
			g.edge(r, key)
		}
		first := ""
		if len(d) > 1 && d[1].kind == 'n' {
			first = d[1].text
		}
		// `@x.setter` on a method names the property above it.
		accessor := len(d) == 4 && d[2].text == "." && (d[3].text == "setter" || d[3].text == "getter" || d[3].text == "deleter")
		if len(refs) == 0 && !pureDecorators[first] && !accessor {
			g.escaped[key] = "decorated with @" + first
		}
	}
}

// pureDecorators are outside decorators known not to keep what they
// decorate anywhere a test could reach it another way.
var pureDecorators = map[string]bool{
	"property": true, "staticmethod": true, "classmethod": true, "abstractmethod": true, "abc": true,
	"functools": true, "wraps": true, "lru_cache": true, "cache": true, "cached_property": true,
	"total_ordering": true, "singledispatch": true, "singledispatchmethod": true, "overload": true,
	"t": true, "typing": true, "typing_extensions": true, "te": true, "final": true, "override": true,
	"contextmanager": true, "asynccontextmanager": true, "contextlib": true, "dataclass": true,
	"dataclasses": true, "no_type_check": true, "runtime_checkable": true, "deprecated": true,
	"pytest": true, "unittest": true, "enum": true, "unique": true, "abstractproperty": true,
	"reprlib": true, "recursive_repr": true, "coroutine": true, "types": true, "warnings": true,
}

// unnamed handles a module-level statement that binds nothing
// (`register(K)`, `REG["k"] = K`): its names are joined both ways, and
// when it acts on something outside the project, what it mentions escapes.
func (g *pyNames) unnamed(file string, u *pyUnit, key string, refs []string) {
	for _, r := range refs {
		g.edge(r, key)
	}
	if len(refs) == 0 || u.head[0].kind != 'n' || pyKeywords[u.head[0].text] || u.head[0].text == "__all__" {
		return
	}
	first, _ := g.refs(file, [][]pyTok{u.head[:1]})
	if len(first) > 0 || u.head[0].text == "if" || u.head[0].text == "try" {
		return
	}
	for _, r := range refs {
		if _, ok := g.escaped[r]; !ok {
			g.escaped[r] = "module-level code hands it to " + u.head[0].text
		}
	}
}

// mutableUnit reports whether a module-level statement may bind a
// mutable value: a list, dict or set display, or a call's result.
func mutableUnit(u *pyUnit) bool {
	for _, toks := range u.tokens() {
		for i, t := range toks {
			if t.kind == 'o' && (t.text == "[" || t.text == "{") {
				return true
			}
			if t.kind == 'o' && t.text == "(" && i > 0 && toks[i-1].kind == 'n' && !pyKeywords[toks[i-1].text] {
				return true
			}
		}
	}
	return false
}

// dynamicNames are names whose use means code is found by name or run
// out of sight: the unit using them may reach anything.
var dynamicNames = map[string]bool{
	"eval": true, "exec": true, "import_module": true, "__import__": true, "entry_points": true,
	"iter_entry_points": true, "load_entry_point": true, "subprocess": true, "runpy": true,
	"multiprocessing": true, "Popen": true, "pexpect": true, "pickle": true, "marshal": true,
	"executable": true, "system": true, "execv": true, "execvp": true, "spawnv": true, "find_spec": true,
	"spec_from_file_location": true, "exec_module": true, "load_module": true,
}

// refs resolves the project names the tokens mention; dyn is set when
// they load code by name or start processes.
func (g *pyNames) refs(file string, stmts [][]pyTok) (out []string, dyn bool) {
	seen := map[string]bool{}
	add := func(keys []string) {
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	for _, toks := range stmts {
		for i, t := range toks {
			if t.kind != 'n' {
				continue
			}
			if dynamicNames[t.text] {
				dyn = true
			}
			if t.text == "globals" || t.text == "modules" && i > 1 && toks[i-2].text == "sys" {
				// globals()[name], sys.modules[__name__]: any name here.
				add([]string{g.star(file)})
			}
			if i > 0 && toks[i-1].text == "." {
				continue
			}
			if pyKeywords[t.text] {
				continue
			}
			chain := strings.Split(attrChain(toks[i+1:]), ".")
			if chain[0] == "" {
				chain = nil
			}
			add(g.resolve(file, t.text, chain))
		}
	}
	return out, dyn
}

// resolve finds the nodes a name (followed by attribute chain) mentioned
// in file stands for: the file's own top-level names, or what its imports
// bind.
func (g *pyNames) resolve(file, name string, chain []string) []string {
	b := g.bindingsOf(file)
	var out []string
	if b.local[name] {
		out = append(out, nodeKey(file, name))
	}
	for _, imp := range b.imports[name] {
		out = append(out, g.importBinding(file, imp, name, chain)...)
	}
	return out
}

// pyBindings are a file's top-level names and the imports binding each
// name, indexed once: resolve runs for every name token of the project.
type pyBindings struct {
	local   map[string]bool
	imports map[string][]pyImport
}

func (g *pyNames) bindingsOf(file string) *pyBindings {
	if b := g.bindings[file]; b != nil {
		return b
	}
	b := &pyBindings{local: map[string]bool{}, imports: map[string][]pyImport{}}
	for _, ns := range unitNodes(g.unitsOf(file)) {
		for _, n := range ns {
			b.local[n] = true
		}
	}
	for _, imp := range g.p.parsed(file).Imports {
		if !imp.From {
			if imp.Bind != "" {
				b.imports[imp.Bind] = append(b.imports[imp.Bind], imp)
			}
			continue
		}
		for _, n := range imp.Names {
			if n.Name != "*" {
				b.imports[n.As] = append(b.imports[n.As], imp)
			}
		}
	}
	g.bindings[file] = b
	return b
}

// importBinding resolves name through imp when imp binds it.
func (g *pyNames) importBinding(file string, imp pyImport, name string, chain []string) []string {
	if !imp.From {
		if imp.Bind != name {
			return nil
		}
		// `import a.b` binds a; `import a.b as c` binds a.b.
		base := imp.Module
		if imp.As == "" {
			base = name
		}
		_, t, ok := g.p.resolveAbs(file, base)
		if !ok {
			return nil
		}
		return g.chain(t, chain)
	}
	for _, n := range imp.Names {
		if n.As != name || n.Name == "*" {
			continue
		}
		_, t, ok := g.p.resolveImport(file, imp)
		if !ok {
			return nil
		}
		if t.Dir != "" {
			if _, st, ok := g.p.walkModule(t.Dir, []string{n.Name}); ok {
				return g.chain(st, chain)
			}
		}
		if t.File == "" {
			return nil
		}
		return g.lookup(t.File, n.Name)
	}
	return nil
}

// chain resolves attributes read on a module or package.
func (g *pyNames) chain(t pyTarget, chain []string) []string {
	for i, a := range chain {
		if t.Dir != "" {
			if _, st, ok := g.p.walkModule(t.Dir, []string{a}); ok {
				t = st
				continue
			}
		}
		if t.File == "" {
			return nil
		}
		_ = i
		return g.lookup(t.File, a)
	}
	if t.File == "" {
		return nil
	}
	return []string{g.star(t.File)}
}

// lookup finds where a module's top-level name comes from: its own
// units, the imports that bind it, or the star imports that may; the
// whole module when nothing can tell (a __getattr__, a name made at run
// time).
func (g *pyNames) lookup(file, name string) []string {
	key := nodeKey(file, name)
	if r, ok := g.lookups[key]; ok {
		return r
	}
	if g.looking[key] {
		return nil
	}
	g.looking[key] = true
	defer delete(g.looking, key)
	out := g.resolve(file, name, nil)
	if len(out) == 0 {
		f := g.p.parsed(file)
		for _, imp := range f.Imports {
			if !imp.From || len(imp.Names) != 1 || imp.Names[0].Name != "*" {
				continue
			}
			if _, t, ok := g.p.resolveImport(file, imp); ok && t.File != "" && g.p.parsed(t.File).starExports(name) {
				out = append(out, g.lookup(t.File, name)...)
			}
		}
	}
	if len(out) == 0 {
		out = []string{g.star(file)}
	}
	g.lookups[key] = out
	return out
}

// star is the node of a whole module: it reaches every name the module
// has or imports.
func (g *pyNames) star(file string) string {
	key := nodeKey(file, "*")
	if _, ok := g.fwd[key]; ok {
		return key
	}
	g.fwd[key] = map[string]bool{}
	units := g.unitsOf(file)
	for _, ns := range unitNodes(units) {
		for _, n := range ns {
			g.edge(key, nodeKey(file, n))
		}
	}
	f := g.p.parsed(file)
	for _, imp := range f.Imports {
		if imp.From && len(imp.Names) == 1 && imp.Names[0].Name == "*" {
			if _, t, ok := g.p.resolveImport(file, imp); ok && t.File != "" {
				g.edge(key, g.star(t.File))
			}
			continue
		}
		names := []string{imp.Bind}
		if imp.From {
			names = names[:0]
			for _, n := range imp.Names {
				names = append(names, n.As)
			}
		}
		for _, n := range names {
			for _, r := range g.importBinding(file, imp, n, nil) {
				g.edge(key, r)
			}
		}
	}
	return key
}

// reaching returns every node that can reach one of the changed nodes,
// the changed ones included; with dynamic set, the nodes that load code
// by name count as reaching it too.
func (g *pyNames) reaching(changed []string, dynamic bool) map[string]bool {
	rev := map[string][]string{}
	for from, tos := range g.fwd {
		for to := range tos {
			rev[to] = append(rev[to], from)
		}
	}
	seen := map[string]bool{}
	queue := append([]string(nil), changed...)
	if dynamic {
		for k := range g.dynamic {
			queue = append(queue, k)
		}
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if seen[k] {
			continue
		}
		seen[k] = true
		queue = append(queue, rev[k]...)
	}
	g.reach = seen
	return seen
}

// reachesKey reports whether a node can reach the change (after reaching).
func (g *pyNames) reachesKey(k string) bool { return g.reach[k] }
