package protect

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// isGoldenFile reports whether p holds expected output that tests compare
// against: jest/vitest/syrupy/insta snapshots and golden files, and files
// in a test folder named as expected output. Rewriting one to match broken
// output passes the test as surely as editing it.
func isGoldenFile(p string) bool {
	base := path.Base(p)
	switch {
	case strings.Contains("/"+p, "/__snapshots__/"), strings.HasSuffix(base, ".snap"), strings.HasSuffix(base, ".golden"),
		strings.HasSuffix(base, ".expected"), strings.Contains(base, ".approved."):
		return true
	}
	return testDataFile(p) && expectedName(base)
}

// testDataDirs are the folder names that hold what tests read and compare.
var testDataDirs = map[string]bool{"tests": true, "test": true, "testdata": true, "__tests__": true, "spec": true,
	"fixtures": true, "golden": true, "expected": true}

// notTestDataDirs hold generated files, never expectations.
var notTestDataDirs = map[string]bool{"coverage": true, "htmlcov": true}

// codeExts are source files of languages protection has no analyzer for;
// with langOf's they are code, not data (a test's own compiled output or
// script is not its expectation).
var codeExts = map[string]bool{".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".hpp": true, ".hh": true,
	".m": true, ".mm": true, ".cs": true, ".fs": true, ".vb": true, ".kt": true, ".kts": true, ".scala": true, ".groovy": true,
	".gradle": true, ".swift": true, ".dart": true, ".rb": true, ".php": true, ".pl": true, ".pm": true, ".lua": true,
	".sh": true, ".bash": true, ".zsh": true, ".fish": true, ".ps1": true, ".bat": true, ".cmd": true, ".ex": true,
	".exs": true, ".erl": true, ".hs": true, ".ml": true, ".clj": true, ".jl": true, ".r": true, ".zig": true, ".nim": true,
	".pyi": true, ".pyx": true, ".vue": true, ".svelte": true, ".coffee": true, ".elm": true}

// generatedExts are build, run and editor leftovers that tests write, not read.
var generatedExts = map[string]bool{".lock": true, ".lockb": true, ".pyc": true, ".pyo": true, ".o": true, ".obj": true,
	".a": true, ".so": true, ".dylib": true, ".dll": true, ".exe": true, ".class": true, ".log": true, ".tmp": true,
	".swp": true, ".bak": true, ".orig": true, ".rej": true, ".prof": true, ".pprof": true}

// generatedNames are lock files, coverage profiles and compiler defaults.
var generatedNames = map[string]bool{"package-lock.json": true, "npm-shrinkwrap.json": true, "pnpm-lock.yaml": true,
	"go.sum": true, "lcov.info": true, "coverage.xml": true, "coverage.json": true, "coverage.out": true, "cover.out": true,
	"c.out": true, "cpu.out": true, "mem.out": true, "a.out": true}

// testDataFile reports whether p is a data file (not code, not generated)
// in a test folder: what a test may read as its input or expected output.
func testDataFile(p string) bool {
	p = cleanPath(p)
	base := path.Base(p)
	ext := strings.ToLower(path.Ext(base))
	if strings.HasPrefix(base, ".") || langOf(p) != "" || codeExts[ext] || generatedExts[ext] || generatedNames[strings.ToLower(base)] {
		return false
	}
	inTests := false
	for _, dir := range strings.Split(path.Dir(p), "/") {
		if skipDirs[dir] || notTestDataDirs[dir] || strings.HasPrefix(dir, ".") && dir != "." {
			return false
		}
		inTests = inTests || testDataDirs[dir]
	}
	return inTests
}

// expectedName reports whether a file name says it is expected output:
// *.out, *.want, *.expected.*, *-expected.*, *_expected.*, expected_*,
// expected-*, *.golden.*.
func expectedName(base string) bool {
	b := strings.ToLower(base)
	switch ext := path.Ext(b); ext {
	case ".out", ".want":
		return true
	}
	return strings.Contains(b, ".expected.") || strings.Contains(b, "-expected.") || strings.Contains(b, "_expected.") ||
		strings.HasPrefix(b, "expected_") || strings.HasPrefix(b, "expected-") || strings.Contains(b, ".golden.")
}

