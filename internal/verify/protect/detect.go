package protect

import (
	"encoding/json"
	"path"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Detector decides which files are test files, from language conventions
// and the project's runner configuration (pytest, jest, vitest).
type Detector struct {
	pyFiles     []string // python_files basename globs
	pyTestpaths []string
	pyFuncs     []string // python_functions prefixes
	pyClasses   []string // python_classes prefixes
	jsMatch     []string // doublestar globs
	jsRegex     []*regexp.Regexp
}

// NewDetector reads the runner configuration at the root of src; a nil
// src gives the conventional defaults.
func NewDetector(src Source) *Detector {
	d := &Detector{}
	if src != nil {
		d.loadPytest(src)
		d.loadJS(src)
	}
	if len(d.pyFiles) == 0 {
		d.pyFiles = []string{"test_*.py", "*_test.py"}
	}
	if len(d.pyFuncs) == 0 {
		d.pyFuncs = []string{"test"}
	}
	if len(d.pyClasses) == 0 {
		d.pyClasses = []string{"Test"}
	}
	return d
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

// IsTestFile reports whether p is a test file by path.
func (d *Detector) IsTestFile(p string) bool {
	p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
	if strings.Contains("/"+p+"/", "/node_modules/") {
		return false
	}
	base := path.Base(p)
	switch langOf(p) {
	case "go":
		return strings.HasSuffix(base, "_test.go")
	case "python":
		return d.isPyTest(p, base)
	case "javascript", "typescript", "tsx":
		return d.isJSTest(p, base)
	case "rust":
		return strings.HasPrefix(p, "tests/") || strings.Contains(p, "/tests/")
	case "java":
		stem := strings.TrimSuffix(base, ".java")
		return strings.Contains("/"+p, "/src/test/") || strings.HasSuffix(stem, "Test") ||
			strings.HasSuffix(stem, "Tests") || strings.HasSuffix(stem, "IT") || strings.HasPrefix(stem, "Test")
	}
	return false
}

// ShouldSnapshot reports whether a turn-start snapshot must keep p's bytes
// so Compare can see tampering: test files, files that may hold tests
// (any Rust or Java source) and harness files.
func (d *Detector) ShouldSnapshot(p string) bool {
	switch langOf(p) {
	case "rust", "java":
		return true
	}
	return d.IsTestFile(p) || harnessKind(p) != "" || isGoldenFile(p)
}

func (d *Detector) isPyTest(p, base string) bool {
	if base == "conftest.py" {
		return false
	}
	ok := false
	for _, g := range d.pyFiles {
		if m, _ := path.Match(g, base); m {
			ok = true
		}
	}
	if !ok || len(d.pyTestpaths) == 0 {
		return ok
	}
	for _, tp := range d.pyTestpaths {
		tp = strings.Trim(path.Clean(tp), "/")
		if tp == "." || p == tp || strings.HasPrefix(p, tp+"/") {
			return true
		}
		if m, _ := doublestar.Match(tp+"/**", p); m {
			return true
		}
	}
	return false
}

func (d *Detector) isJSTest(p, base string) bool {
	if len(d.jsMatch) > 0 || len(d.jsRegex) > 0 {
		for _, g := range d.jsMatch {
			if m, _ := doublestar.Match(g, p); m {
				return true
			}
			if m, _ := doublestar.Match(strings.TrimPrefix(g, "**/"), p); m {
				return true
			}
		}
		for _, re := range d.jsRegex {
			if re.MatchString("/" + p) {
				return true
			}
		}
		return false
	}
	// jest's __tests__; mocha's and node --test's test/ directories.
	if strings.Contains("/"+p, "/__tests__/") || strings.Contains("/"+p, "/test/") || strings.Contains("/"+p, "/tests/") {
		return true
	}
	stem := strings.TrimSuffix(base, path.Ext(base))
	return strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") || strings.HasSuffix(stem, "-test") ||
		strings.HasSuffix(stem, "_test") || strings.HasPrefix(stem, "test-") || stem == "test" || stem == "spec"
}

func (d *Detector) loadPytest(src Source) {
	for _, kv := range pytestConfigs(src) {
		if v, ok := kv["python_files"]; ok {
			d.pyFiles = strings.Fields(v)
		}
		if v, ok := kv["testpaths"]; ok {
			d.pyTestpaths = strings.Fields(v)
		}
		if v, ok := kv["python_functions"]; ok {
			d.pyFuncs = globPrefixes(v)
		}
		if v, ok := kv["python_classes"]; ok {
			d.pyClasses = globPrefixes(v)
		}
	}
}

func globPrefixes(v string) []string {
	var out []string
	for _, f := range strings.Fields(v) {
		out = append(out, strings.TrimSuffix(f, "*"))
	}
	return out
}

func (d *Detector) loadJS(src Source) {
	var cfgs []map[string][]string
	pkgJSON, _ := src.ReadFile("package.json")
	defer func() { d.runnerDefaults(pkgJSON) }()
	if b, err := src.ReadFile("package.json"); err == nil {
		var pkg struct {
			Jest map[string]any `json:"jest"`
		}
		if json.Unmarshal(b, &pkg) == nil && pkg.Jest != nil {
			cfgs = append(cfgs, flattenJSON(pkg.Jest))
		}
	}
	for _, name := range jsConfigNames {
		if b, err := src.ReadFile(name); err == nil {
			cfgs = append(cfgs, jsConfigValues(name, b))
		}
	}
	for _, c := range cfgs {
		for _, g := range append(c["testMatch"], c["include"]...) {
			d.jsMatch = append(d.jsMatch, micromatchToDoublestar(g))
		}
		for _, r := range c["testRegex"] {
			if re, err := regexp.Compile(r); err == nil {
				d.jsRegex = append(d.jsRegex, re)
			}
		}
	}
}

var jsConfigNames = []string{
	"jest.config.js", "jest.config.ts", "jest.config.mjs", "jest.config.cjs", "jest.config.json",
	"vitest.config.ts", "vitest.config.js", "vitest.config.mts", "vitest.config.mjs",
	"vite.config.ts", "vite.config.js", "vite.config.mts", "vite.config.mjs",
}

var extglob = regexp.MustCompile(`[?+*@!]\(([^()]*)\)`)

// micromatchToDoublestar rewrites the extglobs jest uses (?(x), +(a|b),
// @(a|b)) into doublestar alternations.
func micromatchToDoublestar(g string) string {
	g = strings.TrimPrefix(g, "<rootDir>/")
	g = strings.TrimPrefix(g, "./")
	g = extglob.ReplaceAllStringFunc(g, func(m string) string {
		if m[0] == '!' {
			// "anything but": doublestar has no negation; matching more
			// files only puts more of them under protection.
			return "*"
		}
		inner := m[2 : len(m)-1]
		alts := strings.Split(inner, "|")
		if m[0] == '?' || m[0] == '*' {
			alts = append(alts, "")
		}
		return "{" + strings.Join(alts, ",") + "}"
	})
	// A plain group, *.(spec|test).ts, is one of its alternatives.
	return plainGroup.ReplaceAllStringFunc(g, func(m string) string {
		return "{" + strings.ReplaceAll(m[1:len(m)-1], "|", ",") + "}"
	})
}

// plainGroup is a parenthesised list of alternatives with no extglob
// sign before it (those are rewritten first).
var plainGroup = regexp.MustCompile(`\([^()]*\|[^()]*\)`)

// detectorPair answers for the union of base and current configuration, so
// a file that was a test file in either tree is compared.
type detectorPair struct{ base, cur *Detector }

func newDetectorPair(base, cur Source) *detectorPair {
	return &detectorPair{base: NewDetector(base), cur: NewDetector(cur)}
}

func (d *detectorPair) isTestFile(p string) bool { return d.base.IsTestFile(p) || d.cur.IsTestFile(p) }

// candidate reports whether p may hold tests and must be analyzed.
func (d *detectorPair) candidate(p string) bool {
	switch langOf(p) {
	case "rust", "java":
		return true
	}
	return d.isTestFile(p)
}
