package selecttest

import (
	"slices"
	"strings"
)

// pyUnit is one top-level statement of a Python file with everything
// below it: a def or a class (with its decorators), or any other
// statement (an assignment, a call, an if or try block).
type pyUnit struct {
	kind byte   // 'd' def, 'c' class, 'o' other
	name string // the def's or class's name; "" for other statements
	// binds are the names an other statement may bind (over-approximated:
	// assignment targets, and every name of a compound block).
	binds []string
	pyBlock
	// members are a class's direct members (its methods and attributes).
	members []pyMember
}

// pyMember is one direct member of a class: a method with its decorators,
// or another statement (a class attribute, a nested class) with all below.
type pyMember struct {
	method bool
	name   string
	pyBlock
}

// pyBlock is one statement at a level with what belongs to it: the
// decorator statements above it, its own line (head) and the statements
// below it.
type pyBlock struct {
	decorators [][]pyTok
	head       []pyTok
	body       []pyStmt
}

// pyBlocks splits statements into the blocks of the level depth: deeper
// statements join the block above them, decorators the block below.
func pyBlocks(stmts []pyStmt, depth int) []pyBlock {
	var out []pyBlock
	var decorators [][]pyTok
	for _, st := range stmts {
		if st.depth > depth {
			if len(out) > 0 && len(decorators) == 0 {
				out[len(out)-1].body = append(out[len(out)-1].body, st)
			}
			continue
		}
		if st.toks[0].text == "@" {
			decorators = append(decorators, st.toks)
			continue
		}
		out = append(out, pyBlock{decorators: decorators, head: st.toks})
		decorators = nil
	}
	return out
}

// tokens returns every token of the block, decorators first.
func (b *pyBlock) tokens() [][]pyTok {
	out := append([][]pyTok(nil), b.decorators...)
	out = append(out, b.head)
	for _, st := range b.body {
		out = append(out, st.toks)
	}
	return out
}

// pyUnits splits a source into top-level units. bad is set when the
// file does not parse.
func pyUnits(src string) (units []pyUnit, bad bool) {
	stmts, bad := pyStatements(src)
	for _, b := range pyBlocks(stmts, 0) {
		u := pyUnit{kind: 'o', pyBlock: b}
		if name, kind := defName(b.head); name != "" {
			u.kind, u.name = kind, name
		}
		units = append(units, u)
	}
	for i := range units {
		u := &units[i]
		switch u.kind {
		case 'c':
			u.members = classMembers(u.body)
		case 'o':
			u.binds = otherBinds(u)
		}
	}
	return units, bad
}

// defName reads `def f`, `async def f` or `class K` at the start of toks.
func defName(toks []pyTok) (string, byte) {
	if len(toks) > 2 && toks[0].text == "async" && toks[1].text == "def" {
		return toks[2].text, 'd'
	}
	if len(toks) > 1 && (toks[0].text == "def" || toks[0].text == "class") && toks[1].kind == 'n' {
		if toks[0].text == "class" {
			return toks[1].text, 'c'
		}
		return toks[1].text, 'd'
	}
	return "", 0
}

// classMembers splits a class body into its direct members.
func classMembers(body []pyStmt) []pyMember {
	if len(body) == 0 {
		return nil
	}
	var out []pyMember
	for _, b := range pyBlocks(body, body[0].depth) {
		m := pyMember{pyBlock: b}
		if name, kind := defName(b.head); kind == 'd' {
			m.method, m.name = true, name
		} else if kind == 'c' {
			m.name = name
		}
		out = append(out, m)
	}
	return out
}

// otherBinds lists the names a non-def statement may bind: the targets of
// a simple assignment, or, for a compound statement (if, try, for, with),
// every name in it, so that a lookup never misses what it defines.
func otherBinds(u *pyUnit) []string {
	set := map[string]bool{}
	if len(u.body) == 0 {
		f := &pyFile{Defined: map[string]bool{}}
		f.assignment(u.head)
		for n := range f.Defined {
			set[n] = true
		}
		for i, t := range u.head {
			// `x += 1`, `x: int`, and `global`-free walrus forms bind too.
			if t.kind == 'n' && i+1 < len(u.head) && u.head[i+1].text == ":" && i+2 < len(u.head) && u.head[i+2].text == "=" {
				set[t.text] = true
			}
		}
	} else {
		for _, toks := range u.tokens() {
			for _, t := range toks {
				if t.kind == 'n' && !pyKeywords[t.text] {
					set[t.text] = true
				}
			}
		}
	}
	return sortedKeys(set)
}

// pyChange is what differs between two versions of a module, when only
// bodies of top-level defs and methods changed: the changed names (a
// class counts as one name for all its methods).
type pyChange struct {
	names []string
	// why says what else changed, when something did ("module-level code
	// changed", "a decorator changed"); names is then empty.
	why string
}

// diffUnits compares the base and current versions of a module.
func diffUnits(base, cur string) pyChange {
	bu, bbad := pyUnits(base)
	cu, cbad := pyUnits(cur)
	if bbad || cbad {
		return pyChange{why: "it does not parse"}
	}
	if len(bu) != len(cu) {
		return pyChange{why: "module-level statements were added or removed"}
	}
	names := map[string]bool{}
	for i := range bu {
		b, c := &bu[i], &cu[i]
		if b.kind != c.kind || b.name != c.name || !sameToks(b.decorators, c.decorators) || !slices.Equal(b.head, c.head) {
			return pyChange{why: "module-level code, a decorator or a signature changed"}
		}
		switch b.kind {
		case 'o':
			if !sameStmts(b.body, c.body) {
				return pyChange{why: "module-level code changed"}
			}
		case 'd':
			if !sameStmts(b.body, c.body) {
				names[b.name] = true
			}
		case 'c':
			if len(b.members) != len(c.members) {
				return pyChange{why: "class " + b.name + " gained or lost a member"}
			}
			for j := range b.members {
				bm, cm := &b.members[j], &c.members[j]
				if bm.method != cm.method || bm.name != cm.name || !sameToks(bm.decorators, cm.decorators) || !slices.Equal(bm.head, cm.head) {
					return pyChange{why: "class " + b.name + " changed outside its method bodies"}
				}
				if !sameStmts(bm.body, cm.body) {
					if !bm.method {
						return pyChange{why: "class " + b.name + " changed outside its method bodies"}
					}
					names[b.name] = true
				}
			}
		}
	}
	return pyChange{names: sortedKeys(names)}
}

func sameToks(a, b [][]pyTok) bool {
	return slices.EqualFunc(a, b, func(x, y []pyTok) bool { return slices.Equal(x, y) })
}

func sameStmts(a, b []pyStmt) bool {
	return slices.EqualFunc(a, b, func(x, y pyStmt) bool { return x.depth == y.depth && slices.Equal(x.toks, y.toks) })
}

// isFixtureOrHook reports whether a test module's def is a fixture, a
// pytest hook or an xunit setup/teardown function: pytest calls these
// without any test naming them.
func isFixtureOrHook(u *pyUnit) bool {
	for _, d := range u.decorators {
		for _, t := range d {
			if t.kind == 'n' && strings.Contains(t.text, "fixture") {
				return true
			}
		}
	}
	switch u.name {
	case "setup_module", "teardown_module", "setup_function", "teardown_function",
		"setUpModule", "tearDownModule", "setup", "teardown":
		return true
	}
	return strings.HasPrefix(u.name, "pytest_")
}
