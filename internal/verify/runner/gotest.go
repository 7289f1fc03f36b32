package runner

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// goTest is `go test`: packages as targets, results from -json.
type goTest struct{ base }

var _ Runner = goTest{}

func init() { register(goTest{goTestBase}) }

// goTestBase is go test's data; gotestsum shares it.
var goTestBase = base{
	name:    Go,
	targets: Packages,
	flags: Flags{
		Valued:  []string{"-run", "-skip", "-count", "-timeout", "-p", "-parallel", "-cpu", "-tags", "-coverprofile", "-covermode", "-coverpkg", "-bench", "-benchtime", "-shuffle", "-o", "-exec", "-ldflags", "-gcflags", "-mod", "-vet", "-list", "-fuzz", "-fuzztime", "-outputdir", "-trimpath"},
		Filters: []string{"-run", "-skip", "-list", "-short", "-fuzz", "-exec", "-vet"},
		Safe:    []string{"-v", "-count", "-timeout", "-p", "-parallel", "-cpu", "-race", "-cover", "-coverprofile", "-covermode", "-coverpkg", "-json", "-failfast", "-shuffle", "-tags", "-bench", "-benchtime", "-benchmem", "-mod", "-trimpath", "-x", "-a", "-o", "-ldflags", "-gcflags", "-outputdir", "-buildvcs"},
	},
	collects: []string{"**/*_test.go"},
	fallback: []fallbackRule{
		{regexp.MustCompile(`(matched no packages|no Go files in|cannot find package|directory not found|is not in std|no required module provides package)`), FallbackMissing},
	},
}

func (g goTest) Recognize(args []string) (Invocation, bool) {
	if path.Base(at(args, 0)) != "go" || at(args, 1) != "test" {
		return Invocation{}, false
	}
	return g.read(args, 2), true
}

// WithGoTestFlags puts flags right after the "test" of a go test command
// line, before its packages; args without it are returned as they are.
func WithGoTestFlags(args []string, flags ...string) []string {
	i := slices.Index(args, "test")
	if i < 0 {
		return args
	}
	return slices.Insert(slices.Clone(args), i+1, flags...)
}

// GoTestPackages are the package words of a go test command line (the
// words after "go test" that are no flag or flag value), filters or not.
func GoTestPackages(args []string) []string {
	if at(args, 1) != "test" {
		return nil
	}
	var out []string
	for i := 2; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "--" || w == "-args":
			return out
		case !strings.HasPrefix(w, "-"):
			out = append(out, w)
		case !strings.Contains(w, "=") && slices.Contains(goTestBase.flags.Valued, w):
			i++
		}
	}
	return out
}

var (
	goNoTestFiles = regexp.MustCompile(`(?m)^\?\s+\S+\s+\[no test files\]$`)
	goRanPackage  = regexp.MustCompile(`(?m)^(ok|FAIL|---|panic|=== RUN)`)
	// goNoNetwork is the go command's "module@version: Get
	// https://proxy.golang.org/…: dial tcp: …" (a test's own failing dial
	// names no module version).
	goNoNetwork = regexp.MustCompile(`\S@v[^\s:]+: (?:[^"]*: )?(?:Get|reading) "?https?://[^\s"]+"?: (?:.*: )?(?:dial tcp|proxyconnect tcp)`)
)

func (g goTest) Fallback(exit int, output []byte) (scope.Reason, bool) {
	output = goJSONText(lastMB(output))
	if why, ok := g.base.Fallback(exit, output); ok {
		return why, ok
	}
	if exit == 0 && goNoTestFiles.Match(output) && !goRanPackage.Match(output) {
		return FallbackNoTests, true
	}
	return scope.Reason{}, false
}

// goDownload is the go command's dependency fetch, for go test and go vet.
var goDownload = Download{
	Args:   []string{"go", "mod", "download"},
	Lacked: goNoNetwork.MatchString,
	Line:   goNoNetwork,
}

func (goTest) Download() Download { return goDownload }

