package verify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/git"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/scope"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

// NamedTest is one run of a test named by a goal (`test: TestParse`,
// `test: tests/test_io.py::test_roundtrip`): chanto runs it itself with the
// project's detected test runner and reads the runner's structured results,
// so a test that was not collected, or did not run, does not count.
type NamedTest struct {
	// Name is the test as the goal names it.
	Name string `json:"name"`
	// Command is what ran, in Dir (relative to the repository root).
	Command string `json:"command"`
	Dir     string `json:"dir"`
	Runner  string `json:"runner"`
	// Ran and Passed: the runner reported a test of that name, and every
	// test of that name passed.
	Ran    bool `json:"ran"`
	Passed bool `json:"passed"`
	// Why says what went wrong when it did not pass, as a clause
	// ("it did not run: no test of that name was collected").
	Why      string        `json:"why,omitempty"`
	ExitCode int           `json:"exit_code"`
	Duration time.Duration `json:"-"`
	// Output is the useful part of the run's output.
	Output string `json:"output,omitempty"`
}

// namedRunners are the runners whose results name the tests that passed.
var namedRunners = []detect.Runner{detect.Go, detect.Pytest, detect.Cargo, detect.Jest, detect.Vitest}

// RunNamedTest runs the test name in the project holding opts.Root, with
// opts.Runner and opts.Timeout. An error means chanto could not work (git
// failing, ctx ended); a test that is missing, failing or cannot run is a
// NamedTest that did not pass.
func RunNamedTest(ctx context.Context, opts Options, name string) (*NamedTest, error) {
	e := &engine{opts: opts, r: opts.Runner}
	if e.r == nil {
		e.r = &run.Runner{}
	}
	if e.opts.Timeout <= 0 {
		e.opts.Timeout = DefaultTimeout
	}
	root := e.opts.Root
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	e.opts.Root = root
	e.cs.Root = root
	if top, err := git.Output(ctx, e.r, root, "rev-parse", "--show-toplevel"); err == nil {
		e.cs.Root = strings.TrimSpace(string(top))
	}
	nt := &NamedTest{Name: name, ExitCode: -1}
	projects, err := detect.ProjectsAt(ctx, e.cs.Root, root, e.r)
	var me *detect.ManifestError
	if errors.As(err, &me) {
		nt.Why = "the project could not be read: " + me.Error()
		return nt, nil
	}
	if err != nil {
		return nil, err
	}
	c, ok := namedTestCheck(projects)
	if !ok {
		nt.Why = "no test runner that names its tests was found (test criteria need go test, pytest, cargo test, jest or vitest)"
		return nt, nil
	}
	args := namedTestArgs(c, name)
	cr, err := e.execute(ctx, c, selecttest.Selection{Scope: scope.Scope{Full: true, Reason: scope.Because(scope.NamedByGoal)}, Args: args}, "test "+name)
	if err != nil {
		return nil, err
	}
	nt.Command, nt.Dir, nt.Runner = cr.Command, cr.Dir, cr.Runner
	nt.ExitCode, nt.Duration, nt.Output = cr.ExitCode, cr.Duration, cr.Output
	passed := matchingTests(c.Runner, name, cr.passed)
	failed := matchingTests(c.Runner, name, cr.Failures)
	nt.Ran = len(passed)+len(failed) > 0
	switch {
	case cr.Refused:
		nt.Why = "its run was refused: " + cr.Output
	case cr.NotFound != "":
		nt.Why = cr.NotFound + " is not installed"
	case cr.TimedOut:
		nt.Why = "its run timed out after " + formatLimit(e.opts.Timeout)
	case cr.CouldNotRun != "" && !nt.Ran:
		nt.Why = "it could not run: " + strings.TrimSuffix(cr.CouldNotRun, ".")
	case len(failed) > 0:
		nt.Why = "it failed"
	case len(passed) == 0 && len(cr.Failures) > 0:
		nt.Why = "it did not run: the run failed before it (" + nameList(names(cr.Failures)) + ")"
	case len(passed) == 0:
		nt.Why = "it did not run: no test of that name was collected"
	default:
		nt.Passed = true
	}
	return nt, nil
}

