package verify

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/scope"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

// The baseline only needs to know whether the tests that fail now failed
// at the base too, so for runners whose failures are named it runs those
// tests and nothing else: `go test -run '^(TestA|TestB)$' pkg…`, vet of
// the packages with findings, pytest on the failing files with -k, the
// failing unittest names, cargo's exact test paths. When a failure cannot
// be named that way (a package that failed as a whole, a collection error,
// a crashed binary) the baseline runs the same selection as the check.
//
// narrowers take the base tree into account (a package, file or test the
// base lacks is left out, so the run does not fail on it); the other
// runners use their own NarrowTests from the registry.
var narrowers = map[detect.Runner]func(base baseTree, args []string, fs []Failure) ([]string, bool){
	detect.Go:       narrowGoTest,
	detect.GoVet:    narrowGoVet,
	detect.Pytest:   narrowPytest,
	detect.Unittest: narrowUnittest,
	detect.Cargo:    narrowCargo,
}

// baseTree is the check's folder as the base has it (put back, or a
// copy) and the files there that the change added, which the base lacks
// (paths relative to the folder).
type baseTree struct {
	dir   string
	added map[string]bool
}

// baselineSelection is what the baseline of a failing check runs in base.
func baselineSelection(base baseTree, last *CheckRun, failures []Failure, sel selecttest.Selection) selecttest.Selection {
	if len(failures) == 0 || len(last.args) == 0 {
		return sel
	}
	var args []string
	var ok bool
	if nr := narrowers[last.check.Runner]; nr != nil {
		args, ok = nr(base, withoutTargets(withoutRunPattern(last.args), last.Targets), failures)
	} else {
		// jest, vitest (-t over the full names), gotestsum: the runner's
		// own narrowing, within the files the check ran.
		args, ok = runner.For(last.check.Runner).NarrowTests(base.dir, last.args, failures)
	}
	if !ok {
		return sel
	}
	return selecttest.Selection{Scope: scope.Scope{Reason: scope.Because(scope.FailingOnly)}, Args: args, Command: shell.Join(args)}
}

// withoutRunPattern drops the -run pattern the selection added to go test
// (tests that can reach the change): the failing tests are among them.
func withoutRunPattern(args []string) []string {
	if len(args) > 3 && args[0] == "go" && args[1] == "test" && args[2] == "-run" {
		return append(args[:2:2], args[4:]...)
	}
	return args
}

// withoutTargets drops the selected packages or files from a narrowed
// command, leaving the program and its flags.
func withoutTargets(args, targets []string) []string {
	drop := map[string]bool{}
	for _, t := range targets {
		drop[t] = true
	}
	out := make([]string, 0, len(args))
	for _, a := range args {
		if !drop[a] {
			out = append(out, a)
		}
	}
	return out
}

// goTestName splits a go test failure ID ("example.com/m/p.TestX/sub")
// into its package and top-level test; a package that failed as a whole
// has none.
var goTestName = regexp.MustCompile(`^(Test|Example|Fuzz|Benchmark)[\p{L}\p{N}_]*(/|$)`)

func splitGoID(id string) (pkg, test string, ok bool) {
	for i := 0; i < len(id); i++ {
		if id[i] != '.' {
			continue
		}
		if m := goTestName.FindString(id[i+1:]); m != "" {
			return id[:i], strings.TrimSuffix(m, "/"), true
		}
	}
	return "", "", false
}

// narrowGoTest runs the failing top-level tests (subtests with them) in
// their packages; a package that did not build is built again. Packages
// that do not exist at the base are left out: their tests are new.
func narrowGoTest(base baseTree, args []string, fs []Failure) ([]string, bool) {
	dir := base.dir
	if len(args) < 2 || args[0] != "go" || args[1] != "test" || hasFlag(args[2:]) {
		return nil, false
	}
	mod := runner.ModulePath(dir)
	if mod == "" {
		return nil, false
	}
	pkgs, tests := map[string]bool{}, map[string]bool{}
	for _, f := range fs {
		if p, ok := strings.CutSuffix(f.ID, " [build failed]"); ok {
			pkgs[p] = true
			continue
		}
		p, t, ok := splitGoID(f.ID)
		if !ok {
			return nil, false // a package failed as a whole (TestMain, init)
		}
		pkgs[p], tests[t] = true, true
	}
	var targets []string
	for p := range pkgs {
		rel, ok := strings.CutPrefix(p, mod)
		if !ok || (rel != "" && rel[0] != '/') {
			return nil, false
		}
		rel = "." + rel
		if hasGoFiles(filepath.Join(dir, filepath.FromSlash(rel))) {
			targets = append(targets, rel)
		}
	}
	if len(targets) == 0 {
		return nil, false
	}
	sort.Strings(targets)
	names := sortedSet(tests)
	// The check's package patterns (./...) give way to the failing ones.
	out := []string{"go", "test"}
	if len(names) > 0 {
		out = append(out, "-run", "^("+strings.Join(names, "|")+")$")
	}
	return append(out, targets...), true
}

