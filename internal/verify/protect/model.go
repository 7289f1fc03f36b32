package protect

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/safetext"
)

// fileModel is what a language analyzer extracts from one file.
type fileModel struct {
	lang     string
	path     string // set only where models of several files are compared
	tests    []*testCase
	markers  []marker // file-level: build constraints, module skips, exits
	comments []string // comment text and bare strings, for commented-out tests
	helpers  map[string]string
	parseErr bool
	shallow  bool // too large: names only
	lines    []string
	index    map[string]*testCase
	// checkers are non-test functions of a test file that assert (helpers
	// like assertValid, setUp): weakening them weakens every caller.
	checkers []*testCase
	// classes are the test classes of a Python file, by qualified name.
	classes map[string]bool
}

// add records a test or a helper.
func (m *fileModel) add(tc *testCase, helper bool) {
	if !helper {
		m.tests = append(m.tests, tc)
		return
	}
	tc.name = "helper " + tc.name
	m.checkers = append(m.checkers, tc)
}

// testCase is one collected test.
type testCase struct {
	name    string // qualified
	simple  string // function name or title, searched in comments
	line    int
	end     int // last line
	from    int // byte range of the whole test, attributes included
	to      int
	head    string   // normalized signature, decorators and options
	stmts   []string // normalized body statements (table rows cut out)
	isAsrt  []bool   // stmts[i] is an assertion statement
	isSub   []bool   // stmts[i] declares a subtest (Go t.Run with a literal name)
	markers []marker // skip, focus, inversion and exit markers, inherited included
	asserts []assertion
	rows    []row
	isTable bool // a table entity rather than a test
}

// marker is a skip, focus, inversion or early exit found on or in a test.
type marker struct {
	kind Kind
	text string
	line int
	// owner, for an entry of a skip list a test class keeps (exclude =
	// [...]), is the class: the list of a class the base did not have is
	// part of a new test, not a skip.
	owner string
	// note, when set, is the whole message.
	note string
}

// Assertion strengths, weakest first.
const (
	strengthTrivial = 0 // assert True
	strengthTruthy  = 2 // existence or truthiness
	strengthExact   = 3 // equality, exception type, exact match
)

type assertion struct {
	fn       string
	strength int
	subject  string
	expected string
	text     string
	line     int
	guards   int // enclosing if/try beyond the test body
}

type row struct {
	text string
	line int
}

func sameBody(a, b *testCase) bool {
	return a.head == b.head && strings.Join(a.stmts, "\n") == strings.Join(b.stmts, "\n") && sameRows(a.rows, b.rows) && sameMarkers(a.markers, b.markers)
}

func sameRows(a, b []row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].text != b[i].text {
			return false
		}
	}
	return true
}

func sameMarkers(a, b []marker) bool {
	return len(addedMarkers(a, b)) == 0 && len(addedMarkers(b, a)) == 0
}

// addedMarkers returns markers of cur that base lacks (as a multiset).
func addedMarkers(base, cur []marker) []marker {
	count := map[string]int{}
	for _, m := range base {
		count[string(m.kind)+m.text]++
	}
	var out []marker
	for _, m := range cur {
		k := string(m.kind) + m.text
		if count[k] > 0 {
			count[k]--
			continue
		}
		out = append(out, m)
	}
	return out
}

// addedMarkersIn is addedMarkers for a test both trees have. Of markers
// alike (kind and text), those paired with the base's are first the ones on
// the same line text at the same distance from the test's first or last
// line, then the ones on the same line text, then the rest in order: a skip
// added above an older one of the same kind is the one reported, not the
// older one its line moved down.
func addedMarkersIn(bm, am *fileModel, bt, at *testCase) []marker {
	score := func(b, c marker) int {
		switch {
		case b.kind != c.kind || b.text != c.text:
			return 0
		case bm.line(b.line) != am.line(c.line):
			return 1
		case b.line-bt.line == c.line-at.line || bt.end-b.line == at.end-c.line:
			return 3
		}
		return 2
	}
	paired := make([]bool, len(bt.markers))
	used := make([]bool, len(at.markers))
	for want := 3; want >= 1; want-- {
		for i, b := range bt.markers {
			if paired[i] {
				continue
			}
			for j, c := range at.markers {
				if !used[j] && score(b, c) >= want {
					paired[i], used[j] = true, true
					break
				}
			}
		}
	}
	var out []marker
	for j, c := range at.markers {
		if !used[j] {
			out = append(out, c)
		}
	}
	return out
}