// namedTestCheck is the project's first test check whose runner names the
// tests that passed.
func namedTestCheck(projects []detect.Project) (detect.Check, bool) {
	for _, p := range projects {
		for _, c := range p.Checks {
			if slices.Contains(namedRunners, c.Runner) {
				return c, true
			}
		}
	}
	return detect.Check{}, false
}

// namedTestArgs narrows the check's command to the named test, as each
// runner selects by name: go test -run, a pytest node id or -k, cargo
// test's filter, jest's and vitest's -t.
func namedTestArgs(c detect.Check, name string) []string {
	args := slices.Clone(c.Args)
	switch c.Runner {
	case detect.Go:
		_, test := goNamed(name)
		var parts []string
		for _, p := range strings.Split(test, "/") {
			parts = append(parts, "^"+regexp.QuoteMeta(p)+"$")
		}
		i := slices.Index(args, "test")
		return slices.Insert(args, i+1, "-run", strings.Join(parts, "/"))
	case detect.Pytest:
		if strings.Contains(name, "::") {
			return append(args, name)
		}
		return append(args, "-k", name)
	case detect.Cargo:
		if i := slices.Index(args, "--"); i >= 0 {
			return slices.Insert(args, i, name)
		}
		return append(args, name)
	}
	if len(args) > 0 && filepath.Base(args[0]) == "npm" && !slices.Contains(args, "--") {
		args = append(args, "--")
	}
	return append(args, "-t", name)
}

// goNamed splits "parse.TestParse" (a package's last element or import
// path, then the test) into package and test; a bare "TestParse/sub" has
// no package.
func goNamed(name string) (pkg, test string) {
	i := -1
	for _, p := range []string{".Test", ".Example", ".Fuzz"} {
		if j := strings.Index(name, p); j > 0 && (i < 0 || j < i) {
			i = j
		}
	}
	if i < 0 {
		return "", name
	}
	return name[:i], name[i+1:]
}

// matchingTests are the tests among fs that name refers to.
func matchingTests(r detect.Runner, name string, fs []Failure) []Failure {
	var out []Failure
	for _, f := range fs {
		if testIs(r, name, f) {
			out = append(out, f)
		}
	}
	return out
}

// testIs reports whether the runner's result f is the test name.
func testIs(r detect.Runner, name string, f Failure) bool {
	switch r {
	case detect.Go:
		pkg, test := goNamed(name)
		fpkg, ok := strings.CutSuffix(f.ID, "."+test)
		return ok && (pkg == "" || fpkg == pkg || strings.HasSuffix(fpkg, "/"+pkg))
	case detect.Pytest:
		if strings.Contains(name, "::") {
			return f.ID == pytestID(name) || strings.HasPrefix(f.ID, pytestID(name)+"[")
		}
		_, test, _ := strings.Cut(f.ID, "::")
		return test == name || strings.HasPrefix(test, name+"[") || f.Name == name
	case detect.Cargo:
		return f.Name == name || strings.HasSuffix(f.Name, "::"+name)
	}
	return f.Name == name || strings.HasSuffix(f.Name, " "+name)
}

// pytestID turns a node id (tests/test_io.py::TestIO::test_x) into the
// JUnit report's form (tests.test_io.TestIO::test_x).
func pytestID(nodeID string) string {
	parts := strings.Split(nodeID, "::")
	mod := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(parts[0], "./"), ".py"), string(os.PathSeparator), ".")
	mod = strings.ReplaceAll(mod, "/", ".")
	if len(parts) == 1 {
		return mod
	}
	cls := strings.Join(append([]string{mod}, parts[1:len(parts)-1]...), ".")
	return cls + "::" + parts[len(parts)-1]
}
