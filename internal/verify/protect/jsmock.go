package protect

import "strings"

// jsMockFns replace a module for every test of the file (they are hoisted).
var jsMockFns = map[string]bool{"jest.mock": true, "jest.doMock": true, "jest.unstable_mockModule": true, "vi.mock": true, "vi.doMock": true}

// moduleMocks finds a module-level jest.mock or vi.mock of one of the
// project's own modules (a relative path): added to an existing test file,
// it lets every test in it pass against a stand-in instead of the code.
func (a *jsAnalyzer) moduleMocks(st *node) []marker {
	var out []marker
	for _, c := range st.namedChildren() {
		if c.kind != "call_expression" {
			continue
		}
		f, args := c.child("function"), c.child("arguments")
		if f == nil || args == nil {
			continue
		}
		fn := strings.Join(strings.Fields(f.text(a.src)), "")
		if !jsMockFns[fn] {
			continue
		}
		list := args.namedChildren()
		if len(list) == 0 || (list[0].kind != "string" && list[0].kind != "template_string") {
			continue
		}
		p := strings.Trim(list[0].text(a.src), "'\"`")
		if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
			out = append(out, marker{kind: ExpectationInverted, text: fn + "(" + p + "): the project's own module is replaced by a mock", line: c.line})
		}
	}
	return out
}