// HasGoFlag reports whether go command arguments set one of the flags
// named, without dashes: -name, --name, -name=v and --name=v alike, and
// the test binary's -test.name form too.
func HasGoFlag(args []string, names ...string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if slices.Contains(names, name) || slices.Contains(names, strings.TrimPrefix(name, "test.")) {
			return true
		}
	}
	return false
}

// NarrowTargets puts the packages in place of ./... (or after the
// command when it names none).
func (goTest) NarrowTargets(_ string, args, targets []string) ([]string, bool) {
	return replacePattern(args, "./...", targets), true
}

// NarrowTests runs the failing tests' packages with -run matching their
// top-level names exactly (a subtest's parent runs whole).
func (goTest) NarrowTests(_ string, args []string, tests []Failure) ([]string, bool) {
	var pkgs, names []string
	for _, f := range tests {
		pkg, name, ok := goTestID(f.ID)
		if !ok {
			return nil, false
		}
		name, _, _ = strings.Cut(name, "/")
		if !slices.Contains(pkgs, pkg) {
			pkgs = append(pkgs, pkg)
		}
		if q := regexp.QuoteMeta(name); !slices.Contains(names, q) {
			names = append(names, q)
		}
	}
	if len(names) == 0 {
		return nil, false
	}
	out := replacePattern(args, "./...", pkgs)
	i := slices.Index(out, "test")
	return slices.Insert(out, i+1, "-run", "^("+strings.Join(names, "|")+")$"), true
}

// goTestID splits "example.com/m/a.TestX/sub" into package and test; a
// package or build failure has no test.
func goTestID(id string) (pkg, test string, ok bool) {
	i := -1
	for _, p := range []string{".Test", ".Example", ".Fuzz"} {
		if j := strings.Index(id, p); j > 0 && (i < 0 || j < i) {
			i = j
		}
	}
	if i < 0 || strings.HasSuffix(id, "]") {
		return "", "", false
	}
	return id[:i], id[i+1:], true
}

// replacePattern puts targets where pattern was (once), or at the end.
func replacePattern(args []string, pattern string, targets []string) []string {
	var out []string
	done := false
	for _, a := range args {
		if a == pattern && !done {
			out = append(out, targets...)
			done = true
			continue
		}
		out = append(out, a)
	}
	if !done {
		out = append(out, targets...)
	}
	return out
}

func (goTest) Collector(_, dir string) Collector {
	return &goJSON{tests: map[string]*goTestRun{}, module: ModulePath(dir)}
}

// ModulePath is the module path dir's go.mod declares, "" without one.
func ModulePath(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return ""
	}
	return modfile.ModulePath(data)
}

// shownPackage is how a failure names a package below the root of the
// module the check runs in: by its folder, as the command names it
// ("./prometheus/collectors"); the root package, and any package of
// another module, by import path. The failure's ID keeps the import path.
func shownPackage(module, pkg string) string {
	if rest, ok := strings.CutPrefix(pkg, module+"/"); ok && module != "" {
		return "./" + rest
	}
	return pkg
}

// goJSONText turns `go test -json` output back into the text it carries;
// other output is returned unchanged.
func goJSONText(out []byte) []byte {
	if !bytes.HasPrefix(bytes.TrimSpace(out), []byte("{")) {
		return out
	}
	var text bytes.Buffer
	for _, line := range bytes.Split(out, []byte("\n")) {
		var ev struct{ Output string }
		if json.Unmarshal(line, &ev) == nil {
			text.WriteString(ev.Output)
		} else {
			text.Write(line)
			text.WriteByte('\n')
		}
	}
	return text.Bytes()
}

// goTimedOut is how a test binary stopped by go test's -timeout begins
// its panic.
var goTimedOut = regexp.MustCompile(`(?m)^panic: test timed out after (\S+)$`)

// runsWithin reports whether test name of pkg begins inside another
// test: a top-level name while another top-level test of pkg runs and
// is not paused (testing.RunTests called by a test), or a subtest of a
// test that began that way.
func (g *goJSON) runsWithin(pkg, name string) bool {
	top, _, sub := strings.Cut(name, "/")
	if sub {
		t := g.tests[pkg+"\x00"+top]
		return t != nil && t.nested
	}
	for _, t := range g.tests {
		if t.pkg == pkg && !strings.Contains(t.name, "/") && !t.paused {
			return true
		}
	}
	return false
}

