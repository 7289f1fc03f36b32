package verify

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// Failure names one failing test (or build) so runs can be compared.
type Failure struct {
	// ID is the stable identity: package and test, file and test, …
	ID string `json:"id"`
	// Name is the short name shown to people.
	Name string `json:"name"`
}

// outcome is what parsing a check's output found.
type outcome struct {
	failures []Failure
	// tests is how many tests ran; -1 when the runner does not say.
	tests int
	// text replaces the raw output for display (go test -json); "" keeps it.
	text string
	// excerpt is the failing tests' own output, shown before the tail.
	excerpt string
	// scope is the parser's current test binary or file.
	scope string
	// noReport names the structured report the runner was asked for and
	// did not write ("the JUnit report (--junitxml)"): a run that exited
	// 0 without it verified nothing.
	noReport string
}

// collector receives a check's stdout while it runs and, once it ends,
// turns it (and any report file) into an outcome.
type collector interface {
	// args returns the argv with the machine-readable flags added.
	args(user []string) []string
	stdout() *lineWriter
	finish(res run.Result) outcome
}

// newCollector picks the parser for a runner; reportDir holds report files.
func newCollector(r detect.Runner, reportDir, dir string) collector {
	switch r {
	case detect.Go:
		return &goJSON{tests: map[string]*goTest{}}
	case detect.Pytest:
		if reportDir == "" {
			return &lineParser{parse: parsePytestText}
		}
		return &junit{file: filepath.Join(reportDir, "pytest.xml"), lp: lineParser{parse: parsePytestText}}
	case detect.Jest, detect.Vitest:
		j := &jestJSON{file: filepath.Join(reportDir, "report.json"), dir: dir, vitest: r == detect.Vitest}
		j.text = reportDir == ""
		return j
	case detect.Cargo:
		return &cargoText{lineParser{parse: parseCargo}}
	case detect.Unittest:
		return &lineParser{parse: parseUnittest}
	case detect.NodeTest:
		return &lineParser{parse: parseTAP}
	case detect.GoVet:
		return &lineParser{parse: parseVet}
	case detect.Mocha:
		return &lineParser{parse: parseMocha}
	}
	return &lineParser{}
}

// lineWriter calls fn with each complete line written to it; it keeps no
// more than one partial line, so megabytes of output cost nothing.
type lineWriter struct {
	fn   func(line []byte)
	part []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(w.part) < 1<<20 {
				w.part = append(w.part, p...)
			}
			break
		}
		line := p[:i]
		if len(w.part) > 0 {
			line = append(w.part, line...)
			w.part = w.part[:0]
		}
		w.fn(line)
		p = p[i+1:]
	}
	return n, nil
}

func (w *lineWriter) flush() {
	if len(w.part) > 0 {
		w.fn(w.part)
		w.part = nil
	}
}

// withExtraArgs appends flags to a command, after "--" for npm scripts.
func withExtraArgs(user []string, extra ...string) []string {
	out := append([]string(nil), user...)
	if len(out) > 0 && filepath.Base(out[0]) == "npm" && !contains(out, "--") {
		out = append(out, "--")
	}
	return append(out, extra...)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// ---- go test -json ----

type goTest struct {
	pkg, name string
	out       []byte
	failed    bool
	crashed   bool // running when the test binary died
}

type goJSON struct {
	w        *lineWriter
	tests    map[string]*goTest
	failed   []*goTest
	pkgFail  []string
	build    map[string]bool
	ran      int
	text     *run.Capped
	failText bytes.Buffer
}

type goEvent struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	FailedBuild string
}

func (g *goJSON) args(user []string) []string {
	out := append([]string(nil), user...)
	for i, a := range out {
		if a == "test" {
			return append(out[:i+1], append([]string{"-json"}, out[i+1:]...)...)
		}
	}
	return out
}

func (g *goJSON) stdout() *lineWriter {
	g.text = run.NewCapped(run.DefaultOutputCap)
	g.build = map[string]bool{}
	g.w = &lineWriter{fn: g.line}
	return g.w
}