// narrowGoVet vets again only the packages that have findings.
func narrowGoVet(base baseTree, args []string, fs []Failure) ([]string, bool) {
	dir := base.dir
	if len(args) < 2 || args[0] != "go" || args[1] != "vet" || hasFlag(args[2:]) {
		return nil, false
	}
	dirs := map[string]bool{}
	for _, f := range fs {
		file, _, ok := strings.Cut(f.ID, ": ")
		if !ok || !strings.HasSuffix(file, ".go") || filepath.IsAbs(file) || strings.HasPrefix(file, "..") {
			return nil, false
		}
		d := path.Dir(file)
		if !hasGoFiles(filepath.Join(dir, filepath.FromSlash(d))) {
			return nil, false
		}
		if d != "." {
			d = "./" + d
		}
		dirs[d] = true
	}
	return append([]string{"go", "vet"}, sortedSet(dirs)...), true
}

// narrowPytest runs the failing test files with -k naming the failing
// tests (a parametrized test runs with all its parameters; a doctest is
// named by its file or object, "a.rst", "pkg.mod.f"). A file the change
// added holds only new tests and is left out; a failure whose file cannot
// be found otherwise keeps the check's selection, for a failure left out
// would count as new.
func narrowPytest(base baseTree, args []string, fs []Failure) ([]string, bool) {
	files, names := map[string]bool{}, map[string]bool{}
	for _, f := range fs {
		cls, name, ok := strings.Cut(f.ID, "::")
		if !ok || cls == "" {
			return nil, false // a collection error
		}
		file, _, ok := runner.PytestFile(base.dir, cls)
		if !ok {
			if addedFile(base.added, cls) {
				continue
			}
			return nil, false
		}
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i]
		}
		if !pytestKeyword.MatchString(name) || pytestOperators[name] {
			return nil, false
		}
		files[file], names[name] = true, true
	}
	if len(files) == 0 || len(args) == 0 {
		return nil, false
	}
	out := append([]string(nil), args...)
	out = append(out, sortedSet(files)...)
	return append(out, "-k", strings.Join(sortedSet(names), " or ")), true
}

// pytestKeyword is a name -k takes as one word (pytest 6 and later match
// it as a substring of the tests' names); the operators are not names.
var (
	pytestKeyword   = regexp.MustCompile(`^[\w:+\-.\[\]\\/]+$`)
	pytestOperators = map[string]bool{"and": true, "or": true, "not": true}
)

// addedFile reports whether a JUnit classname lies in a file the change
// added (junit writes tests/new.py's class K as "tests.new.K").
func addedFile(added map[string]bool, classname string) bool {
	for p := range added {
		dotted := strings.ReplaceAll(strings.TrimSuffix(p, ".py"), "/", ".")
		if classname == dotted || strings.HasPrefix(classname, dotted+".") {
			return true
		}
	}
	return false
}

// narrowUnittest names the failing tests (mod.Class.test_x) to unittest;
// a failing class or module fixture by its class or module, and a module
// that did not import keeps the check's selection (named, it fails under
// another ID, and would count as new).
func narrowUnittest(_ baseTree, args []string, fs []Failure) ([]string, bool) {
	if len(args) < 3 || args[len(args)-2] != "-m" && !slices.Contains(args, "unittest") {
		return nil, false
	}
	out := append([]string(nil), args...)
	out = slicesDropDiscover(out)
	names := map[string]bool{}
	for _, f := range fs {
		name, ok := runner.UnittestName(f.ID)
		if !ok || !dottedName.MatchString(name) {
			return nil, false
		}
		names[name] = true
	}
	return append(out, sortedSet(names)...), true
}

var dottedName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$`)

// slicesDropDiscover drops a "discover" subcommand and what follows it:
// named tests are loaded directly.
func slicesDropDiscover(args []string) []string {
	for i, a := range args {
		if a == "discover" {
			return args[:i]
		}
	}
	return args
}

// narrowCargo runs the failing tests by their exact paths in every test
// binary of the same selection (a name that another binary also has runs
// there too, which only costs time).
func narrowCargo(_ baseTree, args []string, fs []Failure) ([]string, bool) {
	if len(args) < 2 || args[0] != "cargo" || args[1] != "test" || slices.Contains(args, "--") {
		return nil, false
	}
	names := map[string]bool{}
	for _, f := range fs {
		if strings.HasSuffix(f.ID, "]") {
			return nil, false // did not build, or crashed
		}
		_, name, ok := strings.Cut(f.ID, "::")
		if !ok || name == "" {
			return nil, false
		}
		names[name] = true
	}
	out := append(append([]string(nil), args...), "--", "--exact")
	return append(out, sortedSet(names)...), true
}

func hasFlag(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			return true
		}
	}
	return false
}

func hasGoFiles(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	return len(m) > 0
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
