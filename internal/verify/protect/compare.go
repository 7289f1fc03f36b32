package protect

import (
	"fmt"
	"strings"
)

// compareTest reports how one test that exists in both trees changed.
func compareTest(p string, bm, am *fileModel, bt, at *testCase) []Violation {
	var out []Violation
	seen := map[Kind]bool{}
	add := func(k Kind, line int, before, after, msg string) {
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, Violation{File: p, Test: at.name, Line: line, Kind: k, Before: before, After: after, Message: msg})
	}
	for _, mk := range addedMarkersIn(bm, am, bt, at) {
		before := "" // a marker inherited from a class, suite or module
		if mk.line >= at.line && mk.line <= at.end {
			before = bm.line(bt.line)
		}
		add(mk.kind, mk.line, before, am.line(mk.line), markerMessage(mk)+"; "+Instruction)
	}
	if gone, extra := rowDiff(bt.rows, at.rows); len(gone) > 0 {
		after := ""
		line := at.line
		if len(extra) > 0 {
			after, line = am.line(extra[0].line), extra[0].line
		}
		add(TableRowsChanged, line, bm.line(gone[0].line), after,
			fmt.Sprintf("%d table row(s) removed or changed; %s", len(gone), Instruction))
	}
	compareAsserts(bm, am, bt, at, add)
	if len(out) > 0 {
		return out
	}
	if onlySubtestsAdded(bt, at) {
		return nil // new subtests are new tests
	}
	bl, al := diffLine(bm, bt, am, at)
	if strengthened(bt, at) {
		// Only lines were added: nothing of the old test to show.
		add(TestStrengthened, al, "", am.line(al),
			"test strengthened (only assertions, rows or un-skips added); editing an existing test still needs the user's --allow-test-edits")
		return out
	}
	add(BodyChanged, al, bm.line(bl), am.line(al), "test body changed; "+Instruction)
	return out
}

type addFunc func(k Kind, line int, before, after, msg string)

func compareAsserts(bm, am *fileModel, bt, at *testCase, add addFunc) {
	key := func(a assertion) string { return fmt.Sprintf("%d|%s", a.guards, a.text) }
	count := map[string]int{}
	for _, a := range at.asserts {
		count[key(a)]++
	}
	var gone []assertion
	for _, a := range bt.asserts {
		if count[key(a)] > 0 {
			count[key(a)]--
			continue
		}
		gone = append(gone, a)
	}
	extra := unmatched(bt.asserts, at.asserts, key)
	used := make([]bool, len(extra))
	for _, r := range gone {
		i := pairAssert(r, extra, used)
		if i < 0 {
			add(AssertionRemoved, at.line, bm.line(r.line), "", "assertion removed; "+Instruction)
			continue
		}
		used[i] = true
		a := extra[i]
		before, after := bm.line(r.line), am.line(a.line)
		switch {
		case a.guards > r.guards:
			add(ExpectationInverted, a.line, before, after, "assertion wrapped in a condition or try block, so it may never fail; "+Instruction)
		case a.strength < r.strength:
			add(AssertionLoosened, a.line, before, after, "assertion loosened from an exact check to a weaker one; "+Instruction)
		case a.fn == r.fn && a.subject == r.subject && a.expected != r.expected:
			add(ExpectedChanged, a.line, before, after, "expected value changed; "+Instruction)
		case a.fn != r.fn && a.strength == r.strength && a.subject == r.subject:
			add(BodyChanged, a.line, before, after, "assertion replaced by a different check of the same strength; "+Instruction)
		default:
			add(BodyChanged, a.line, before, after, "assertion changed; "+Instruction)
		}
	}
}

// unmatched returns the cur assertions with no identical base assertion.
func unmatched(base, cur []assertion, key func(assertion) string) []assertion {
	count := map[string]int{}
	for _, a := range base {
		count[key(a)]++
	}
	var out []assertion
	for _, a := range cur {
		if count[key(a)] > 0 {
			count[key(a)]--
			continue
		}
		out = append(out, a)
	}
	return out
}

