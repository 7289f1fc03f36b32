// Package protect detects test tampering: it compares the test files of a
// base tree against the current tree, per language from syntax trees, and
// reports removed, weakened, skipped or otherwise changed tests and a
// weakened harness (DESIGN §6).
package protect

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// Kind classifies a violation.
type Kind string

// The kinds of violation.
const (
	TestFileDeleted Kind = "test_file_deleted"
	// RenamedOutOfCollection is a test file moved or renamed where its
	// runner no longer collects it: each of its tests is gone.
	RenamedOutOfCollection Kind = "renamed_out_of_collection"
	TestRemoved            Kind = "test_removed"
	TestCommentedOut       Kind = "test_commented_out"
	AssertionRemoved       Kind = "assertion_removed"
	AssertionLoosened      Kind = "assertion_loosened"
	ExpectedChanged        Kind = "expected_changed"
	TableRowsChanged       Kind = "table_rows_changed"
	ExpectationInverted    Kind = "expectation_inverted"
	SkipAdded              Kind = "skip_added"
	EarlyExit              Kind = "early_exit"
	BodyChanged            Kind = "body_changed"
	TestStrengthened       Kind = "test_strengthened"
	HarnessWeakened        Kind = "harness_weakened"
	TestEnvCheck           Kind = "test_env_check"
	Unparsable             Kind = "unparsable"
)

// Instruction ends every report that asks for a test to be put back.
const Instruction = "restore the test; fix the code, not the tests"

// MaxDeepSize is the file size above which only the set of test names is
// compared, to bound time on huge generated files.
const MaxDeepSize = 5 << 20

// Violation is one finding, actionable by a person and a model.
type Violation struct {
	File    string `json:"file"`
	Test    string `json:"test,omitempty"`
	Line    int    `json:"line,omitempty"`
	Kind    Kind   `json:"kind"`
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
	Message string `json:"message"`
}

// String formats v for a person: location, kind, message, the two-line
// excerpt and the instruction.
func (v Violation) String() string {
	var b strings.Builder
	b.WriteString(v.File)
	if v.Line > 0 {
		fmt.Fprintf(&b, ":%d", v.Line)
	}
	if v.Test != "" {
		fmt.Fprintf(&b, ": %s", v.Test)
	}
	fmt.Fprintf(&b, ": %s: %s", v.Kind, v.Message)
	if v.Before != "" || v.After != "" {
		fmt.Fprintf(&b, "\n    - %s\n    + %s", orNone(v.Before), orNone(v.After))
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "(nothing)"
	}
	return s
}

// Source reads a file of a tree by slash-separated path relative to the
// project root; a missing file returns an error wrapping fs.ErrNotExist.
type Source interface {
	ReadFile(path string) ([]byte, error)
}

// Options tunes Compare.
type Options struct {
	// Root is the project directory, used when no Source is given for
	// runner configuration; Compare itself reads configs from the Sources.
	Root string
	// AllowEdits lists paths or doublestar globs exempted from protection
	// (the user's --allow-test-edits); never set by the model.
	AllowEdits []string
	// Parallel bounds how many files are analyzed at once; 0 means 2.
	Parallel int
}

// Result is what Check found: the violations, and the runner
// configurations that were not understood with certainty (protection then
// guards the union of what they seem to say and the runner's defaults).
type Result struct {
	Violations []Violation   `json:"violations"`
	Doubts     []ConfigDoubt `json:"configs_not_understood"`
}

// Compare reports the test tampering between base and cur among the
// changed paths (added, modified or deleted, slash-separated).
func Compare(base, cur Source, changed []string, opts Options) ([]Violation, error) {
	res, err := Check(base, cur, changed, opts)
	if err != nil {
		return nil, err
	}
	return res.Violations, nil
}

// Check is Compare that also says which configurations were doubted.
func Check(base, cur Source, changed []string, opts Options) (*Result, error) {
	det := newDetectorPair(base, cur)
	files := make([]string, 0, len(changed))
	seen := map[string]bool{}
	for _, p := range changed {
		p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
		if seen[p] || allowed(p, opts.AllowEdits) {
			continue
		}
		seen[p] = true
		files = append(files, p)
	}
	sort.Strings(files)
	c := &comparer{base: base, cur: cur, det: det, results: make([][]Violation, len(files)), models: map[string]*fileModel{}}
	par := opts.Parallel
	if par <= 0 {
		par = 2
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	errs := make([]error, len(files))
	for i, p := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			c.results[i], errs[i] = c.file(p)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var out []Violation
	for _, vs := range c.results {
		out = append(out, vs...)
	}
	out = c.dropMoves(out, files)
	out = c.movedTests(out, files)
	out = append(out, c.droppedRustModules(files)...)
	return &Result{Violations: out, Doubts: det.doubts()}, nil
}

func allowed(p string, globs []string) bool {
	for _, g := range globs {
		g = path.Clean(strings.ReplaceAll(g, "\\", "/"))
		if g == p || strings.HasPrefix(p, g+"/") {
			return true
		}
		if ok, _ := doublestar.Match(g, p); ok {
			return true
		}
	}
	return false
}

type comparer struct {
	base, cur Source
	det       *detectorPair
	results   [][]Violation
	mu        sync.Mutex
	models    map[string]*fileModel // current models of added test files, for moves
}

// read returns a file's bytes, nil with ok=false when it does not exist.
func read(src Source, p string) ([]byte, bool, error) {
	b, err := src.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", p, err)
	}
	return b, true, nil
}

