package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPosition(t *testing.T) {
	src := []byte("ab\ncde\nf")
	for _, c := range []struct{ off, line, col int }{{0, 1, 1}, {1, 1, 2}, {3, 2, 1}, {5, 2, 3}, {7, 3, 1}} {
		if l, col := position(src, c.off); l != c.line || col != c.col {
			t.Errorf("position(%d) = %d:%d, want %d:%d", c.off, l, col, c.line, c.col)
		}
	}
}

// A site is left out only where coverage names a statement that never ran.
func TestCoverageRan(t *testing.T) {
	py, err := pyCoverage("/p", []byte(`{"files":{"/p/m.py":{"executed_lines":[1,2],"missing_lines":[3]},"n.py":{"executed_lines":[],"missing_lines":[7]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	js, err := jsCoverage("/p", []byte(`{"/p/src/a.js":{"statementMap":{"0":{"start":{"line":1},"end":{"line":3}},"1":{"start":{"line":2},"end":{"line":2}},"2":{"start":{"line":5},"end":{"line":6}}},"s":{"0":1,"1":0,"2":0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	gocov, err := readGoCoverage("m.example/x", []byte("mode: set\nm.example/x/a/a.go:3.10,5.2 2 1\nm.example/x/a/a.go:6.20,8.3 1 0\nm.example/x/a/a.go:6.20,8.3 1 1\nm.example/x/b.go:10.1,12.2 1 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		cov       coverage
		file      string
		line, col int
		want      bool
	}{
		{"py executed", py, "m.py", 2, 1, true},
		{"py missing", py, "m.py", 3, 1, false},
		{"py not a statement", py, "m.py", 4, 1, true},
		{"py other file", py, "n.py", 7, 1, false},
		{"py unknown file", py, "o.py", 3, 1, true},
		{"js in a statement that ran", js, "src/a.js", 2, 1, true},
		{"js only in statements that never ran", js, "src/a.js", 6, 1, false},
		{"js no statement", js, "src/a.js", 9, 1, true},
		{"go block ran", gocov, "a/a.go", 4, 1, true},
		{"go one binary ran it, another not", gocov, "a/a.go", 7, 1, true},
		{"go block never ran", gocov, "b.go", 11, 5, false},
		{"go before the block's start column", gocov, "a/a.go", 3, 9, true},
		{"go outside every block", gocov, "b.go", 20, 1, true},
	} {
		if got := c.cov.ran(c.file, c.line, c.col); got != c.want {
			t.Errorf("%s: ran(%s:%d:%d) = %v, want %v", c.name, c.file, c.line, c.col, got, c.want)
		}
	}
}

func TestCoveredSites(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "m.py"), []byte("x = 1\nif x == 2:\n    y = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cov := lineCoverage{}
	cov.mark("m.py", 1, true)
	cov.mark("m.py", 2, true)
	cov.mark("m.py", 3, false)
	sites := []mutation{{file: "m.py", offset: 4, old: "1"}, {file: "m.py", offset: 11, old: "=="}, {file: "m.py", offset: 24, old: "3"}}
	kept, dropped := coveredSites(&project{dir: dir}, cov, sites)
	if dropped != 1 || len(kept) != 2 || kept[1].offset != 11 {
		t.Errorf("kept %v, dropped %d", kept, dropped)
	}
}

// A mutation not caught by chanto is judged by the test files whose own
// coverage ran its line, or may have (a line coverage knows nothing of).
func TestAffectedTests(t *testing.T) {
	pf, err := readPerFile("/p", []byte(`{
	 "/p/test/a.test.js": {"/p/src/x.js": {"hit": [1, 2], "miss": [5]}},
	 "/p/test/b.test.js": {"/p/src/x.js": {"hit": [1, 5], "miss": [2]}},
	 "/p/test/c.test.js": {"/p/src/y.js": {"hit": [1], "miss": []}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line int
		want string
	}{
		{1, "test/a.test.js test/b.test.js"},
		{2, "test/a.test.js"},
		{5, "test/b.test.js"},
		{9, "test/a.test.js test/b.test.js"},
	} {
		if got := strings.Join(affectedTests(pf, "src/x.js", c.line), " "); got != c.want {
			t.Errorf("line %d: %s, want %s", c.line, got, c.want)
		}
	}
	// A file no test file's coverage has is not instrumented: every test may run it.
	if got := strings.Join(affectedTests(pf, "src/z.js", 1), " "); got != "test/a.test.js test/b.test.js test/c.test.js" {
		t.Errorf("uninstrumented file: %s", got)
	}
}
