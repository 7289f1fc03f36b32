package selecttest

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// pyNodes is the outcome of narrowing selected pytest files to the test
// functions that can reach the change.
type pyNodes struct {
	// targets are node ids (tests/t.py::test_a, tests/t.py::TestK::test_m)
	// and whole files, in order; nil when the files stay as they are.
	targets []string
	// why says why no narrowing was done at all, or, by file, why that
	// file runs whole.
	why   string
	whole map[string]string
}

// narrowToNodes narrows the selected test files to the test functions
// and methods whose names can reach a changed top-level name, when the
// change lies only in bodies of top-level defs and methods and nothing
// pytest runs by itself (fixtures, hooks, module-level code) reaches it.
// base reads a file as the change's base has it.
func (p *pyProject) narrowToNodes(base func(string) ([]byte, error), changed, files []string, isTest, added map[string]bool, widened map[string]string) pyNodes {
	if base == nil {
		return pyNodes{why: "the base version is unknown"}
	}
	if p.cfg.DoctestModules {
		return pyNodes{why: "doctests of modules are collected"}
	}
	if !defaultNames(p.cfg.PythonFunctions, "test") || !defaultNames(p.cfg.PythonClasses, "Test") {
		return pyNodes{why: "python_functions or python_classes is configured"}
	}
	g := newPyNames(p)
	var start []string
	for _, f := range changed {
		switch {
		case isTest[f] || path.Base(f) == "conftest.py":
			return pyNodes{why: f + " is a test file"}
		case added[f] || !strings.HasSuffix(f, ".py"):
			return pyNodes{why: f + " is new"}
		}
		old, err := base(f)
		cur, err2 := readFileString(p.dir, f)
		if err != nil || err2 != nil {
			return pyNodes{why: f + " is new or deleted"}
		}
		ch := diffUnits(string(old), cur)
		if ch.why != "" {
			return pyNodes{why: f + ": " + ch.why}
		}
		if len(ch.names) == 0 {
			return pyNodes{why: f + ": no def body changed"}
		}
		for _, n := range ch.names {
			start = append(start, nodeKey(f, n))
		}
	}
	// The graph covers every file the selected tests import, and every
	// file their names lead to. (A file selected through a hidden
	// dependency runs whole: what it runs out of sight is not parsed.)
	scope := map[string]bool{}
	reaches := map[string]pyReach{}
	for _, f := range files {
		reaches[f] = p.reach(f)
		if widened[f] != "" {
			continue
		}
		for r := range reaches[f].All {
			scope[r] = true
		}
	}
	for _, f := range changed {
		scope[f] = true
	}
	g.build(sortedKeys(scope))
	// A name that reaches the change by its visible edges and is handed
	// out of sight at import time may run in any test that imports its
	// module: those files run whole. (One that loads code by name but
	// reaches the change by no visible edge is run by the tests that name
	// it, which are selected below.)
	escaped := map[string]string{}
	for _, k := range sortedKeys(g.reaching(start, false)) {
		if why, ok := g.escaped[k]; ok && escaped[nodeFile(k)] == "" {
			escaped[nodeFile(k)] = nodeFile(k) + ": " + nodeName(k) + " may run out of sight (" + why + ")"
		}
	}
	reach := g.reaching(start, true)
	out := pyNodes{whole: map[string]string{}}
	reached, narrower := false, false
	for _, f := range files {
		why := ""
		switch {
		case !strings.HasSuffix(f, ".py") || !isTest[f]:
			why = "not a test module"
		case widened[f] != "":
			why = "it " + widened[f]
		default:
			why = p.conftestReaches(g, f, reach)
		}
		if why == "" && len(escaped) > 0 {
			for _, r := range sortedKeys(reaches[f].Plain) {
				if e := escaped[r]; e != "" {
					why = e
					break
				}
			}
		}
		if why != "" {
			out.whole[f] = why
			out.targets = append(out.targets, f)
			continue
		}
		ids, why := testItems(g, f, reach)
		switch {
		case why != "":
			out.whole[f] = why
			out.targets = append(out.targets, f)
		case ids == nil:
			// Nothing in it can reach the change.
			narrower = true
		default:
			reached = true
			narrower = narrower || len(ids) > 1 || ids[0] != f
			out.targets = append(out.targets, ids...)
		}
	}
	switch {
	case !reached && len(out.whole) == 0:
		return pyNodes{why: "no test function reaches the changed names"}
	case !narrower:
		return pyNodes{why: "every selected test can reach the change", whole: out.whole}
	}
	return out
}

// defaultNames reports whether a python_functions/python_classes option
// is unset or pytest's default.
func defaultNames(v []string, def string) bool {
	return len(v) == 0 || len(v) == 1 && v[0] == def
}

func readFileString(dir, rel string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	return string(data), err
}