func pairAssert(r assertion, extra []assertion, used []bool) int {
	for i, a := range extra {
		if !used[i] && a.subject == r.subject && a.subject != "" {
			return i
		}
	}
	for i, a := range extra {
		if !used[i] && a.fn == r.fn && a.expected == r.expected {
			return i
		}
	}
	for i, a := range extra {
		if !used[i] && a.text == r.text {
			return i
		}
	}
	for i, a := range extra {
		if !used[i] && a.fn == r.fn {
			return i
		}
	}
	for i := range extra {
		if !used[i] {
			return i
		}
	}
	return -1
}

func rowDiff(base, cur []row) (gone, extra []row) {
	count := map[string]int{}
	for _, r := range cur {
		count[r.text]++
	}
	for _, r := range base {
		if count[r.text] > 0 {
			count[r.text]--
			continue
		}
		gone = append(gone, r)
	}
	count = map[string]int{}
	for _, r := range base {
		count[r.text]++
	}
	for _, r := range cur {
		if count[r.text] > 0 {
			count[r.text]--
			continue
		}
		extra = append(extra, r)
	}
	return gone, extra
}

// strengthened reports whether cur only adds assertions, table rows or
// removes skips compared with base.
func strengthened(bt, at *testCase) bool {
	if bt.head != at.head && len(addedMarkers(at.markers, bt.markers)) == 0 {
		return false
	}
	if gone, _ := rowDiff(bt.rows, at.rows); len(gone) > 0 {
		return false
	}
	i := 0
	for j, s := range at.stmts {
		if i < len(bt.stmts) && bt.stmts[i] == s {
			i++
			continue
		}
		if j >= len(at.isAsrt) || !at.isAsrt[j] {
			return false
		}
	}
	return i == len(bt.stmts)
}

// diffLine finds the first line inside the test that differs, ignoring
// indentation and blank lines; it returns base and cur line numbers.
func diffLine(bm *fileModel, bt *testCase, am *fileModel, at *testCase) (int, int) {
	bl, al := bt.line, at.line
	for bl <= bt.end && al <= at.end {
		b, a := bm.line(bl), am.line(al)
		switch {
		case b == "":
			bl++
		case a == "":
			al++
		case b == a:
			bl++
			al++
		default:
			return bl, al
		}
	}
	if bl > bt.end {
		bl = bt.end
	}
	if al > at.end {
		al = at.end
	}
	return bl, al
}

// firstLineOf trims s to its first line, for excerpts.
func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// compareHelper reports weakened assertions, skips and exits in a helper
// that tests call; other edits to helpers are refactors and allowed.
func compareHelper(p string, bm, am *fileModel, bt, at *testCase) []Violation {
	var out []Violation
	seen := map[Kind]bool{}
	add := func(k Kind, line int, before, after, msg string) {
		if seen[k] || k == BodyChanged {
			return
		}
		seen[k] = true
		out = append(out, Violation{File: p, Test: at.name, Line: line, Kind: k, Before: before, After: after,
			Message: "in a helper the tests call: " + msg})
	}
	for _, mk := range addedMarkersIn(bm, am, bt, at) {
		add(mk.kind, mk.line, "", am.line(mk.line), markerMessage(mk)+"; "+Instruction)
	}
	if gone, _ := rowDiff(bt.rows, at.rows); len(gone) > 0 {
		add(TableRowsChanged, at.line, bm.line(gone[0].line), "", fmt.Sprintf("%d parameter row(s) removed or changed; %s", len(gone), Instruction))
	}
	compareAsserts(bm, am, bt, at, add)
	return out
}

// onlySubtestsAdded reports whether cur differs from base only by new
// t.Run subtest statements.
func onlySubtestsAdded(bt, at *testCase) bool {
	if bt.head != at.head || !sameRows(bt.rows, at.rows) || len(at.isSub) != len(at.stmts) {
		return false
	}
	i := 0
	for j, s := range at.stmts {
		if i < len(bt.stmts) && bt.stmts[i] == s {
			i++
			continue
		}
		if !at.isSub[j] {
			return false
		}
	}
	return i == len(bt.stmts)
}