// testDataPair returns the name of the file beside p with the same stem
// and another extension, both test data (auto-links.txt beside
// auto-links.html): a test's input and its expected output, which a test
// walking the folder compares. "" when there is none or the folder cannot
// be listed.
func (d *Detector) testDataPair(p string) string {
	p = cleanPath(p)
	if !testDataFile(p) {
		return ""
	}
	base := path.Base(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if ext == "" || stem == "" {
		return ""
	}
	d.mu.Lock()
	names := d.listLocked(path.Dir(p))
	d.mu.Unlock()
	for _, n := range names {
		if e := path.Ext(n); n != base && e != "" && strings.TrimSuffix(n, e) == stem && testDataFile(path.Join(path.Dir(p), n)) {
			return n
		}
	}
	return ""
}

// testDataPair asks the current tree first: the turn snapshot cannot list.
func (d *detectorPair) testDataPair(p string) string {
	if n := d.cur.testDataPair(p); n != "" {
		return n
	}
	return d.base.testDataPair(p)
}

// checkTestData reports a rewritten member of an input/expected pair;
// changing a test's input to dodge a bug is as much tampering as changing
// its expected output.
func checkTestData(p, sibling string, b, a []byte) []Violation {
	if b != nil && a == nil {
		return []Violation{deleted(p, b, fmt.Sprintf("test data deleted: the expected output (or input) of a test beside %s is gone; %s", sibling, Instruction))}
	}
	return wholeFileChange(p, b, a, fmt.Sprintf("test data changed: the expected output (or input) of a test beside %s was rewritten; %s", sibling, Instruction))
}

// deleted reports an existing file of expected output (or test input)
// that the change deleted: a test that walks its folder loses the case
// without a failure (Python-Markdown's tests/basic), and one that reads
// it by name fails only for a reason that says nothing of the change.
func deleted(p string, b []byte, msg string) Violation {
	v := Violation{File: p, Line: 1, Kind: ExpectedChanged, Message: msg}
	if !isBinary(b) {
		v.Before = lineAt(string(normalizeNewlines(b)), 1)
	}
	return v
}

// checkGolden reports changed or removed entries of an existing golden
// file, or the file deleted; new files and new snapshot entries are new
// expectations and fine.
func checkGolden(p string, b, a []byte) []Violation {
	if b != nil && a == nil {
		return []Violation{deleted(p, b, "golden file deleted: the expected output is gone; "+Instruction)}
	}
	if b == nil || a == nil {
		return nil
	}
	bs, as := string(normalizeNewlines(b)), string(normalizeNewlines(a))
	if bs == as {
		return nil
	}
	be, ae := snapEntries(bs), snapEntries(as)
	if be == nil || ae == nil {
		return wholeFileChange(p, b, a, "golden file changed: the expected output was rewritten; "+Instruction)
	}
	var out []Violation
	for _, name := range sortedKeysStr(be) {
		cur, ok := ae[name]
		if ok && cur == be[name] {
			continue
		}
		what := "changed"
		if !ok {
			what = "removed"
		}
		out = append(out, Violation{File: p, Test: name, Line: lineOf(a, name), Kind: ExpectedChanged, Before: firstLineOf(strings.TrimSpace(be[name])), After: firstLineOf(strings.TrimSpace(cur)),
			Message: fmt.Sprintf("snapshot %s: the expected output was rewritten; %s", what, Instruction)})
	}
	return out
}

// wholeFileChange reports an existing file of expected output whose bytes
// changed, at the first line that differs; new and deleted files are not
// reported.
func wholeFileChange(p string, b, a []byte, msg string) []Violation {
	if b == nil || a == nil {
		return nil
	}
	bs, as := string(normalizeNewlines(b)), string(normalizeNewlines(a))
	if bs == as {
		return nil
	}
	l := firstDiffLine(bs, as)
	v := Violation{File: p, Line: l, Kind: ExpectedChanged, Message: msg}
	if !isBinary(b) && !isBinary(a) {
		v.Before, v.After = lineAt(bs, l), lineAt(as, l)
	}
	return []Violation{v}
}

// snapEntries splits a jest-style snapshot file into named entries; nil
// when the file is not in that format.
func snapEntries(s string) map[string]string {
	if !strings.Contains(s, "exports[`") {
		return nil
	}
	out := map[string]string{}
	for _, part := range strings.Split(s, "exports[`")[1:] {
		i := strings.Index(part, "`]")
		if i < 0 {
			return nil
		}
		out[part[:i]] = strings.TrimSpace(part[i:])
	}
	return out
}

func sortedKeysStr(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func firstDiffLine(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	n := len(al)
	if len(bl) < n {
		n = len(bl)
	}
	return n + 1
}

func lineAt(s string, n int) string {
	ls := strings.Split(s, "\n")
	if n <= 0 || n > len(ls) {
		return ""
	}
	return strings.TrimSpace(ls[n-1])
}