// goPanicked is the first line of a test's panic that ended its test
// binary.
var goPanicked = regexp.MustCompile(`(?m)^panic: .*\[recovered`)

// ancestors are the names of the tests a subtest runs under, nearest
// first: "A/b/c" → "A/b", "A".
func ancestors(name string) []string {
	var out []string
	for strings.Contains(name, "/") {
		name = name[:strings.LastIndexByte(name, '/')]
		out = append(out, name)
	}
	return out
}

// crashNote says why a test running when its binary died did not finish:
// go test's -timeout, or the binary's death (a stack overflow, a panic in
// another goroutine).
func crashNote(out []byte) string {
	if m := goTimedOut.FindSubmatch(out); m != nil {
		return " (did not finish: go test's -timeout of " + string(m[1]) + " stopped it)"
	}
	return " (did not finish: its test binary died)"
}

// ---- go test -json ----

type goTestRun struct {
	pkg, name string
	out       []byte
	failed    bool
	crashed   bool // running when the test binary died
	// own is set when the test printed a line of its own (t.Error's
	// message, t.Log's), beyond the framing of its result and its
	// subtests': a parent that failed that way failed itself too.
	own bool
	// paused is set between a parallel test's PAUSE and CONT.
	paused bool
	// inPanic is set from the first line of a panic printed under it.
	inPanic bool
	// nested is set for a test that began while another top-level test
	// of its package ran (not paused): a test of a test framework ran it
	// through testing.RunTests, meant to fail or not, and so for its
	// subtests.
	nested bool
}

type goJSON struct {
	w        *lineWriter
	tests    map[string]*goTestRun
	passed   []Failure
	failed   []*goTestRun
	pkgFail  []string
	build    map[string]bool
	killed   map[string]bool // packages whose test binary the go command killed
	module   string          // the module path of the check's folder, for names
	ran      int
	text     *run.Capped
	failText bytes.Buffer
	goErrs   goErrors
}

type goEvent struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	FailedBuild string
}

func (g *goJSON) Args(user []string) []string {
	out := append([]string(nil), user...)
	for i, a := range out {
		if a == "test" {
			return append(out[:i+1], append([]string{"-json"}, out[i+1:]...)...)
		}
	}
	return out
}

func (g *goJSON) Stdout() io.Writer {
	g.text = run.NewCapped(run.DefaultOutputCap)
	g.build, g.killed = map[string]bool{}, map[string]bool{}
	g.w = &lineWriter{fn: g.line}
	return g.w
}

func (g *goJSON) line(b []byte) {
	var ev goEvent
	if len(b) == 0 || b[0] != '{' || decodeGoEvent(b, &ev) != nil {
		g.goErrs.line(string(b))
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
		if ev.Action == "output" && strings.HasPrefix(ev.Output, "*** Test killed") {
			// The go command ended a test binary that outlived its
			// -timeout by a minute: it hung before any test began
			// (in an init), or where its own alarm could not fire.
			g.killed[ev.Package] = true
		}
	case ev.Action == "run":
		g.ran++
		g.tests[key] = &goTestRun{pkg: ev.Package, name: ev.Test, nested: g.runsWithin(ev.Package, ev.Test)}
	case ev.Action == "output":
		if t := g.tests[key]; t != nil {
			switch {
			case strings.HasPrefix(ev.Output, "=== PAUSE "):
				t.paused = true
			case strings.HasPrefix(ev.Output, "=== CONT "):
				t.paused = false
			case strings.HasPrefix(ev.Output, "panic: "):
				// A panic's trace is printed under the test
				// whose tRunner it unwound through last (a
				// subtest's under its parent): no line of the
				// parent's own.
				t.inPanic = true
			case !t.inPanic && !strings.HasPrefix(ev.Output, "=== ") && !strings.HasPrefix(strings.TrimSpace(ev.Output), "--- "):
				t.own = true
			}
		}
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
		if ev.Action == "pass" && g.tests[key] != nil {
			g.passed = append(g.passed, Failure{ID: ev.Package + "." + ev.Test, Name: ev.Test})
		}
		delete(g.tests, key)
	}
}