func (g *goJSON) line(b []byte) {
	var ev goEvent
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &ev) != nil {
		g.text.Write(append(b, '\n'))
		return
	}
	// Like go test without -v: package lines always, a test's own output
	// only when it fails.
	if ev.Output != "" && ev.Test == "" && ev.Output != "PASS\n" {
		g.text.Write([]byte(ev.Output))
	}
	key := ev.Package + "\x00" + ev.Test
	switch {
	case ev.Action == "build-fail":
		g.build[ev.ImportPath] = true
	case ev.Test == "" && ev.Action == "fail":
		g.pkgFail = append(g.pkgFail, ev.Package)
		if ev.FailedBuild != "" {
			g.build[ev.Package] = true
		}
		// Tests still running when their package failed never finished:
		// the binary died (a stack overflow, a panic in a goroutine, the
		// -timeout panic) while they ran or waited to (t.Parallel).
		for _, k := range slices.Sorted(maps.Keys(g.tests)) {
			if t := g.tests[k]; t.pkg == ev.Package {
				t.failed, t.crashed = true, true
				g.failed = append(g.failed, t)
				g.text.Write(t.out)
				if g.failText.Len() < 16<<10 {
					g.failText.Write(t.out)
				}
				delete(g.tests, k)
			}
		}
	case ev.Test == "":
		if ev.Action == "output" && strings.Contains(ev.Output, "[build failed]") {
			g.build[ev.Package] = true
		}
	case ev.Action == "run":
		g.ran++
		g.tests[key] = &goTest{pkg: ev.Package, name: ev.Test}
	case ev.Action == "output":
		if t := g.tests[key]; t != nil && len(t.out) < 8<<10 && !strings.HasPrefix(ev.Output, "=== ") {
			t.out = append(t.out, ev.Output...)
		}
	case ev.Action == "fail":
		if t := g.tests[key]; t != nil {
			t.failed = true
			g.failed = append(g.failed, t)
			g.text.Write(t.out)
			if g.failText.Len() < 16<<10 {
				g.failText.Write(t.out)
			}
		}
		delete(g.tests, key)
	case ev.Action == "pass" || ev.Action == "skip":
		delete(g.tests, key)
	}
}

