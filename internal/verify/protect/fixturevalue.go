package protect

import (
	"fmt"
	"strings"
)

// pyLiteralKinds are tree-sitter-python nodes that are plain values.
var pyLiteralKinds = map[string]bool{"integer": true, "float": true, "string": true, "true": true, "false": true,
	"none": true, "list": true, "tuple": true, "dictionary": true, "set": true, "pair": true, "unary_operator": true,
	"string_start": true, "string_content": true, "string_end": true, "escape_sequence": true, "parenthesized_expression": true}

// fixtureValue returns the literal a pytest fixture returns ("3",
// "[1, 2]"), or "" when def is not a fixture or returns something else.
func fixtureValue(st *node, src []byte) string {
	if st.kind != "decorated_definition" || !strings.Contains(st.text(src), "fixture") {
		return ""
	}
	def := st.child("definition")
	if def == nil || def.kind != "function_definition" {
		return ""
	}
	body := def.child("body")
	if body == nil {
		return ""
	}
	stmts := body.namedChildren()
	if len(stmts) == 0 || stmts[len(stmts)-1].kind != "return_statement" {
		return ""
	}
	ret := stmts[len(stmts)-1].namedChildren()
	if len(ret) != 1 || !isPyLiteralTree(ret[0]) {
		return ""
	}
	return strings.Join(strings.Fields(ret[0].text(src)), " ")
}

func isPyLiteralTree(n *node) bool {
	ok := true
	n.walk(func(c *node) bool {
		if c.named && !pyLiteralKinds[c.kind] {
			ok = false
		}
		return ok
	})
	return ok
}

// fixtureValueChanged reports a conftest fixture that returned one literal
// and now returns another: the expected value of every test using it.
func fixtureValueChanged(p, name string, old, cur pyDef) []Violation {
	if old.value == "" || cur.value == "" || old.value == cur.value {
		return nil
	}
	return []Violation{{File: p, Test: "fixture " + name, Line: cur.line, Kind: ExpectedChanged,
		Before: "return " + old.value, After: "return " + cur.value,
		Message: fmt.Sprintf("conftest fixture %s returns a different value to the tests that use it; %s", name, Instruction)}}
}
