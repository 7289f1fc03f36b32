package protect

import "fmt"

// movedTests drops test_removed reports (and "test table removed" ones) for
// tests that reappear, same name and same body, in another test file the
// change added or edited: a test split out of a long file, or moved to the
// file it belongs in, still runs. The destination must not carry file-level
// skips or exits the source did not have.
func (c *comparer) movedTests(vs []Violation, files []string) []Violation {
	var dests []*fileModel
	loaded := false
	base := map[string]*fileModel{}
	out := vs[:0]
	for _, v := range vs {
		if !c.removalReport(v) {
			out = append(out, v)
			continue
		}
		if !loaded {
			dests, loaded = c.destinations(files), true
		}
		bm, ok := base[v.File]
		if !ok {
			bm = c.wholeModel(c.base, v.File)
			base[v.File] = bm
		}
		if bm == nil || !movedTo(bm, v, dests) {
			out = append(out, v)
		}
	}
	return out
}

// removalReport says whether v reports a whole test or table gone.
func (c *comparer) removalReport(v Violation) bool {
	switch v.Kind {
	case TestRemoved:
		return v.Test != ""
	case TableRowsChanged:
		return v.Test != "" && v.After == "" && v.Message == "test table removed; "+Instruction
	}
	return false
}

// movedTo reports whether the test v names, as the base model bm has it,
// is found intact in one of dests other than its own file.
func movedTo(bm *fileModel, v Violation, dests []*fileModel) bool {
	bt := bm.test(v.Test)
	if bt == nil {
		return false
	}
	for _, am := range dests {
		if am.path == v.File || am.lang != bm.lang {
			continue
		}
		if len(addedMarkers(bm.markers, am.markers)) > 0 {
			continue
		}
		if at := am.test(v.Test); at != nil && sameBody(bt, at) {
			return true
		}
	}
	return false
}

// destinations returns the whole current models of the changed files the
// runner collects as tests.
func (c *comparer) destinations(files []string) []*fileModel {
	var out []*fileModel
	for _, p := range files {
		lang := langOf(p)
		if lang == "" || !(c.det.isTestFile(p) || lang == "rust") {
			continue
		}
		if m := c.wholeModel(c.cur, p); m != nil && !m.parseErr && len(m.tests) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// wholeModel analyzes the whole of p in src; nil when it is missing,
// binary, or the analyzer fails.
func (c *comparer) wholeModel(src Source, p string) (m *fileModel) {
	defer func() {
		if recover() != nil {
			m = nil
		}
	}()
	b, ok, err := read(src, p)
	if err != nil || !ok || isBinary(b) {
		return nil
	}
	m = analyzeNamed(langOf(p), p, b, c.pyNames(p))
	if m != nil {
		m.path = p
	}
	return m
}

// movedOut reports the tests of the deleted test file p that reappear, by
// name, in a file the change added where the runner does not collect it:
// a rename out of collection removes every test of the file.
func (c *comparer) movedOut(p string, files []string) []Violation {
	bm := c.wholeModel(c.base, p)
	if bm == nil || len(bm.tests) == 0 {
		return nil
	}
	for _, np := range files {
		if np == p || langOf(np) != langOf(p) {
			continue
		}
		if _, inBase, _ := read(c.base, np); inBase {
			continue
		}
		ok, why := c.det.cur.Keeps(p, np)
		if ok {
			continue
		}
		am := c.wholeModel(c.cur, np)
		if am == nil || !shareTests(bm, am) {
			continue
		}
		var out []Violation
		for _, t := range bm.tests {
			if t.isTable {
				continue
			}
			out = append(out, Violation{File: p, Test: t.name, Line: t.line, Kind: RenamedOutOfCollection, After: np,
				Message: fmt.Sprintf("moved to %s, which is not collected (%s): the test no longer runs; %s", np, why, Instruction)})
		}
		return out
	}
	return nil
}

// shareTests reports whether b has at least one test named as one of a's.
func shareTests(a, b *fileModel) bool {
	for _, t := range a.tests {
		if !t.isTable && b.test(t.name) != nil {
			return true
		}
	}
	return false
}