func (g *goJSON) finish(res run.Result) outcome {
	g.w.flush()
	o := outcome{tests: g.ran, text: string(g.text.Bytes())}
	if len(o.text) > excerptTail {
		// The tail alone may have lost the failing tests' output.
		o.excerpt = g.failText.String()
	}
	// A failing subtest fails its parent too; name the leaf only.
	parents := map[string]bool{}
	for _, t := range g.failed {
		for n := t.name; strings.Contains(n, "/"); {
			n = n[:strings.LastIndexByte(n, '/')]
			parents[t.pkg+"\x00"+n] = true
		}
	}
	// The same test name in two packages is told apart by package name.
	count := map[string]int{}
	for _, t := range g.failed {
		count[t.name]++
	}
	pkgsWithTests := map[string]bool{}
	for _, t := range g.failed {
		pkgsWithTests[t.pkg] = true
		if parents[t.pkg+"\x00"+t.name] {
			continue
		}
		name := t.name
		if count[t.name] > 1 {
			name = path.Base(t.pkg) + "." + t.name
		}
		if t.crashed {
			name += " (did not finish: its test binary died)"
		}
		o.failures = append(o.failures, Failure{ID: t.pkg + "." + t.name, Name: name})
	}
	for _, p := range g.pkgFail {
		if pkgsWithTests[p] {
			continue
		}
		name := p
		if g.build[p] {
			name += " [build failed]"
		}
		o.failures = append(o.failures, Failure{ID: name, Name: name})
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
	Failure   *struct{} `xml:"failure"`
	Error     *struct{} `xml:"error"`
}

type junitSuite struct {
	Cases  []junitCase  `xml:"testcase"`
	Suites []junitSuite `xml:"testsuite"`
}

func (j *junit) args(user []string) []string {
	return append(append([]string(nil), user...), "--junitxml="+j.file)
}

func (j *junit) stdout() *lineWriter { return j.lp.stdout() }

func (j *junit) finish(res run.Result) outcome {
	o := j.lp.finish(res)
	o.text = dropContaining(string(res.Output), filepath.Base(filepath.Dir(j.file)))
	data, err := os.ReadFile(j.file)
	if err != nil {
		o.noReport = "the JUnit report it was asked for (--junitxml)"
		return o
	}
	var root junitSuite
	if xml.Unmarshal(data, &root) != nil {
		o.noReport = "a readable JUnit report (--junitxml)"
		return o
	}
	o.tests, o.failures = 0, nil
	var walk func(s junitSuite)
	walk = func(s junitSuite) {
		for _, c := range s.Cases {
			o.tests++
			if c.Failure == nil && c.Error == nil {
				continue
			}
			f := Failure{ID: c.Classname + "::" + c.Name, Name: pytestName(c.Classname, c.Name)}
			if c.Classname == "" {
				f = Failure{ID: c.Name, Name: c.Name + " (collection error)"}
			}
			o.failures = append(o.failures, f)
		}
		for _, sub := range s.Suites {
			walk(sub)
		}
	}
	walk(root)
	return o
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

func (j *jestJSON) args(user []string) []string {
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

func (j *jestJSON) stdout() *lineWriter {
	j.lp.parse = parseJestText
	return j.lp.stdout()
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
func parseJestText(line string, o *outcome) {
	name := ""
	if m := jestFailText.FindStringSubmatch(line); m != nil && m[1] != "Test suite failed to run" {
		name = strings.ReplaceAll(m[1], " › ", " ")
	} else if m := vitestFailText.FindStringSubmatch(line); m != nil {
		name = strings.ReplaceAll(m[1], " > ", " ")
	}
	if name != "" {
		o.failures = appendUnique(o.failures, Failure{ID: name, Name: name})
	}
}

func (j *jestJSON) finish(res run.Result) outcome {
	o := j.lp.finish(res)
	if bytes.Contains(res.Output, []byte("No tests found")) || bytes.Contains(res.Output, []byte("No test files found")) {
		o.tests = 0
	}
	if j.text {
		return o
	}
	o.text = dropContaining(string(res.Output), filepath.Base(filepath.Dir(j.file)))
	what := "jest"
	if j.vitest {
		what = "vitest"
	}
	data, err := os.ReadFile(j.file)
	if err != nil {
		o.noReport = "the " + what + " JSON report it was asked for"
		return o
	}
	var rep jestReport
	if json.Unmarshal(data, &rep) != nil {
		o.noReport = "a readable " + what + " JSON report"
		return o
	}
	o.tests, o.failures = rep.NumTotalTests, nil
	var ex strings.Builder
	for _, tr := range rep.TestResults {
		file := tr.Name
		if rel, err := filepath.Rel(j.dir, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = rel
		}
		anyFailed := false
		for _, a := range tr.AssertionResults {
			if a.Status != "failed" {
				continue
			}
			anyFailed = true
			name := strings.TrimSpace(a.FullName)
			o.failures = append(o.failures, Failure{ID: file + " › " + name, Name: name})
			for _, m := range a.FailureMessages {
				if ex.Len() < 16<<10 {
					ex.WriteString(name + "\n" + m + "\n")
				}
			}
		}
		if !anyFailed && tr.Status == "failed" {
			o.failures = append(o.failures, Failure{ID: file, Name: file + " (suite failed to run)"})
			if ex.Len() < 16<<10 {
				ex.WriteString(tr.Message + "\n")
			}
		}
	}
	if len(o.text) > excerptTail {
		// The tail alone may have lost the failure messages.
		o.excerpt = ex.String()
	}
	return o
}

// ---- plain text: cargo, unittest, node --test, opaque ----

type lineParser struct {
	parse func(line string, o *outcome)
	o     outcome
	w     *lineWriter
}

func (l *lineParser) args(user []string) []string { return user }

func (l *lineParser) stdout() *lineWriter {
	l.o.tests = -1
	l.w = &lineWriter{fn: func(b []byte) {
		if l.parse != nil {
			l.parse(string(b), &l.o)
		}
	}}
	return l.w
}

func (l *lineParser) finish(run.Result) outcome {
	// Checks run with stderr on the stdout pipe (run.Spec.Combined), so
	// the writer saw summaries runners print on stderr too (unittest).
	l.w.flush()
	return l.o
}

// cargoText reads cargo test's text; it adds --no-fail-fast so that one
// failing test binary does not hide the failures of the next (an already
// failing crate would otherwise mask new failures elsewhere). Checks run
// with stderr on the stdout pipe, so the "Running tests/x.rs (…)" lines
// cargo writes to stderr arrive just before that binary's results and
// scope its IDs (test_version::test_gt rather than a bare test_gt that
// another binary may share).
type cargoText struct{ lineParser }

func (c *cargoText) args(user []string) []string {
	out := append([]string(nil), user...)
	for i, a := range out {
		if a == "--" {
			break
		}
		if a == "test" && !contains(out, "--no-fail-fast") {
			return append(out[:i+1], append([]string{"--no-fail-fast"}, out[i+1:]...)...)
		}
	}
	return out
}

var (
	cargoFailed  = regexp.MustCompile(`^test (.+) \.\.\. FAILED$`)
	cargoBinary  = regexp.MustCompile(`^\s*(?:Running (?:unittests |tests/)?\S+ \((?:.*/)?([^/)]+?)(?:-[0-9a-f]{16})?\)|Doc-tests (\S+))$`)
	cargoRunning = regexp.MustCompile(`^running (\d+) tests?$`)
	cargoBuild   = regexp.MustCompile("^error: could not compile `([^`]+)`")
	// cargoCrash is cargo's word on a test binary killed by a signal
	// (a stack overflow, an abort): no "test x ... FAILED" line names it.
	cargoCrash = regexp.MustCompile("process didn't exit successfully: `(?:[^`\\s]*/)?([^`/\\s]+?)(?:-[0-9a-f]{16})?(?:\\s[^`]*)?` \\(signal: (\\d+)(?:, (\\w+))?")
)

// parseCargo names failures by test binary (crate or integration test) and
// test path; the binary comes from the "Running" line before its tests.
func parseCargo(line string, o *outcome) {
	line = strings.TrimRight(line, "\r")
	if m := cargoBinary.FindStringSubmatch(line); m != nil {
		o.scope = m[1] + m[2]
	} else if m := cargoFailed.FindStringSubmatch(line); m != nil {
		id := m[1]
		if o.scope != "" {
			id = o.scope + "::" + m[1]
		}
		o.failures = appendUnique(o.failures, Failure{ID: id, Name: m[1]})
	} else if m := cargoRunning.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		o.tests = max(o.tests, 0) + n
	} else if m := cargoBuild.FindStringSubmatch(line); m != nil {
		name := m[1] + " [build failed]"
		o.failures = appendUnique(o.failures, Failure{ID: name, Name: name})
	} else if m := cargoCrash.FindStringSubmatch(line); m != nil {
		sig := "signal " + m[2]
		if m[3] != "" {
			sig = m[3]
		}
		o.failures = appendUnique(o.failures, Failure{ID: m[1] + " [crashed]", Name: m[1] + " (crashed: " + sig + ")"})
	}
}

// vetFinding is a go vet or compiler diagnostic: "[vet: ]file.go:L:C: msg".
var vetFinding = regexp.MustCompile(`^(?:vet: )?(\S+\.go):(\d+)(?::\d+)?: (.+)$`)

// parseVet names each diagnostic; the ID leaves out the line number so a
// finding survives lines moving between the base and the change.
func parseVet(line string, o *outcome) {
	if m := vetFinding.FindStringSubmatch(line); m != nil {
		file := strings.TrimPrefix(m[1], "./")
		o.failures = appendUnique(o.failures, Failure{ID: file + ": " + m[3], Name: file + ":" + m[2] + ": " + m[3]})
	}
}

var (
	// pytestFailed is a line of pytest's short test summary.
	pytestFailed = regexp.MustCompile(`^(FAILED|ERROR) (\S+?)(?: - .*)?$`)
	pytestCount  = regexp.MustCompile(`^=+ (.*\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed).*) in [\d.]+s`)
	pytestNumber = regexp.MustCompile(`(\d+) (passed|failed|errors?|xfailed|xpassed)`)
)

// parsePytestText reads pytest's short summary ("FAILED tests/t.py::T::x
// - msg") and final count, for runs whose junit report could not be
// written. The ID follows junit's form (dotted module, "::" test).
func parsePytestText(line string, o *outcome) {
	if m := pytestFailed.FindStringSubmatch(line); m != nil && strings.Contains(m[2], "::") {
		parts := strings.Split(m[2], "::")
		mod := strings.TrimSuffix(parts[0], ".py")
		mod = strings.ReplaceAll(mod, "/", ".")
		cls := mod
		if len(parts) > 2 {
			cls = mod + "." + strings.Join(parts[1:len(parts)-1], ".")
		}
		name := parts[len(parts)-1]
		o.failures = appendUnique(o.failures, Failure{ID: cls + "::" + name, Name: pytestName(cls, name)})
	} else if m := pytestCount.FindStringSubmatch(line); m != nil {
		n := 0
		for _, c := range pytestNumber.FindAllStringSubmatch(m[1], -1) {
			k, _ := strconv.Atoi(c[1])
			n += k
		}
		o.tests = max(o.tests, 0) + n
	}
}

var (
	mochaCount = regexp.MustCompile(`^\s+(\d+) (passing|failing|pending)`)
	mochaTitle = regexp.MustCompile(`^\s+\d+\) (.+)$`)
)

// parseMocha reads the spec reporter's summary: "N passing", "N failing",
// then each failure as "  1) suite" with the test title on the next lines,
// the last ending in ":". o.scope holds a title being read.
func parseMocha(line string, o *outcome) {
	if m := mochaCount.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		o.tests = max(o.tests, 0) + n
		return
	}
	if m := mochaTitle.FindStringSubmatch(line); m != nil && o.tests >= 0 {
		o.scope = "\x00" + strings.TrimSpace(m[1])
	} else if strings.HasPrefix(o.scope, "\x00") && strings.TrimSpace(line) != "" {
		o.scope += " " + strings.TrimSpace(line)
	} else {
		return
	}
	if strings.HasSuffix(o.scope, ":") {
		name := strings.TrimSuffix(o.scope[1:], ":")
		o.failures = appendUnique(o.failures, Failure{ID: name, Name: name})
		o.scope = ""
	}
}

var (
	unittestFail = regexp.MustCompile(`^(?:FAIL|ERROR): (\S+) \(([^)]+)\)`)
	unittestRan  = regexp.MustCompile(`^Ran (\d+) tests? in `)
)

func parseUnittest(line string, o *outcome) {
	if m := unittestFail.FindStringSubmatch(line); m != nil {
		id := m[2]
		if !strings.HasSuffix(id, "."+m[1]) {
			id += "." + m[1]
		}
		o.failures = appendUnique(o.failures, Failure{ID: id, Name: pytestName(strings.TrimSuffix(id, "."+m[1]), m[1])})
	} else if m := unittestRan.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		o.tests = max(o.tests, 0) + n
	}
}

var (
	tapNotOK = regexp.MustCompile(`^\s*not ok \d+ - (.+?)(?:\s+#.*)?$`)
	tapTests = regexp.MustCompile(`^# tests (\d+)$`)
	// specFail is node's spec reporter failure line.
	specFail = regexp.MustCompile(`^\s*✖ (.+?)(?: \([\d.]+m?s\))?$`)
)

func parseTAP(line string, o *outcome) {
	if m := tapNotOK.FindStringSubmatch(line); m != nil {
		o.failures = appendUnique(o.failures, Failure{ID: m[1], Name: m[1]})
	} else if m := tapTests.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		o.tests = max(o.tests, 0) + n
	} else if m := specFail.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[1], "failing tests") {
		o.failures = appendUnique(o.failures, Failure{ID: m[1], Name: m[1]})
	} else if strings.HasPrefix(line, "ℹ tests ") {
		n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "ℹ tests ")))
		o.tests = max(o.tests, 0) + n
	}
}

func appendUnique(list []Failure, f Failure) []Failure {
	for _, g := range list {
		if g.ID == f.ID {
			return list
		}
	}
	return append(list, f)
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

// dropContaining removes the lines that mention s (the report file chanto
// asked for, which the user never did).
func dropContaining(text, s string) string {
	if !strings.Contains(text, s) {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
