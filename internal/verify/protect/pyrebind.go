package protect

import "strings"

// pyImported returns the names the module's import statements bind.
func (a *pyAnalyzer) pyImported(root *node) map[string]bool {
	names := map[string]bool{}
	for _, st := range root.children {
		if st.kind != "import_statement" && st.kind != "import_from_statement" {
			continue
		}
		for _, c := range st.namedChildren() {
			if c.field != "name" {
				continue
			}
			switch c.kind {
			case "aliased_import":
				if al := c.child("alias"); al != nil {
					names[al.text(a.src)] = true
				}
			case "dotted_name":
				t := c.text(a.src)
				if st.kind == "import_statement" {
					t, _, _ = strings.Cut(t, ".") // import a.b binds a
				}
				names[t] = true
			}
		}
	}
	return names
}

// rebinds finds a module-level assignment that replaces an imported name
// or one of its attributes (f = lambda x: 3, shop.m5.f5 = stub): added to
// an existing test file, every test in it runs against the stand-in.
func (a *pyAnalyzer) rebinds(st *node, imported map[string]bool) []marker {
	as := st.firstOf("assignment")
	if as == nil {
		return nil
	}
	l := as.child("left")
	if l == nil || (l.kind != "identifier" && l.kind != "attribute") {
		return nil
	}
	left := strings.Join(strings.Fields(l.text(a.src)), "")
	root, _, _ := strings.Cut(left, ".")
	if !imported[root] {
		return nil
	}
	return []marker{{kind: ExpectationInverted, text: "module-level " + left + " = …: an imported name is replaced for every test", line: as.line}}
}