func (c *comparer) file(p string) (vs []Violation, err error) {
	defer func() {
		// A bug in an analyzer must not hide the rest of the report.
		if r := recover(); r != nil {
			vs = []Violation{{File: p, Line: 1, Kind: Unparsable, Message: fmt.Sprintf("could not analyze (%v), treated as changed; %s", r, Instruction)}}
			err = nil
		}
	}()
	b, inBase, err := read(c.base, p)
	if err != nil {
		return nil, err
	}
	a, inCur, err := read(c.cur, p)
	if err != nil {
		return nil, err
	}
	if inBase && inCur && bytes.Equal(b, a) {
		return nil, nil
	}
	var out []Violation
	if isGoldenFile(p) {
		return checkGolden(p, b, a), nil
	}
	if isScriptTest(p, b, a) {
		return checkScript(p, b, a, inBase, inCur), nil
	}
	if h := harnessKind(p); h != "" {
		out = append(out, checkHarness(h, p, b, a)...)
		if langOf(p) != "" {
			return out, nil
		}
	}
	lang := langOf(p)
	if lang == "" {
		if sib := c.det.testDataPair(p); sib != "" && harnessKind(p) == "" {
			return checkTestData(p, sib, b, a), nil
		}
		return out, nil
	}
	if lang == "python" {
		out = append(out, checkLoadTests(p, b, a)...)
	}
	candidate := c.det.candidate(p)
	support := !candidate && c.det.support(p, b, a)
	if !candidate && !support {
		return append(out, envChecks(p, lang, b, a)...), nil
	}
	if isBinary(b) || isBinary(a) {
		return out, nil
	}
	names := c.pyNames(p)
	if support {
		// Test support: every function is a helper the tests call.
		n := pyNaming{}
		if names != nil {
			n = *names
		}
		n.support = true
		names = &n
		out = append(out, envChecks(p, lang, b, a)...)
		if !inBase || !inCur {
			return out, nil // a new helper, or one the tests no longer import
		}
		bm, am := analyzePair(lang, p, b, a, names)
		for _, v := range compareModels(p, bm, am, b, a) {
			v.Message = strings.Replace(v.Message, "(applies to every test in the file)", "(applies to every test that imports the module)", 1)
			out = append(out, v)
		}
		return out, nil
	}
	var bm, am *fileModel
	switch {
	case inBase && inCur:
		bm, am = analyzePair(lang, p, b, a, names)
	case inBase:
		bm = analyzeNamed(lang, p, b, names)
	default:
		am = analyzeNamed(lang, p, a, names)
	}
	isTest := c.det.isTestFile(p) || (bm != nil && len(bm.tests) > 0)
	if !isTest && (am == nil || len(am.tests) == 0) {
		return append(out, envChecks(p, lang, b, a)...), nil
	}
	if !inBase {
		c.mu.Lock()
		c.models[p] = am
		c.mu.Unlock()
		// New tests may start skipped, but a new TestMain or init runs
		// around the tests already there.
		if lang == "go" {
			out = append(out, newHarnessCode(p, &fileModel{}, am)...)
		}
		return out, nil
	}
	out = append(out, compareModels(p, bm, am, b, a)...)
	if (lang == "rust" || lang == "java") && !c.det.isTestFile(p) {
		// Production code and unit tests share these files.
		out = append(out, envChecks(p, lang, b, a)...)
	}
	return out, nil
}

// pyNames are the test names pytest collects in p; nil for other languages.
func (c *comparer) pyNames(p string) *pyNaming {
	if langOf(p) != "python" {
		return nil
	}
	return c.det.pyNames(p)
}

// dropMoves removes test_file_deleted reports for files whose tests all
// reappear unchanged in a test file added by the same change: a rename that
// the runner still collects.
func (c *comparer) dropMoves(vs []Violation, files []string) []Violation {
	out := vs[:0]
	var moved []Violation
	for _, v := range vs {
		if v.Kind == TestFileDeleted && c.movedIntact(v.File) {
			continue
		}
		if v.Kind == TestFileDeleted && isScriptPath(v.File) && c.scriptMoved(v.File, files) {
			continue
		}
		if v.Kind == TestFileDeleted {
			if gone := c.movedOut(v.File, files); len(gone) > 0 {
				moved = append(moved, gone...)
				continue
			}
		}
		out = append(out, v)
	}
	return append(out, moved...)
}

func (c *comparer) movedIntact(p string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false // keep the deletion report
		}
	}()
	b, ok, _ := read(c.base, p)
	if !ok {
		return false
	}
	bm := analyzeNamed(langOf(p), p, b, c.pyNames(p))
	if bm == nil || len(bm.tests) == 0 || bm.parseErr {
		return false
	}
	for np, am := range c.models {
		// The new path must still be collected: a Java test moved out of
		// src/test is compiled but never run; Rust tests run from any module.
		if am == nil || am.lang != bm.lang {
			continue
		}
		if ok, _ := c.det.cur.Keeps(p, np); !ok {
			continue
		}
		if sameTests(bm, am) && sameMarkers(bm.markers, am.markers) {
			return true
		}
	}
	return false
}

func sameTests(a, b *fileModel) bool {
	if len(a.tests) != len(b.tests) {
		return false
	}
	idx := map[string]*testCase{}
	for _, t := range b.tests {
		idx[t.name] = t
	}
	for _, t := range a.tests {
		u := idx[t.name]
		if u == nil || !sameBody(t, u) {
			return false
		}
	}
	return true
}

func isBinary(b []byte) bool {
	n := len(b)
	if n > 8000 {
		n = 8000
	}
	return bytes.IndexByte(b[:n], 0) >= 0
}
