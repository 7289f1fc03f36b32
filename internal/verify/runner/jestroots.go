package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// RelatedLister is a runner whose related tests are listed by one run and
// then run by path in another, because its related-test mode sees only
// part of the project (jest's graph holds only the files under its
// configured roots, so a change in src/ with roots ["test"] relates to
// nothing, and one reached through a folder outside the roots is missed).
type RelatedLister interface {
	// ListRelated returns args that print the test files related to the
	// changed files, by the runner's graph over the whole project; nil
	// when the one-run Related sees the whole project already.
	ListRelated(dir string, args, files []string) ([]string, scope.Reason)
	// ListAll returns args that print the test files the check runs, by
	// the project's own configuration; the related run keeps to these.
	ListAll(dir string, args []string) []string
	// ParseList reads the listing's output: test files relative to dir.
	ParseList(dir string, output []byte) ([]string, error)
	// RunPaths returns args running exactly the listed test files, under
	// the project's own configuration (which still decides what a test
	// is: roots, testMatch, testRegex, testPathIgnorePatterns).
	RunPaths(dir string, args, tests []string) ([]string, scope.Reason)
}

var _ RelatedLister = jest{}

// jestScopeWords are the configuration keys that can keep jest's graph
// from holding the whole project folder, and the imports of a config file
// that may bring them from elsewhere.
var jestScopeWords = regexp.MustCompile(`\b(roots|rootDir|projects|preset)\b|\brequire\s*\(|\bimport\b`)

// jestScopeFlags are the command-line flags that can do the same.
var jestScopeFlags = []string{"--roots", "--rootDir", "--projects", "--preset", "--config", "-c"}

// ListRelated widens jest's roots to the project folder for a listing
// run: `--listTests --json --roots <rootDir> DIR --findRelatedTests
// FILES`. It is needed only when the configuration may set its roots: a
// key of package.json's "jest" or of a jest.config file names them (or a
// preset, projects or an import, which may), or a flag does; otherwise
// nil.
func (jest) ListRelated(dir string, args, files []string) ([]string, scope.Reason) {
	if !jestMayLimitRoots(dir, args) {
		return nil, scope.Reason{}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, scope.Reason{Code: scope.NotWorkedOut, Detail: err.Error()}
	}
	extra := []string{"--listTests", "--json", "--roots", "<rootDir>", abs, "--findRelatedTests"}
	return jestWith(dir, args, append(extra, files...))
}

// ListAll builds `jest ... --listTests --json`.
func (jest) ListAll(dir string, args []string) []string {
	out, _ := jestWith(dir, args, []string{"--listTests", "--json"})
	return out
}

// RunPaths builds `jest ... --runTestsByPath TESTS`: jest keeps only the
// paths that are tests under the project's configuration.
func (jest) RunPaths(dir string, args, tests []string) ([]string, scope.Reason) {
	return jestWith(dir, args, append([]string{"--runTestsByPath"}, tests...))
}

// ParseList reads jest's `--listTests --json` output: the last line that
// is a JSON array of paths (npm prints its own lines before it).
func (jest) ParseList(dir string, output []byte) ([]string, error) {
	lines := bytes.Split(output, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		line := bytes.TrimSpace(lines[i])
		if !bytes.HasPrefix(line, []byte("[")) {
			continue
		}
		var paths []string
		if json.Unmarshal(line, &paths) != nil {
			continue
		}
		out := make([]string, 0, len(paths))
		for _, p := range paths {
			rel, err := filepath.Rel(dir, p)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return nil, errors.New("jest listed a test outside the project: " + p)
			}
			out = append(out, filepath.ToSlash(rel))
		}
		slices.Sort(out)
		return out, nil
	}
	return nil, errors.New("jest --listTests printed no list")
}

// jestMayLimitRoots reports whether jest's configuration in dir, or a
// flag of the command or its test script, may set the roots jest crawls.
// Unreadable configuration counts as may.
func jestMayLimitRoots(dir string, args []string) bool {
	words := args
	if w, isScript, _ := npmScript(dir, args); isScript {
		words = append(append([]string{}, args...), w...)
	}
	for _, w := range words {
		name, _, _ := strings.Cut(w, "=")
		if slices.Contains(jestScopeFlags, name) {
			return true
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil && !os.IsNotExist(err) {
		return true
	}
	if err == nil {
		var pkg struct {
			Jest json.RawMessage `json:"jest"`
		}
		if json.Unmarshal(data, &pkg) != nil || jestScopeWords.Match(pkg.Jest) {
			return true
		}
	}
	configs, _ := filepath.Glob(filepath.Join(dir, "jest.config.*"))
	for _, c := range configs {
		data, err := os.ReadFile(c)
		if err != nil || jestScopeWords.Match(data) {
			return true
		}
	}
	return false
}