// langOf maps a path to the analyzer that handles it, "" for none.
func langOf(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".go":
		return "go"
	case ".py":
		return "python"
	case ".js", ".jsx", ".mjs", ".cjs":
		return "javascript"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "tsx"
	case ".rs":
		return "rust"
	case ".java":
		return "java"
	}
	return ""
}

// grammarOf names the tree-sitter grammar for an analyzer language.
func grammarOf(lang string) string { return lang }

// analyze builds the model of one whole file; it never fails: a file that
// does not parse gets parseErr set.
func analyze(lang, p string, src []byte) *fileModel { return analyzeNamed(lang, p, src, nil) }

// analyzeNamed is analyze with the test names pytest collects (nil for its
// defaults).
func analyzeNamed(lang, p string, src []byte, names *pyNaming) *fileModel {
	src = normalizeNewlines(src)
	var pt parsed
	if lang != "go" && grammars[lang] != nil {
		pt.root, pt.bad = parseTS(grammarOf(lang), src)
	}
	return build(lang, p, src, pt, whole, names)
}

// analyzePair builds the models of both sides of a changed file, analyzing
// in depth only what touches the change.
func analyzePair(lang, p string, b, a []byte, names *pyNaming) (*fileModel, *fileModel) {
	b, a = normalizeNewlines(b), normalizeNewlines(a)
	lo, bhi, ahi := changedSpan(b, a)
	if lang == "go" {
		return build(lang, p, b, parsed{}, span{lo, bhi}, names), build(lang, p, a, parsed{}, span{lo, ahi}, names)
	}
	pb, pa := parsePair(grammarOf(lang), b, a, false)
	bm, am := build(lang, p, b, pb, span{lo, bhi}, names), build(lang, p, a, pa, span{lo, ahi}, names)
	if confined(bm, am, lo, bhi, ahi) {
		return bm, am
	}
	// The change reaches beyond one test (a class renamed, a test
	// deleted, module-level code): analyze both files whole.
	pb, pa = parsePair(grammarOf(lang), b, a, true)
	return build(lang, p, b, pb, whole, names), build(lang, p, a, pa, whole, names)
}

// confined reports whether the change lies inside one test or helper that
// keeps its name on both sides: then every node outside it is identical
// on both sides and a partial copy is enough.
func confined(bm, am *fileModel, lo, bhi, ahi int) bool {
	inside := func(m *fileModel, hi int) string {
		for _, list := range [][]*testCase{m.tests, m.checkers} {
			for _, t := range list {
				if t.from <= lo && hi <= t.to && t.to > t.from {
					return t.name
				}
			}
		}
		return ""
	}
	if bm.parseErr || am.parseErr {
		return false
	}
	b := inside(bm, bhi)
	return b != "" && b == inside(am, ahi)
}

func build(lang, p string, src []byte, pt parsed, sp span, names *pyNaming) *fileModel {
	var m *fileModel
	switch lang {
	case "go":
		m = analyzeGo(p, src, sp, names != nil && names.support)
	case "python":
		m = analyzePython(src, pt, names)
	case "javascript", "typescript", "tsx":
		m = analyzeJS(src, pt)
	case "rust":
		m = analyzeRust(src, pt)
	case "java":
		m = analyzeJava(src, pt)
	default:
		return nil
	}
	m.lang = lang
	m.lines = strings.Split(string(src), "\n")
	if lang == "rust" {
		numberDuplicates(m.tests)
	}
	return m
}

// numberDuplicates gives the second and later tests of one name a number
// (name#2): Rust files define a test once per cfg (#[rustversion::nightly]
// and its opposite), and each must be compared with its own counterpart.
func numberDuplicates(tests []*testCase) {
	seen := map[string]int{}
	for _, t := range tests {
		seen[t.name]++
		if n := seen[t.name]; n > 1 {
			t.name = fmt.Sprintf("%s#%d", t.name, n)
		}
	}
}

