package protect

import (
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Detector decides which files are test files: which files each runner of
// the project collects, from the language's rules and the runner
// configuration nearest to the file (pytest, jest, vitest, mocha, node
// --test, cargo, Maven). A configuration it cannot read with certainty
// widens the rules to the union of what it seems to say and the runner's
// defaults, and is listed by Doubts.
type Detector struct {
	src Source

	mu     sync.Mutex
	dirs   map[string][]string // dir → names, for sources that list
	py     map[string]*pyRules // config dir → rules
	js     map[string]*jsRules
	cargo  map[string]*cargoRules
	jvm    map[string]*jvmRules
	doubts map[string]ConfigDoubt
}

// ConfigDoubt names a runner configuration that was not understood with
// certainty, and so was widened by the runner's default patterns.
type ConfigDoubt struct {
	File   string `json:"file"`
	Runner string `json:"runner"`
	Reason string `json:"reason"`
}

// NewDetector reads runner configuration from src as files are asked
// about; a nil src gives the conventional defaults.
func NewDetector(src Source) *Detector {
	return &Detector{src: src, dirs: map[string][]string{}, py: map[string]*pyRules{}, js: map[string]*jsRules{},
		cargo: map[string]*cargoRules{}, jvm: map[string]*jvmRules{}, doubts: map[string]ConfigDoubt{}}
}

var defaultDetector = NewDetector(nil)

// IsTestFile reports whether p (slash-separated, relative to the project
// root) is a test file by path alone. Rust and Java files can hold tests
// anywhere; ShouldSnapshot covers them.
func IsTestFile(p string, d ...*Detector) bool {
	det := defaultDetector
	if len(d) > 0 && d[0] != nil {
		det = d[0]
	}
	return det.IsTestFile(p)
}

// IsTestFile reports whether p is a test file by path. For Go, Python and
// JavaScript it is Collects; Rust files under tests/ and Java files under
// src/test or named like tests count even where no target runs them, so
// that their edits are compared.
func (d *Detector) IsTestFile(p string) bool {
	p = cleanPath(p)
	if strings.Contains("/"+p+"/", "/node_modules/") {
		return false
	}
	switch langOf(p) {
	case "rust":
		return strings.HasPrefix(p, "tests/") || strings.Contains(p, "/tests/")
	case "java":
		base := path.Base(p)
		stem := strings.TrimSuffix(base, ".java")
		return strings.Contains("/"+p, "/src/test/") || strings.HasSuffix(stem, "Test") ||
			strings.HasSuffix(stem, "Tests") || strings.HasSuffix(stem, "IT") || strings.HasPrefix(stem, "Test")
	}
	ok, _ := d.Collects(p)
	return ok
}

// Collects reports whether the project's runner collects p as a test file
// and, when it does not, why not (for a report). It is the interface the
// runner registry calls: what a runner collects is decided here.
func (d *Detector) Collects(p string) (bool, string) {
	p = cleanPath(p)
	if strings.Contains("/"+p+"/", "/node_modules/") {
		return false, "node_modules is never collected"
	}
	switch langOf(p) {
	case "go":
		return goCollects(p)
	case "python":
		return d.pyRulesFor(p).collects(p)
	case "javascript", "typescript", "tsx":
		return d.jsRulesFor(p).collects(p)
	case "rust":
		return d.cargoRulesFor(p).collects(p)
	case "java":
		return d.jvmRulesFor(p).collects(p)
	}
	return false, "not a test language"
}

// Doubts lists the configurations read so far that were not understood
// with certainty, by file.
func (d *Detector) Doubts() []ConfigDoubt {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]ConfigDoubt, 0, len(d.doubts))
	for _, c := range d.doubts {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}

func (d *Detector) doubt(file, runner, reason string) {
	d.doubts[file] = ConfigDoubt{File: file, Runner: runner, Reason: reason}
}

