package protect

import "bytes"

// checkLoadTests reports a unittest load_tests hook that now returns fewer
// tests than discovery found: one added or changed so that it returns a
// suite without its standard tests (an empty TestSuite, a named subset) or
// returns before adding them.
func checkLoadTests(p string, b, a []byte) []Violation {
	if !bytes.Contains(a, []byte("load_tests")) {
		return nil
	}
	bf, af := loadTestsHook(b), loadTestsHook(a)
	if af == nil || af.keeps {
		return nil
	}
	if bf != nil && (!bf.keeps || bf.text == af.text) {
		return nil
	}
	return []Violation{harnessViolation(p, "unittest load_tests now returns fewer tests than discovery found", af.line, "", firstLineOf(af.ret))}
}

type loadTests struct {
	line  int
	text  string
	ret   string // the first return statement
	keeps bool   // the standard tests reach the returned suite
}

// loadTestsHook reads the module-level load_tests function of src.
func loadTestsHook(src []byte) *loadTests {
	if src == nil || !bytes.Contains(src, []byte("load_tests")) {
		return nil
	}
	src = normalizeNewlines(src)
	root, _ := parseTS("python", src)
	if root == nil {
		return nil
	}
	for _, st := range root.children {
		def := st
		if st.kind == "decorated_definition" {
			def = st.child("definition")
		}
		if def == nil || def.kind != "function_definition" || def.child("name") == nil || def.child("name").text(src) != "load_tests" {
			continue
		}
		lt := &loadTests{line: def.line, text: def.text(src)}
		param := "tests"
		if ps := def.child("parameters"); ps != nil {
			if named := ps.namedChildren(); len(named) >= 2 {
				param = named[1].text(src)
			}
		}
		lt.keeps = keepsStandard(def, src, param, lt)
		return lt
	}
	return nil
}

// keepsStandard: the first return mentions the standard-tests parameter,
// or returns a suite the parameter was added to before it.
func keepsStandard(def *node, src []byte, param string, lt *loadTests) bool {
	added := map[string]bool{}
	keeps := false
	done := false
	def.walk(func(n *node) bool {
		if done {
			return false
		}
		switch n.kind {
		case "call":
			f := n.child("function")
			args := n.child("arguments")
			if f != nil && args != nil && f.kind == "attribute" && mentions(args, src, param) {
				if obj := f.child("object"); obj != nil {
					added[obj.text(src)] = true
				}
			}
		case "return_statement":
			done = true
			lt.ret = n.text(src)
			for _, v := range n.namedChildren() {
				keeps = mentions(v, src, param) || added[v.text(src)]
			}
			return false
		}
		return true
	})
	return keeps
}

// mentions reports whether identifier name occurs in n.
func mentions(n *node, src []byte, name string) bool {
	found := false
	n.walk(func(c *node) bool {
		if c.kind == "identifier" && c.text(src) == name {
			found = true
		}
		return !found
	})
	return found
}