func (g *goJSON) Finish(res run.Result) Outcome {
	g.w.flush()
	o := Outcome{Tests: g.ran, Text: string(g.text.Bytes()), Passed: g.passed}
	if len(o.Text) > ExcerptTail {
		// The tail alone may have lost the failing tests' output.
		o.Excerpt = g.failText.String()
	}
	// A test of a test framework runs tests meant to fail (testify's
	// suite tests call testing.RunTests, or hand suite.Run a T of their
	// own): those report failing inside a test that passed, or begin
	// while another top-level test runs. They are no failures of the
	// run, with the change or at the base.
	passed := map[string]bool{}
	for _, f := range g.passed {
		passed[f.ID] = true
	}
	failed := slices.DeleteFunc(slices.Clone(g.failed), func(t *goTestRun) bool {
		return t.nested || slices.ContainsFunc(ancestors(t.name), func(n string) bool { return passed[t.pkg+"."+n] })
	})
	// A failing subtest fails its parent too; name the leaf only, and
	// the parent as well when it failed itself (printed a line of its
	// own): a subtest failing before the change must not hide a new
	// failure in its parent's own checks.
	parents := map[string]bool{}
	for _, t := range failed {
		for _, n := range ancestors(t.name) {
			parents[t.pkg+"\x00"+n] = true
		}
	}
	// The same test name in two packages is told apart by package name,
	// whether the other one failed or passed.
	count := map[string]int{}
	seen := map[string]bool{}
	for _, t := range failed {
		if id := t.pkg + "." + t.name; !seen[id] {
			seen[id] = true
			count[t.name]++
		}
	}
	for _, f := range g.passed {
		if !seen[f.ID] {
			seen[f.ID] = true
			count[f.Name]++
		}
	}
	panicked := map[string]bool{}
	for _, t := range failed {
		if goPanicked.Match(t.out) {
			panicked[t.pkg+"\x00"+t.name] = true
		}
	}
	// underPanic reports whether t or a test above it printed the
	// panic that ended the binary.
	underPanic := func(t *goTestRun) bool {
		return slices.ContainsFunc(append([]string{t.name}, ancestors(t.name)...), func(n string) bool { return panicked[t.pkg+"\x00"+n] })
	}
	pkgsWithTests := map[string]bool{}
	for _, t := range failed {
		pkgsWithTests[t.pkg] = true
		if parents[t.pkg+"\x00"+t.name] && (t.crashed || !t.own) {
			continue
		}
		name := t.name
		if count[t.name] > 1 {
			name = path.Base(t.pkg) + "." + t.name
		}
		switch {
		case t.crashed:
			name += crashNote(t.out)
		case underPanic(t):
			name += " (panicked: the tests after it in its package did not run)"
		}
		o.Failures = append(o.Failures, Failure{ID: t.pkg + "." + t.name, Name: name})
	}
	for _, p := range g.pkgFail {
		if pkgsWithTests[p] {
			continue
		}
		id, name := p, shownPackage(g.module, p)
		switch {
		case g.build[p]:
			id, name = id+" [build failed]", name+" [build failed]"
		case g.killed[p]:
			name += " (did not finish: its test binary hung before any test began and go test killed it)"
		}
		o.Failures = append(o.Failures, Failure{ID: id, Name: name})
	}
	if len(o.Failures) == 0 && res.ExitCode != 0 {
		// The go command stopped before building anything (a go.sum
		// without an entry the build needs): name its error.
		o.Failures = g.goErrs.list
	}
	// Tests finish in parallel: sort so runs read the same. Tests that
	// only died with their binary come after the ones that failed, so the
	// evidence names the test that broke first (on uber-go/zap a panic in
	// one test was listed after four parallel tests it took down).
	dnf := func(f Failure) bool { return strings.Contains(f.Name, " (did not finish: ") }
	sort.SliceStable(o.Failures, func(i, j int) bool {
		a, b := o.Failures[i], o.Failures[j]
		if dnf(a) != dnf(b) {
			return !dnf(a)
		}
		return a.ID < b.ID
	})
	return o
}