// ShouldSnapshot reports whether a turn-start snapshot must keep p's bytes
// so Compare can see tampering: test files, files that may hold tests
// (any Rust or Java source), files a runner could collect under its
// defaults, harness files, and expected-output files and input/expected
// pairs of test folders.
func (d *Detector) ShouldSnapshot(p string) bool {
	switch langOf(p) {
	case "rust", "java":
		return true
	}
	return d.IsTestFile(p) || looksLikeJSTest(cleanPath(p)) || harnessKind(p) != "" || isGoldenFile(p) || d.testDataPair(p) != "" || d.mayBeSupport(p)
}

func cleanPath(p string) string {
	return strings.TrimPrefix(path.Clean(strings.ReplaceAll(p, "\\", "/")), "./")
}

// ancestors returns p's directories from the nearest to the root (".").
func ancestors(p string) []string {
	var out []string
	for dir := path.Dir(p); ; dir = path.Dir(dir) {
		out = append(out, dir)
		if dir == "." || dir == "/" {
			return out
		}
	}
}

// rel returns p relative to dir ("." for the root).
func rel(dir, p string) string {
	if dir == "." {
		return p
	}
	return strings.TrimPrefix(p, dir+"/")
}

// DirLister is implemented by sources that list a folder's names cheaply;
// the detector then reads only the configuration files that exist.
type DirLister interface {
	ListDir(dir string) ([]string, error)
}

// has reports whether dir/name may exist: always true for a source that
// does not list.
func (d *Detector) has(dir, name string) bool {
	if _, ok := d.src.(DirLister); !ok {
		return true
	}
	names := d.listLocked(dir)
	if names == nil {
		return true
	}
	i := sort.SearchStrings(names, name)
	return i < len(names) && names[i] == name
}

// listLocked returns dir's sorted names, nil when the source cannot list
// them; d.mu is held.
func (d *Detector) listLocked(dir string) []string {
	l, ok := d.src.(DirLister)
	if !ok {
		return nil
	}
	names, seen := d.dirs[dir]
	if !seen {
		var err error
		if names, err = l.ListDir(dir); err != nil {
			names = nil // cannot list: read to find out
		} else if names == nil {
			names = []string{}
		}
		sort.Strings(names)
		d.dirs[dir] = names
	}
	return names
}

// readAt returns dir/name's bytes, nil when missing (or no source).
func (d *Detector) readAt(dir, name string) []byte {
	if d.src == nil || !d.has(dir, name) {
		return nil
	}
	b, err := d.src.ReadFile(path.Join(dir, name))
	if err != nil {
		return nil
	}
	return b
}

// detectorPair answers for the union of base and current configuration, so
// a file that was a test file in either tree is compared.
type detectorPair struct{ base, cur *Detector }

func newDetectorPair(base, cur Source) *detectorPair {
	return &detectorPair{base: NewDetector(base), cur: NewDetector(cur)}
}

func (d *detectorPair) isTestFile(p string) bool { return d.base.IsTestFile(p) || d.cur.IsTestFile(p) }

// pyNames are the test class and function names pytest collects in p, by
// the configuration of either tree.
func (d *detectorPair) pyNames(p string) *pyNaming {
	b, c := d.base.pyRulesFor(p).names, d.cur.pyRulesFor(p).names
	return &pyNaming{classes: append(slices.Clone(b.classes), c.classes...), functions: append(slices.Clone(b.functions), c.functions...)}
}

// candidate reports whether p may hold tests and must be analyzed.
func (d *detectorPair) candidate(p string) bool {
	switch langOf(p) {
	case "rust", "java":
		return true
	}
	return d.isTestFile(p)
}

// doubts merges both trees' doubts, the current tree's first.
func (d *detectorPair) doubts() []ConfigDoubt {
	seen := map[string]bool{}
	var out []ConfigDoubt
	for _, c := range append(d.cur.Doubts(), d.base.Doubts()...) {
		if !seen[c.File] {
			seen[c.File] = true
			out = append(out, c)
		}
	}
	return out
}