// conftestReaches says why a test file runs whole when a conftest.py it
// sees has a name that reaches the change (a fixture, a hook, its
// module-level code).
func (p *pyProject) conftestReaches(g *pyNames, test string, reach map[string]bool) string {
	for d := path.Dir(test); ; d = path.Dir(d) {
		if c := join(d, "conftest.py"); p.files[c] {
			for _, ns := range unitNodes(g.unitsOf(c)) {
				for _, n := range ns {
					if reach[nodeKey(c, n)] {
						return c + " uses the change (" + n + ")"
					}
				}
			}
		}
		if d == "." {
			return ""
		}
	}
}

// testItems lists the node ids of test's tests that can reach the change:
// top-level test functions, methods of plain Test classes (with what the
// class's other members and header mention), and Test classes with bases
// as a whole. why is set when the file must run whole.
func testItems(g *pyNames, test string, reach map[string]bool) (ids []string, why string) {
	units := g.unitsOf(test)
	nodes := unitNodes(units)
	all, picked := 0, 0
	for i := range units {
		u := &units[i]
		key := ""
		if len(nodes[i]) > 0 {
			key = nodeKey(test, nodes[i][0])
		}
		hit := false
		for _, n := range nodes[i] {
			hit = hit || reach[nodeKey(test, n)]
		}
		switch u.kind {
		case 'o':
			if isImportStmt(u) {
				if slices.ContainsFunc(u.head, func(t pyTok) bool { return t.text == "*" }) {
					return nil, "it star-imports"
				}
				continue
			}
			for _, n := range nodes[i] {
				if strings.HasPrefix(n, "test") || strings.HasPrefix(n, "Test") {
					return nil, "it binds " + n + " by assignment"
				}
			}
			if hit {
				return nil, "its module-level code uses the change"
			}
		case 'd':
			if isFixtureOrHook(u) {
				if hit {
					return nil, "fixture or hook " + u.name + " uses the change"
				}
				continue
			}
			if !strings.HasPrefix(u.name, "test") {
				continue
			}
			all++
			if hit {
				picked++
				ids = appendNew(ids, test+"::"+u.name)
			}
		case 'c':
			c, n, why := classItems(g, test, u, reach[key])
			if why != "" {
				return nil, why
			}
			all += n
			picked += len(c)
			for _, id := range c {
				ids = appendNew(ids, test+"::"+id)
			}
		}
	}
	if picked > 0 && picked == all {
		return []string{test}, ""
	}
	return ids, ""
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// classItems selects within one class of a test module: n counts its
// tests. A class pytest may not collect as written (no Test prefix, an
// __init__) selects nothing unless it reaches the change and may hold
// tests another way (bases), which runs the file whole.
func classItems(g *pyNames, test string, u *pyUnit, hit bool) (ids []string, n int, why string) {
	bases := classHasBases(u.head)
	if !strings.HasPrefix(u.name, "Test") || slices.ContainsFunc(u.members, func(m pyMember) bool { return m.name == "__init__" }) {
		if hit && bases {
			return nil, 0, "class " + u.name + " may hold tests and uses the change"
		}
		return nil, 0, ""
	}
	nested := slices.ContainsFunc(u.members, func(m pyMember) bool { return !m.method && m.name != "" })
	if bases || nested {
		// Tests may come from the bases or nested classes: the class runs whole.
		if hit {
			return []string{u.name}, 1, ""
		}
		return nil, 1, ""
	}
	if !hit {
		for _, m := range u.members {
			if m.method && strings.HasPrefix(m.name, "test") {
				n++
			}
		}
		return nil, n, ""
	}
	// What every method may use: the class line and the members pytest or
	// the methods call without naming them (fixtures, setup, helpers via
	// self, attributes).
	shared := [][]pyTok{u.head[2:]} // not the class's own name
	shared = append(shared, u.decorators...)
	for _, m := range u.members {
		if !(m.method && strings.HasPrefix(m.name, "test")) {
			shared = append(shared, m.tokens()...)
		}
	}
	sharedRefs, dyn := g.refs(test, shared)
	sharedHit := dyn || slices.ContainsFunc(sharedRefs, func(r string) bool { return g.reachesKey(r) })
	for _, m := range u.members {
		if !m.method || !strings.HasPrefix(m.name, "test") {
			continue
		}
		n++
		refs, dyn := g.refs(test, m.tokens())
		if sharedHit || dyn || slices.ContainsFunc(refs, func(r string) bool { return g.reachesKey(r) }) {
			ids = appendNew(ids, u.name+"::"+m.name)
		}
	}
	return ids, n, ""
}

// classHasBases reports whether a class line names bases other than
// object (or a metaclass).
func classHasBases(head []pyTok) bool {
	open := slices.IndexFunc(head, func(t pyTok) bool { return t.text == "(" })
	if open < 0 {
		return false
	}
	for _, t := range head[open+1:] {
		if t.kind == 'n' && t.text != "object" {
			return true
		}
	}
	return false
}
