package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/safetext"
	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// jest is `jest` and `npx jest` (and the npm test script that is one):
// results from its JSON report.
type jest struct{ base }

var _ Runner = jest{}

func init() {
	register(jest{base{
		name:    Jest,
		targets: NoTargets,
		flags: Flags{
			Safe:    []string{"--ci", "--silent", "--verbose", "--runInBand", "-i", "--coverage", "--colors", "--no-cache", "--json", "--detectOpenHandles", "--forceExit"},
			Filters: []string{"-t", "--testNamePattern", "-o", "--onlyChanged", "--changedSince", "--findRelatedTests", "--runTestsByPath", "--roots", "--listTests", "--testPathPattern", "--testPathIgnorePatterns", "--lastCommit", "--onlyFailures", "-f", "--passWithNoTests", "--bail", "--shard", "--selectProjects"},
		},
		env:      jsEnv,
		collects: []string{"**/__tests__/**/*.?(c|m)[jt]s?(x)", "**/*.{test,spec}.?(c|m)[jt]s?(x)"},
		fallback: []fallbackRule{{regexp.MustCompile(`No tests found`), FallbackNoTests}},
	}})
}

func (j jest) Recognize(args []string) (Invocation, bool) {
	prog := path.Base(at(args, 0))
	switch {
	case prog == "jest":
		return j.read(args, 1), true
	case prog == "npx" && at(args, 1) == "jest":
		return j.read(args, 2), true
	}
	return Invocation{}, false
}

// NoTests: jest and vitest exit 1 when they find no test file.
func (jest) NoTests(exit, tests int, _ string) bool { return tests == 0 && (exit == 0 || exit == 1) }

func (jest) Collector(reportDir, dir string) Collector { return newJestJSON(reportDir, dir, false) }

// NarrowTests runs the failing tests by full name with -t, when the
// arguments reach jest (directly, or through a plain test script), and
// only their files (--runTestsByPath) when every failure names its file
// and each is there: the base lacks a test file that is new.
func (jest) NarrowTests(dir string, args []string, tests []Failure) ([]string, bool) {
	pattern, ok := jsNamePattern(dir, args, tests, "jest")
	if !ok {
		return nil, false
	}
	if files, ok := failingFiles(dir, tests); ok {
		if out, _ := jestWith(dir, withoutJSPaths(args), append([]string{"--runTestsByPath"}, files...)); out != nil {
			return append(out, "-t", pattern), true
		}
	}
	return withExtraArgs(args, "-t", pattern), true
}

// jsNamePattern is the -t pattern '^(a|b)( \(with seed=N\))?$' over the
// failing tests' full names, with any fast-check seed (see testName); ok
// is false when the arguments do not reach the runner or a failure is not
// a test (a suite that failed to run).
func jsNamePattern(dir string, args []string, tests []Failure, prog string) (string, bool) {
	if !slices.ContainsFunc(args, func(a string) bool { return path.Base(a) == prog }) && !(path.Base(at(args, 0)) == "npm" && plainTestScript(dir)) {
		return "", false
	}
	var names []string
	for _, f := range tests {
		if strings.HasSuffix(f.Name, ")") && strings.Contains(f.Name, " (suite failed to run)") {
			return "", false
		}
		names = append(names, regexp.QuoteMeta(sameNameIndex.ReplaceAllString(f.Name, "")))
	}
	if len(names) == 0 {
		return "", false
	}
	return "^(" + strings.Join(names, "|") + ")" + anySeed + "$", true
}

// fastCheckSeed is the " (with seed=N)" that @fast-check/jest's and
// @fast-check/vitest's test.prop end a test's name with, N random each
// run and negative too; anySeed matches it in a -t pattern (JS syntax).
var fastCheckSeed = regexp.MustCompile(` \(with seed=-?\d+\)$`)

const anySeed = `( \(with seed=-?\d+\))?`

// sameNameIndex is the " (2nd of that name)" that tells a test from the
// earlier ones of its file with the same full name; the runner knows them
// by the name alone.
var sameNameIndex = regexp.MustCompile(` \(\d+(?:st|nd|rd|th) of that name\)$`)

