package protect

import (
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// Test support files are not test files, but the tests run their code: a
// helper module under tests/ that a test file imports (yamllint's
// tests/common.py holds RuleTestCase.check, the assertEqual every rule
// test ends in), a Go testutil package whose functions take a *testing.T.
// Protection analyzes them as helper files: every function and method in
// them is a helper the tests call, compared like compareHelper compares
// the helpers of a test file (assertions removed, loosened or wrapped in a
// condition, skips and exits added); other edits are refactors.

// testSupportDirs name the folders whose Python modules are test support.
var testSupportDirs = map[string]bool{"tests": true, "test": true, "testing": true}

// pyUnderTestDir reports whether a folder on p's path is named tests, test
// or testing, outside installed or generated trees.
func pyUnderTestDir(p string) bool {
	found := false
	for _, dir := range strings.Split(path.Dir(p), "/") {
		switch {
		case dir == "site-packages" || dir == "node_modules" || (skipDirs[dir] && dir != "build"):
			return false
		case testSupportDirs[dir]:
			found = true
		}
	}
	return found
}

// holdsTests reports whether folder dir holds a Python file the runner
// collects; false when the source cannot list it.
func (d *Detector) holdsTests(dir string) bool {
	d.mu.Lock()
	names := d.listLocked(dir)
	d.mu.Unlock()
	for _, n := range names {
		if strings.HasSuffix(n, ".py") {
			if ok, _ := d.Collects(path.Join(dir, n)); ok {
				return true
			}
		}
	}
	return false
}

// mayBeSupport reports whether p may be a test support file by its path,
// so a turn-start snapshot keeps it; pySupport and goSupport decide from
// its contents.
func (d *Detector) mayBeSupport(p string) bool {
	p = cleanPath(p)
	switch langOf(p) {
	case "python":
		return !d.IsTestFile(p) && (pyUnderTestDir(p) || d.holdsTests(path.Dir(p)))
	case "go":
		// Not every Go source: those whose folder or name says test
		// (testutil, fstest, testhelpers.go).
		return goSupportPath(p) && strings.Contains(strings.ToLower(p), "test")
	}
	return false
}

// pyTestImport matches an import of a test framework.
var pyTestImport = regexp.MustCompile(`(?m)^[ \t]*(?:import|from)[ \t]+(?:pytest|unittest|_pytest)\b`)

// support reports whether p, with base bytes b and current bytes a (nil
// when missing), is a test support file: a Python module that is no test
// file nor conftest.py (a harness file) and lies under a folder named
// tests, test or testing, or beside collected test files and imports
// pytest or unittest; or a Go file of a package's non-test sources that
// imports testing (goSupport).
func (d *detectorPair) support(p string, b, a []byte) bool {
	switch langOf(p) {
	case "python":
		if d.isTestFile(p) || path.Base(p) == "conftest.py" || strings.Contains("/"+p+"/", "/node_modules/") {
			return false
		}
		if pyUnderTestDir(p) {
			return true
		}
		// A module beside the tests may be the code they test: only one
		// that imports a test framework is theirs.
		dir := path.Dir(p)
		return (pyTestImport.Match(b) || pyTestImport.Match(a)) && (d.cur.holdsTests(dir) || d.base.holdsTests(dir))
	case "go":
		// Only where the path says test (testutil, zaptest, fstest,
		// testhelpers.go): a library whose product is test helpers
		// (testify's assert, go-testdeep's td) imports testing in its
		// own code, and editing that code is its work, not tampering.
		return goSupportPath(p) && strings.Contains(strings.ToLower(p), "test") && (goImportsTesting(p, b) || goImportsTesting(p, a))
	}
	return false
}

// goSupportPath reports whether p is a Go source the go tool builds in a
// package (not a _test.go file, nor under testdata, vendor or a folder
// beginning with _ or .).
func goSupportPath(p string) bool {
	base := path.Base(p)
	if strings.HasSuffix(base, "_test.go") || strings.HasPrefix(base, "_") || strings.HasPrefix(base, ".") {
		return false
	}
	for _, dir := range strings.Split(path.Dir(p), "/") {
		if dir == "testdata" || dir == "vendor" || (dir != "." && (strings.HasPrefix(dir, "_") || strings.HasPrefix(dir, "."))) {
			return false
		}
	}
	return true
}

// goImportsTesting reports whether a Go source imports "testing": only
// then can its functions take a *testing.T and fail a test.
func goImportsTesting(p string, src []byte) bool {
	if src == nil || !strings.Contains(string(src), `"testing"`) {
		return false
	}
	f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ImportsOnly)
	if f == nil {
		return err == nil
	}
	for _, im := range f.Imports {
		if v, _ := strconv.Unquote(im.Path.Value); v == "testing" {
			return true
		}
	}
	return false
}