func normalizeNewlines(b []byte) []byte {
	if !strings.Contains(string(b), "\r") {
		return b
	}
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	return []byte(strings.ReplaceAll(s, "\r", "\n"))
}

func (m *fileModel) line(n int) string {
	if n <= 0 || n > len(m.lines) {
		return ""
	}
	return safetext.Cut(strings.TrimSpace(m.lines[n-1]), 160)
}

func (m *fileModel) test(name string) *testCase {
	if m.index == nil {
		m.index = make(map[string]*testCase, len(m.tests))
		for _, t := range m.tests {
			if _, dup := m.index[t.name]; !dup {
				m.index[t.name] = t
			}
		}
	}
	return m.index[name]
}

// compareModels reports violations of one test file between base and cur.
func compareModels(p string, bm, am *fileModel, bsrc, asrc []byte) []Violation {
	if am == nil {
		if len(bm.tests) == 0 && !bm.parseErr {
			return nil
		}
		return []Violation{{File: p, Line: 1, Kind: TestFileDeleted, Before: bm.line(firstTestLine(bm)),
			Message: fmt.Sprintf("test file deleted (%s), or renamed so the runner no longer collects it; %s", plural(len(bm.tests), "test"), Instruction)}}
	}
	if am.parseErr && !bm.parseErr {
		return []Violation{{File: p, Line: firstErrLine(am), Kind: Unparsable, Message: "could not parse, treated as changed; " + Instruction}}
	}
	var out []Violation
	out = append(out, fileMarkers(p, bm, am)...)
	renames := helperRenames(bm, am)
	for _, bt := range bm.tests {
		at := am.test(bt.name)
		if at == nil {
			out = append(out, removed(p, bm, am, bt))
			continue
		}
		if am.shallow || bm.shallow || sameBody(bt, at) || (len(renames) > 0 && sameBody(renamed(bt, renames), at)) {
			continue
		}
		out = append(out, compareTest(p, bm, am, bt, at)...)
	}
	if am.shallow {
		out = append(out, Violation{File: p, Line: 1, Kind: BodyChanged, Message: "file too large for body analysis; only test names were compared"})
	}
	out = append(out, newHarnessCode(p, bm, am)...)
	// Helpers pair by name and occurrence; when the count of a name
	// changed, the pairing is unknown and the helper is left alone.
	byName := func(list []*testCase) map[string][]*testCase {
		m := map[string][]*testCase{}
		for _, t := range list {
			m[t.name] = append(m[t.name], t)
		}
		return m
	}
	bh, ah := byName(bm.checkers), byName(am.checkers)
	for _, name := range sortedNames(bh) {
		b, a := bh[name], ah[name]
		if len(a) != len(b) {
			continue
		}
		for i := range b {
			if !sameBody(b[i], a[i]) {
				out = append(out, compareHelper(p, bm, am, b[i], a[i])...)
			}
		}
	}
	return out
}

func firstTestLine(m *fileModel) int {
	if len(m.tests) > 0 {
		return m.tests[0].line
	}
	return 1
}

func firstErrLine(m *fileModel) int {
	if len(m.markers) > 0 {
		for _, mk := range m.markers {
			if mk.kind == Unparsable {
				return mk.line
			}
		}
	}
	return 1
}

func fileMarkers(p string, bm, am *fileModel) []Violation {
	var out []Violation
	for _, mk := range addedMarkers(bm.markers, am.markers) {
		switch {
		case mk.kind == Unparsable:
			continue
		case mk.note != "":
			if mk.owner != "" && !bm.classes[mk.owner] {
				continue
			}
			out = append(out, Violation{File: p, Test: mk.owner, Line: mk.line, Kind: mk.kind, Before: listLine(bm, mk), After: am.line(mk.line),
				Message: mk.note + "; " + Instruction})
			continue
		}
		out = append(out, Violation{File: p, Line: mk.line, Kind: mk.kind, After: am.line(mk.line),
			Message: markerMessage(mk) + " (applies to every test in the file); " + Instruction})
	}
	return out
}

// listLine is the base's line of the first entry of the skip list mk was
// added to, "" when the base had none.
func listLine(bm *fileModel, mk marker) string {
	list, _, _ := strings.Cut(mk.text, " ")
	for _, b := range bm.markers {
		if b.note != "" && strings.HasPrefix(b.text, list+" ") {
			return bm.line(b.line)
		}
	}
	return ""
}