// testName is a jest or vitest test's full name without a fast-check
// seed, so that runs (and the base's) name the same test alike.
func testName(full string) string {
	return fastCheckSeed.ReplaceAllString(strings.TrimSpace(full), "")
}

// failingFiles are the test files of failures named "file › test" (from
// the JSON report) that dir has: a file the base lacks is new, and so are
// its failures. ok is false when a failure names no file, or none is left.
func failingFiles(dir string, tests []Failure) ([]string, bool) {
	var files []string
	for _, f := range tests {
		file, _, found := strings.Cut(f.ID, " › ")
		if !found || filepath.IsAbs(file) || file == ".." || strings.HasPrefix(file, "../") {
			return nil, false
		}
		if !fileExists(filepath.Join(dir, filepath.FromSlash(file))) {
			continue
		}
		if !slices.Contains(files, file) {
			files = append(files, file)
		}
	}
	slices.Sort(files)
	return files, len(files) > 0
}

// withoutJSPaths drops the file list a related selection ended with
// (--findRelatedTests FILES, --runTestsByPath FILES).
func withoutJSPaths(args []string) []string {
	for i, a := range args {
		if a == "--findRelatedTests" || a == "--runTestsByPath" {
			return args[:i:i]
		}
	}
	return args
}

func newJestJSON(reportDir, dir string, vitest bool) *jestJSON {
	j := &jestJSON{file: filepath.Join(reportDir, "report.json"), dir: dir, vitest: vitest}
	j.text = reportDir == ""
	return j
}

// ---- jest / vitest JSON ----

type jestJSON struct {
	file   string
	dir    string
	vitest bool
	// text is set when no report was asked for; names come from the text.
	text bool
	lp   lineParser
}

type jestReport struct {
	NumTotalTests int `json:"numTotalTests"`
	TestResults   []struct {
		Name             string `json:"name"`
		Status           string `json:"status"`
		Message          string `json:"message"`
		AssertionResults []struct {
			FullName        string   `json:"fullName"`
			Status          string   `json:"status"`
			FailureMessages []string `json:"failureMessages"`
		} `json:"assertionResults"`
	} `json:"testResults"`
}

func (j *jestJSON) Args(user []string) []string {
	if j.text {
		return user
	}
	if len(user) > 0 && filepath.Base(user[0]) == "npm" && !plainTestScript(j.dir) {
		// Arguments after "--" would reach the script's last command,
		// which may not be the test runner: add nothing, read the text.
		j.text = true
		return user
	}
	if j.vitest {
		return withExtraArgs(user, "--reporter=default", "--reporter=json", "--outputFile.json="+j.file)
	}
	return withExtraArgs(user, "--json", "--outputFile="+j.file)
}

func (j *jestJSON) Stdout() io.Writer {
	j.lp.parse = parseJestText
	return j.lp.Stdout()
}

// plainTestScript reports whether package.json's test script in dir is a
// single jest or vitest command, so extra arguments reach the runner.
func plainTestScript(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return false
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return false
	}
	parsed, err := shell.Parse(pkg.Scripts["test"])
	if err != nil || !parsed.Simple || !parsed.Commands[0].Literal {
		return false
	}
	words := parsed.Commands[0].Args
	for len(words) > 0 && (strings.Contains(words[0], "=") || words[0] == "npx" || words[0] == "cross-env") {
		words = words[1:]
	}
	return len(words) > 0 && (path.Base(words[0]) == "jest" || path.Base(words[0]) == "vitest")
}

var (
	// jestFailText is jest's "● suite › test" heading of a failure.
	jestFailText = regexp.MustCompile(`^\s*● (.+)$`)
	// vitestFailText is vitest's "FAIL  file > suite > test" line.
	vitestFailText = regexp.MustCompile(`^\s*(?:FAIL|×)\s+\S+ > (.+?)(?: \d+m?s)?$`)
)

