package runner

import (
	"encoding/xml"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// pytest is `pytest` and `python -m pytest`: paths as targets, results
// from chanto's report plugin or --junitxml (pytestreport.go; its text
// when no report can be written).
type pytest struct{ base }

var _ Runner = pytest{}

func init() {
	register(pytest{base{
		name:    Pytest,
		targets: Paths,
		flags: Flags{
			Valued:  []string{"-k", "-m", "-p", "--deselect", "--ignore", "--ignore-glob", "--maxfail", "--tb", "-W", "-r", "--rootdir", "-c", "--junitxml", "-n", "--durations", "-o", "--basetemp", "--color", "--import-mode", "--timeout"},
			Filters: []string{"-k", "-m", "--deselect", "--ignore", "--ignore-glob", "--co", "--collect-only", "--lf", "--last-failed", "--sw", "--stepwise", "--setup-only", "--setup-plan", "--fixtures", "--markers", "-h", "--help", "--version"},
			Safe:    []string{"-q", "-qq", "-v", "-vv", "-s", "-x", "--exitfirst", "-l", "--ff", "--failed-first", "-p", "--maxfail", "--tb", "-W", "-r", "-ra", "-rA", "--rootdir", "-c", "--junitxml", "-n", "--durations", "-o", "--basetemp", "--color", "--no-header", "--strict-markers", "--import-mode", "--timeout", "--capture=no", "--disable-warnings", "--showlocals"},
		},
		collects: []string{"**/test_*.py", "**/*_test.py"},
		fallback: []fallbackRule{
			{regexp.MustCompile(`ERROR: (file or directory|module or package) not found`), FallbackMissing},
			{regexp.MustCompile(`(?m)(collected 0 items|no tests ran in)`), FallbackNoTests},
		},
	}})
}

func (p pytest) Recognize(args []string) (Invocation, bool) {
	prog := path.Base(at(args, 0))
	switch {
	case strings.HasPrefix(prog, "python") && at(args, 1) == "-m" && at(args, 2) == "pytest":
		return p.read(args, 3), true
	case prog == "pytest" || prog == "py.test":
		return p.read(args, 1), true
	}
	return Invocation{}, false
}

// NoTests: pytest exits 5 when it collected nothing.
func (pytest) NoTests(exit, tests int, _ string) bool {
	return exit == 5 || tests == 0 && exit == 0
}

func (p pytest) Fallback(exit int, output []byte) (scope.Reason, bool) {
	if why, ok := p.base.Fallback(exit, output); ok {
		return why, ok
	}
	switch exit {
	case 5:
		return FallbackNoTests, true
	case 4:
		return FallbackMissing, true
	}
	return scope.Reason{}, false
}

// NarrowTargets appends the test files to argv, dropping the paths it
// named (they would re-widen the run).
func (pytest) NarrowTargets(dir string, args, files []string) ([]string, bool) {
	var out []string
	afterPytest := false
	for i, a := range args {
		if i > 0 && args[i-1] == "-m" && a == "pytest" || path.Base(a) == "pytest" || path.Base(a) == "py.test" {
			afterPytest = true
			out = append(out, a)
			continue
		}
		if afterPytest && !strings.HasPrefix(a, "-") && pathExists(filepath.Join(dir, a)) {
			continue
		}
		out = append(out, a)
	}
	return append(out, files...), true
}

// NarrowTests names each failing test by its node id (tests/t.py::T::x),
// found from the report's dotted class name by the file that exists.
func (p pytest) NarrowTests(dir string, args []string, tests []Failure) ([]string, bool) {
	var ids []string
	for _, f := range tests {
		cls, name, ok := strings.Cut(f.ID, "::")
		if !ok {
			return nil, false // a collection error names no test
		}
		id, ok := pytestNodeID(dir, cls, name)
		if !ok {
			return nil, false
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, false
	}
	return p.NarrowTargets(dir, args, ids)
}

// pytestNodeID turns junit's "pkg.mod.Class" and "test_x" into
// "pkg/mod.py::Class::test_x".
func pytestNodeID(dir, classname, name string) (string, bool) {
	file, rest, ok := PytestFile(dir, classname)
	if !ok {
		return "", false
	}
	return strings.Join(append(append([]string{file}, rest...), name), "::"), true
}

// PytestFile finds the file of a JUnit classname under dir. pytest makes
// the classname from the node id, writing the file's path with dots for
// slashes and without ".py": "tests.test_a.TestK" is tests/test_a.py's
// class TestK, "docs.usage.a.rst" the doctests of docs/usage/a.rst, and a
// folder or a text file may have dots of its own. The longest run of the
// parts that names a file wins; rest are the classes after it.
func PytestFile(dir, classname string) (file string, rest []string, ok bool) {
	parts := strings.Split(classname, ".")
	best := 0
	var walk func(rel string, i int)
	walk = func(rel string, i int) {
		for j := i + 1; j <= len(parts); j++ {
			p := path.Join(rel, strings.Join(parts[i:j], "."))
			full := filepath.Join(dir, filepath.FromSlash(p))
			switch {
			case j > best && isRegular(full+".py"):
				best, file = j, p+".py"
			case j > best && !strings.HasSuffix(p, ".py") && isRegular(full):
				best, file = j, p
			}
			if fi, err := os.Stat(full); err == nil && fi.IsDir() {
				walk(p, j)
			}
		}
	}
	walk("", 0)
	if best == 0 {
		return "", nil, false
	}
	return file, parts[best:], true
}

func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func (pytest) Collector(reportDir, _ string) Collector {
	if reportDir == "" {
		return &pytestText{lineParser{parse: parsePytestText}}
	}
	return newPytestCollector(reportDir)
}

// pytestText reads a run's text alone.
type pytestText struct{ lineParser }

func (p *pytestText) Finish(res run.Result) Outcome {
	return pytestStopped(p.lineParser.Finish(res), res.ExitCode)
}

// pytestStopped keeps what the text said stopped the session only when
// the exit code agrees: pytest exits 2 when collection errors interrupted
// it, and 1 when -x stopped it at a failure. The same lines in a failing
// test's captured output (a plugin's tests of nested sessions) are not
// this session's.
func pytestStopped(o Outcome, exit int) Outcome {
	collection := slices.Contains(o.GoOn, "--continue-on-collection-errors")
	if collection && exit != 2 || !collection && o.Interrupted != "" && exit != 1 {
		o.Interrupted, o.GoOn = "", nil
	}
	return o
}

// ---- pytest --junitxml ----

type junit struct {
	file string
	lp   lineParser
}

type junitCase struct {
	Classname string    `xml:"classname,attr"`
	Name      string    `xml:"name,attr"`
	Time      float64   `xml:"time,attr"`
	Failure   *struct{} `xml:"failure"`
	Error     *struct{} `xml:"error"`
	Skipped   *struct{} `xml:"skipped"`
	// Collect is set, from chanto's plugin, for a collection that failed
	// (a class or module pytest could not collect): its tests never ran.
	Collect bool `xml:"-"`
}

type junitSuite struct {
	Cases  []junitCase  `xml:"testcase"`
	Suites []junitSuite `xml:"testsuite"`
}

func (j *junit) Args(user []string) []string {
	return append(append([]string(nil), user...), "--junitxml="+j.file)
}

func (j *junit) Stdout() io.Writer { return j.lp.Stdout() }

func (j *junit) Finish(res run.Result) Outcome {
	o := pytestStopped(j.lp.Finish(res), res.ExitCode)
	o.Text = dropContaining(string(res.Output), filepath.Base(filepath.Dir(j.file)))
	data, err := os.ReadFile(j.file)
	if err != nil {
		o.NoReport = "the JUnit report it was asked for (--junitxml)"
		return o
	}
	var root junitSuite
	if xml.Unmarshal(data, &root) != nil {
		o.NoReport = "a readable JUnit report (--junitxml)"
		return o
	}
	var cases []junitCase
	var walk func(s junitSuite)
	walk = func(s junitSuite) {
		cases = append(cases, s.Cases...)
		for _, sub := range s.Suites {
			walk(sub)
		}
	}
	walk(root)
	return junitOutcome(o, cases)
}

// junitOutcome counts pytest's test cases (a JUnit report's, or the ones
// chanto's plugin report stands for) and names the failures and passes.
func junitOutcome(o Outcome, cases []junitCase) Outcome {
	o.Tests, o.Failures, o.Secs = 0, nil, map[string]float64{}
	for _, c := range cases {
		o.Tests++
		if c.Classname != "" {
			o.Secs[c.Classname+"::"+c.Name] += c.Time
		}
		if c.Failure == nil && c.Error == nil {
			if c.Skipped == nil && c.Classname != "" {
				o.Passed = append(o.Passed, Failure{ID: c.Classname + "::" + c.Name, Name: pytestName(c.Classname, c.Name)})
			}
			continue
		}
		f := Failure{ID: c.Classname + "::" + c.Name, Name: pytestName(c.Classname, c.Name)}
		switch {
		case c.Classname == "":
			f = Failure{ID: c.Name, Name: c.Name + " (collection error)"}
		case c.Collect:
			f.Name += " (collection error)"
		}
		o.Failures = append(o.Failures, f)
	}
	return o
}

var (
	// pytestFailed is a line of pytest's short test summary.
	pytestFailed = regexp.MustCompile(`^(FAILED|ERROR) (\S+?)(?: - .*)?$`)
	pytestCount  = regexp.MustCompile(`^=+ (.*\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed).*) in [\d.]+s`)
	pytestNumber = regexp.MustCompile(`(\d+) (passed|failed|errors?|xfailed|xpassed)`)
	// pytestInterrupted is the line of a session that stopped at its
	// collection errors (without --continue-on-collection-errors).
	pytestInterrupted = regexp.MustCompile(`^!+ Interrupted: \d+ errors? during collection !+$`)
	// pytestStopLine is the line of a session -x or --maxfail stopped.
	pytestStopLine = regexp.MustCompile(`^!+ (?:Interrupted: )?stopping after (\d+) failures? !+$`)
)

// parsePytestText reads pytest's short summary ("FAILED tests/t.py::T::x
// - msg") and final count, for runs whose junit report could not be
// written. The ID follows junit's form (dotted module, "::" test).
func parsePytestText(line string, o *Outcome) {
	if pytestInterrupted.MatchString(line) {
		o.Interrupted = "pytest stopped at its collection errors, so none of its tests ran"
		o.GoOn = []string{"--continue-on-collection-errors"}
		return
	}
	if m := pytestStopLine.FindStringSubmatch(line); m != nil {
		if m[1] == "1" {
			o.Interrupted = "pytest stopped after 1 failure (-x or --maxfail), so the tests after it did not run"
		} else {
			o.Interrupted = "pytest stopped after " + m[1] + " failures (--maxfail), so the tests after them did not run"
		}
		o.GoOn = []string{"--maxfail=0"} // after -x, no limit
		return
	}
	if m := pytestFailed.FindStringSubmatch(line); m != nil && strings.Contains(m[2], "::") {
		parts := strings.Split(m[2], "::")
		mod := strings.TrimSuffix(parts[0], ".py")
		mod = strings.ReplaceAll(mod, "/", ".")
		cls := mod
		if len(parts) > 2 {
			cls = mod + "." + strings.Join(parts[1:len(parts)-1], ".")
		}
		name := parts[len(parts)-1]
		o.Failures = appendUnique(o.Failures, Failure{ID: cls + "::" + name, Name: pytestName(cls, name)})
	} else if m := pytestCount.FindStringSubmatch(line); m != nil {
		n := 0
		for _, c := range pytestNumber.FindAllStringSubmatch(m[1], -1) {
			k, _ := strconv.Atoi(c[1])
			n += k
		}
		o.Tests = max(o.Tests, 0) + n
	}
}

// pytestName is the test's name with its class, when it has one
// ("TestCodec.test_roundtrip"); junit's classname is "pkg.module.Class".
func pytestName(classname, name string) string {
	last := classname[strings.LastIndexByte(classname, '.')+1:]
	if last != "" && last[0] >= 'A' && last[0] <= 'Z' {
		return last + "." + name
	}
	return name
}