func removed(p string, bm, am *fileModel, bt *testCase) Violation {
	v := Violation{File: p, Test: bt.name, Line: bt.line, Kind: TestRemoved, Before: bm.line(bt.line)}
	if bt.isTable {
		v.Kind = TableRowsChanged
		v.Message = "test table removed; " + Instruction
		return v
	}
	for _, c := range am.comments {
		if bt.simple != "" && strings.Contains(c, bt.simple) {
			v.Kind = TestCommentedOut
			v.Message = "test commented out; " + Instruction
			return v
		}
	}
	v.Message = "test removed, or renamed so the runner no longer collects it; " + Instruction
	for name, body := range am.helpers {
		if body != "" && body == strings.Join(bt.stmts, "\n") {
			v.Message = fmt.Sprintf("test renamed to %s, which the runner does not collect; %s", name, Instruction)
			if name == bt.simple || name == lastSegment(bt.name) {
				// Same name, same body: what made it a test is gone.
				v.Message = "no longer collected as a test (its test attribute, annotation or name prefix is gone); " + Instruction
			}
		}
	}
	return v
}

// lastSegment is a test's own name without its module or class path
// ("tests::adds" → "adds", "TestCart.test_total" → "test_total").
func lastSegment(name string) string {
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	return name[strings.LastIndexByte(name, '.')+1:]
}

func markerMessage(mk marker) string {
	switch mk.kind {
	case SkipAdded:
		if strings.Contains(mk.text, "only") || strings.HasPrefix(mk.text, "f") {
			return fmt.Sprintf("focus added (%s): the other tests no longer run", mk.text)
		}
		return fmt.Sprintf("skip added (%s)", mk.text)
	case EarlyExit:
		return fmt.Sprintf("early exit added (%s): the rest of the test never runs", mk.text)
	case ExpectationInverted:
		return fmt.Sprintf("expectation inverted or dodged (%s)", mk.text)
	case HarnessWeakened:
		return fmt.Sprintf("harness weakened (%s)", mk.text)
	}
	return mk.text
}

// helperRenames pairs non-test helpers that disappeared with new helpers of
// identical body: a rename, which call sites in tests may follow.
func helperRenames(bm, am *fileModel) map[string]string {
	out := map[string]string{}
	for old, body := range bm.helpers {
		if _, still := am.helpers[old]; still {
			continue
		}
		for nu, nbody := range am.helpers {
			if _, had := bm.helpers[nu]; !had && nbody == body {
				out[old] = nu
			}
		}
	}
	return out
}

// renamed returns a copy of t with helper names replaced token-wise.
func renamed(t *testCase, renames map[string]string) *testCase {
	c := *t
	c.stmts = make([]string, len(t.stmts))
	for i, s := range t.stmts {
		toks := strings.Split(s, " ")
		for j, tok := range toks {
			if nu, ok := renames[tok]; ok {
				toks[j] = nu
			}
		}
		c.stmts[i] = strings.Join(toks, " ")
	}
	return &c
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func sortedNames(m map[string][]*testCase) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// newHarnessCode reports skips and exits in code added to an existing test
// file that runs before or around every test: a Go TestMain or init.
func newHarnessCode(p string, bm, am *fileModel) []Violation {
	var out []Violation
	for _, list := range [][]*testCase{am.tests, am.checkers} {
		for _, t := range list {
			if t.name != "TestMain" && t.name != "helper init" {
				continue
			}
			if bm.test(t.name) != nil || hasChecker(bm, t.name) {
				continue
			}
			for _, mk := range t.markers {
				if mk.kind == SkipAdded || mk.kind == EarlyExit {
					out = append(out, Violation{File: p, Test: t.name, Line: mk.line, Kind: mk.kind, After: am.line(mk.line),
						Message: markerMessage(mk) + " (runs around every test in the package); " + Instruction})
				}
			}
		}
	}
	return out
}

func hasChecker(m *fileModel, name string) bool {
	for _, t := range m.checkers {
		if t.name == name {
			return true
		}
	}
	return false
}