// parseJestText names failures from jest's or vitest's text output, for
// test scripts that could not be given report flags.
func parseJestText(line string, o *Outcome) {
	name := ""
	if m := jestFailText.FindStringSubmatch(line); m != nil && m[1] != "Test suite failed to run" {
		name = strings.ReplaceAll(m[1], " › ", " ")
	} else if m := vitestFailText.FindStringSubmatch(line); m != nil {
		name = strings.ReplaceAll(m[1], " > ", " ")
	}
	if name = testName(name); name != "" {
		o.Failures = appendUnique(o.Failures, Failure{ID: name, Name: name})
	}
}

func (j *jestJSON) Finish(res run.Result) Outcome {
	o := j.lp.Finish(res)
	if bytes.Contains(res.Output, []byte("No tests found")) || bytes.Contains(res.Output, []byte("No test files found")) {
		o.Tests = 0
	}
	if j.text {
		return o
	}
	o.Text = dropContaining(string(res.Output), filepath.Base(filepath.Dir(j.file)))
	what := "jest"
	if j.vitest {
		what = "vitest"
	}
	data, err := os.ReadFile(j.file)
	if err != nil {
		o.NoReport = "the " + what + " JSON report it was asked for"
		return o
	}
	var rep jestReport
	if json.Unmarshal(data, &rep) != nil {
		o.NoReport = "a readable " + what + " JSON report"
		return o
	}
	o.Tests, o.Failures = rep.NumTotalTests, nil
	var ex strings.Builder
	for _, tr := range rep.TestResults {
		file := tr.Name
		if rel, err := filepath.Rel(j.dir, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = rel
		}
		anyFailed := false
		seen := map[string]int{}
		for _, a := range tr.AssertionResults {
			name := testName(a.FullName)
			// Tests of one file may share a full name (immer: nine
			// "modify deep object - keep value"); each is a test of
			// its own, told apart by its place among them.
			if seen[name]++; seen[name] > 1 {
				name += fmt.Sprintf(" (%s of that name)", safetext.Ordinal(seen[name]))
			}
			if a.Status == "passed" {
				o.Passed = append(o.Passed, Failure{ID: file + " › " + name, Name: name})
			}
			if a.Status != "failed" {
				continue
			}
			anyFailed = true
			o.Failures = append(o.Failures, Failure{ID: file + " › " + name, Name: name})
			for _, m := range a.FailureMessages {
				if ex.Len() < 16<<10 {
					ex.WriteString(name + "\n" + m + "\n")
				}
			}
		}
		if !anyFailed && tr.Status == "failed" {
			o.Failures = append(o.Failures, Failure{ID: file, Name: file + " (suite failed to run)"})
			if ex.Len() < 16<<10 {
				ex.WriteString(tr.Message + "\n")
			}
		}
	}
	if len(o.Text) > ExcerptTail {
		// The tail alone may have lost the failure messages.
		o.Excerpt = ex.String()
	}
	return o
}

// Related builds `jest ... --findRelatedTests FILES`, through the test
// script when that is one plain jest command.
func (jest) Related(dir string, args, files []string) ([]string, scope.Reason) {
	return jestWith(dir, args, append([]string{"--findRelatedTests"}, files...))
}

// jestWith adds extra to a jest invocation: after its own words when args
// run jest directly, after "--" when they run a test script that is one
// plain jest command.
func jestWith(dir string, args, extra []string) ([]string, scope.Reason) {
	if runnerAt(args, "jest") >= 0 {
		return append(append([]string{}, args...), extra...), scope.Reason{}
	}
	words, isScript, reason := npmScript(dir, args)
	if !isScript {
		return nil, scope.For(scope.NotDirect, "jest")
	}
	if reason.Code == scope.ScriptSetsEnv {
		reason = scope.Reason{} // npm keeps them: the arguments go through the script
	}
	if !reason.IsZero() {
		return nil, reason
	}
	if runnerAt(words, "jest") < 0 {
		return nil, scope.For(scope.ScriptNotPlain, "jest")
	}
	out := append([]string{}, args...)
	if args[0] == "npm" && !slices.Contains(args, "--") {
		out = append(out, "--")
	}
	return append(out, extra...), scope.Reason{}
}
