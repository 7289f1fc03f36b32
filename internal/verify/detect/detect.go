// Package detect finds the checks a project has: which test runner, which
// vet or lint step, where each runs (the nearest folder with a manifest
// above each changed file), and for Python which interpreter has pytest.
package detect

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// Runner names a test runner; what chanto knows of each lives in
// internal/verify/runner.
type Runner = runner.Name

// The runners, as detection names them.
const (
	Go       = runner.Go
	GoVet    = runner.GoVet
	Pytest   = runner.Pytest
	Unittest = runner.Unittest
	Cargo    = runner.Cargo
	Jest     = runner.Jest
	Vitest   = runner.Vitest
	NodeTest = runner.NodeTest
	Mocha    = runner.Mocha
	NPM      = runner.NPM
	Make     = runner.Make
	Custom   = runner.Custom
)

// Check is one command of a project.
type Check struct {
	// Command is the command line as shown to the user and run by bash.
	Command string
	// Args is the argv when the check was detected (nil for custom checks).
	Args []string
	// Dir is the absolute directory the check runs in (the project root).
	Dir string
	// Runner tells selection and failure parsing what produced the output.
	Runner Runner
	// Narrowable is true for test commands selection may narrow (the
	// runner has a related-test mode).
	Narrowable bool
	// FullReason is set on the checks of a project that runs although
	// none of its files changed, because it builds against a project
	// that did (a Go module using another through go.work or a local
	// replace); it says so (scope.DependsOnChange), and the check runs in
	// full.
	FullReason scope.Reason
	// Team is the name of a team check ([[team_checks]]), which the
	// evidence shows instead of its command; empty for the others.
	Team string
	// Timeout, when set, is the check's own time limit (a team check's
	// timeout_secs); 0 means the gate's.
	Timeout time.Duration
	// Version is the version of the check's tool when detection asked
	// it (pytest's, "7.2.1"), which decides what it reads; "" when not
	// known.
	Version string
	// AsWritten says why a check of a runner that narrows runs whole: a
	// configured command that is not a plain run of it; zero otherwise.
	AsWritten scope.Reason
	// Configured is set for a check the user configured: a run stands
	// in for it only as Planned.Configured says.
	Configured bool
	// Note says something about how the check was chosen that the user
	// would want to know ("the virtualenv venv/ has no pytest, so
	// /usr/bin/python3 ran the tests"); the evidence carries it.
	Note string
}

// Project is a project root with its checks, in run order (cheapest first).
type Project struct {
	Root   string
	Checks []Check
}

// ManifestError is a manifest chanto cannot read (a broken go.mod, a
// package.json that is not JSON). It names the file and line.
type ManifestError struct {
	// File is the manifest's path relative to the repository root.
	File string
	// Line is 1-based; 0 when unknown.
	Line int
	Msg  string
}

func (e *ManifestError) Error() string {
	if e.Line > 0 {
		return e.File + ":" + itoa(e.Line) + ": " + e.Msg
	}
	return e.File + ": " + e.Msg
}

// pythonMarkers make a folder a Python project.
var pythonMarkers = []string{"pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini", "requirements.txt"}

// makefiles are the names make reads, in its order.
var makefiles = []string{"GNUmakefile", "makefile", "Makefile"}

// isManifestDir reports whether dir holds a file that makes it a project root.
func isManifestDir(dir string) bool {
	for _, name := range append([]string{"go.mod", "go.work", "Cargo.toml", "package.json"}, append(pythonMarkers, makefiles...)...) {
		if fileExists(filepath.Join(dir, name)) {
			return true
		}
	}
	return false
}

// Roots returns the project roots for a change set: for each changed file
// (slash-separated, relative to repoRoot) the nearest folder at or above it
// holding a manifest; with no change, the repository root. A file with no
// manifest above it falls back to the repository root. Cargo crates inside a
// workspace resolve to the workspace root.
func Roots(repoRoot string, changed []string) []string {
	seen := map[string]bool{}
	var roots []string
	add := func(dir string) {
		if !seen[dir] {
			seen[dir] = true
			roots = append(roots, dir)
		}
	}
	if len(changed) == 0 {
		add(repoRoot)
	}
	for _, rel := range changed {
		dir := path.Dir(filepath.ToSlash(rel))
		if base := path.Base(rel); base == "go.work" || base == "go.work.sum" {
			// The workspace changed: every module it uses builds anew.
			// (A workspace folder without a go.mod of its own is the
			// project of its modules already.)
			if wd := filepath.Join(repoRoot, filepath.FromSlash(dir)); fileExists(filepath.Join(wd, "go.mod")) {
				for _, m := range workspaceModules(repoRoot, wd) {
					add(m)
				}
			}
		}
		found := ""
		for {
			abs := filepath.Join(repoRoot, filepath.FromSlash(dir))
			if isManifestDir(abs) {
				found = abs
				break
			}
			if dir == "." || dir == "/" || dir == "" {
				break
			}
			dir = path.Dir(dir)
		}
		if found == "" {
			found = repoRoot
		}
		add(cargoWorkspaceRoot(repoRoot, found))
	}
	sort.Strings(roots)
	return roots
}

// Projects detects the checks of every project touched by changed (paths
// relative to repoRoot; empty means the repository root's projects). A
// project root without a detected check is left out; a manifest that cannot
// be read is a *ManifestError.
func Projects(repoRoot string, changed []string, runner *run.Runner) ([]Project, error) {
	return ProjectsContext(context.Background(), repoRoot, changed, runner)
}

// ProjectsContext is Projects with a context for the probes it runs.
func ProjectsContext(ctx context.Context, repoRoot string, changed []string, runner *run.Runner) ([]Project, error) {
	return projects(ctx, repoRoot, changed, runner, true)
}

// ProjectsAt detects the project a user standing in dir (inside
// repoRoot) means when nothing changed: the nearest one at or above dir,
// else, for a folder of projects, each project below it (SubProjects).
func ProjectsAt(ctx context.Context, repoRoot, dir string, runner *run.Runner) ([]Project, error) {
	rel, err := filepath.Rel(repoRoot, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		rel = "."
	}
	// A file in dir is found like a changed file's project.
	ps, err := projects(ctx, repoRoot, []string{path.Join(filepath.ToSlash(rel), "_")}, runner, false)
	if err != nil || len(ps) > 0 {
		return ps, err
	}
	return SubProjects(ctx, repoRoot, filepath.Join(repoRoot, rel), runner)
}

// projects detects the projects of changed and, with dependents, of the
// projects that build against them from source.
func projects(ctx context.Context, repoRoot string, changed []string, runner *run.Runner, dependents bool) ([]Project, error) {
	if runner == nil {
		runner = &run.Runner{}
	}
	var out []Project
	seen := map[string]bool{}
	// add detects the project at root; a manifest without checks (a
	// workspace package with no test script) defers to the next project
	// above it.
	add := func(root, fullReason string) error {
		if seen[root] && fullReason != "" {
			// A changed project that also builds against another changed
			// one: its run is full too.
			for i := range out {
				for j := range out[i].Checks {
					if out[i].Root == root && out[i].Checks[j].FullReason.IsZero() {
						out[i].Checks[j].FullReason = dependsOn(fullReason)
					}
				}
			}
			return nil
		}
		for first := true; root != "" && !seen[root]; first = false {
			seen[root] = true
			p, err := detectRoot(ctx, repoRoot, root, runner, first)
			if err != nil {
				return err
			}
			if len(p.Checks) > 0 {
				for i := range p.Checks {
					p.Checks[i].FullReason = dependsOn(fullReason)
				}
				out = append(out, p)
				return nil
			}
			root = parentProject(repoRoot, root)
		}
		return nil
	}
	for _, rel := range changed {
		// A broken manifest of a crate under a workspace root: the root's
		// detection would not read it.
		if path.Base(rel) == "Cargo.toml" && !underSkipped(rel) {
			if err := checkCargoToml(filepath.Join(repoRoot, filepath.FromSlash(rel)), rel); err != nil {
				return nil, err
			}
		}
	}
	roots := Roots(repoRoot, changed)
	for _, root := range roots {
		if err := add(root, ""); err != nil {
			return nil, err
		}
	}
	// Projects that build against a changed one from source; a project
	// whose only changes are its own tests changed nothing they build
	// against.
	var libChanged []string
	for _, rel := range changed {
		if !testOnly(rel) {
			libChanged = append(libChanged, rel)
		}
	}
	if dependents && len(libChanged) > 0 {
		libRoots := Roots(repoRoot, libChanged)
		why := map[string]string{}
		files := &manifests{root: repoRoot}
		maps.Copy(why, goDependents(repoRoot, libRoots, files))
		node, err := nodeDependents(repoRoot, libRoots)
		if err != nil {
			return nil, err
		}
		maps.Copy(why, node)
		maps.Copy(why, cargoDependents(repoRoot, libRoots, libChanged, files))
		maps.Copy(why, pyDependents(repoRoot, libRoots, files))
		for _, dir := range slices.Sorted(maps.Keys(why)) {
			if err := add(dir, why[dir]); err != nil {
				return nil, err
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Root < out[j].Root })
	return out, nil
}

// testOnly reports a path that only its own project's tests read, by the
// runners' naming: Go _test.go files, Python test_*.py,
// *_test.py and conftest.py, JS and TS *.test.* and *.spec.* and
// __tests__/, Rust files under a tests/ folder outside src/. A project
// that builds against the one holding it never compiles or imports it.
// (testdata/ is not among them: non-test Go code may embed it.)
func testOnly(rel string) bool {
	base := path.Base(rel)
	parts := strings.Split(rel, "/")
	dirs := parts[:len(parts)-1]
	for _, d := range dirs {
		if d == "__tests__" {
			return true
		}
	}
	switch ext := path.Ext(base); ext {
	case ".go":
		return strings.HasSuffix(base, "_test.go")
	case ".py":
		return base == "conftest.py" || strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")
	case ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts":
		return strings.Contains(base, ".test.") || strings.Contains(base, ".spec.")
	case ".rs":
		for _, d := range dirs {
			if d == "src" {
				return false
			}
			if d == "tests" {
				return true
			}
		}
	}
	return false
}

// subProjectDepth bounds how deep SubProjects looks below its folder.
const subProjectDepth = 4

// SubProjects detects the projects below dir (inside repoRoot), for a
// folder with no project of its own: the topmost folders with checks, up
// to subProjectDepth levels down, skipping hidden, vendored and build
// folders. Their checks run in full.
func SubProjects(ctx context.Context, repoRoot, dir string, runner *run.Runner) ([]Project, error) {
	if runner == nil {
		runner = &run.Runner{}
	}
	var out []Project
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != dir && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		if depth := strings.Count(filepath.ToSlash(rel), "/") + 1; p != dir && depth > subProjectDepth {
			return filepath.SkipDir
		}
		if p == dir || !isManifestDir(p) {
			return nil
		}
		proj, err := detectRoot(ctx, repoRoot, cargoWorkspaceRoot(repoRoot, p), runner, true)
		if err != nil {
			return err
		}
		if len(proj.Checks) == 0 {
			return nil
		}
		out = append(out, proj)
		return filepath.SkipDir
	})
	return out, err
}

// parentProject is the nearest manifest folder strictly above root, up to
// repoRoot; "" when there is none.
func parentProject(repoRoot, root string) string {
	for cur := root; cur != repoRoot; {
		parent := filepath.Dir(cur)
		if parent == cur || len(parent) < len(repoRoot) {
			return ""
		}
		cur = parent
		if cur == repoRoot || isManifestDir(cur) {
			return cur
		}
	}
	return ""
}

// detectRoot finds the checks of one project root, in run order. A
// workspace root (go.work without go.mod, a package.json with workspaces
// and no test script) found for a change of its own (members, when the
// root was reached by deferring from a member without checks) stands for
// its members' checks.
func detectRoot(ctx context.Context, repoRoot, root string, runner *run.Runner, members bool) (Project, error) {
	p := Project{Root: root}
	rel := func(name string) string {
		r, err := filepath.Rel(repoRoot, filepath.Join(root, name))
		if err != nil {
			return name
		}
		return filepath.ToSlash(r)
	}
	if fileExists(filepath.Join(root, "go.mod")) {
		if err := checkGoMod(root, rel("go.mod")); err != nil {
			return p, err
		}
		p.Checks = append(p.Checks, goChecks(root)...)
	}
	if members && !fileExists(filepath.Join(root, "go.mod")) {
		// A Go workspace's folder: the modules it uses are the project.
		for _, dir := range workspaceModules(repoRoot, root) {
			r, _ := filepath.Rel(repoRoot, filepath.Join(dir, "go.mod"))
			if err := checkGoMod(dir, filepath.ToSlash(r)); err != nil {
				return p, err
			}
			p.Checks = append(p.Checks, goChecks(dir)...)
		}
	}
	if fileExists(filepath.Join(root, "Cargo.toml")) {
		if err := checkCargoToml(filepath.Join(root, "Cargo.toml"), rel("Cargo.toml")); err != nil {
			return p, err
		}
		c := Check{Command: "cargo test", Args: []string{"cargo", "test"}, Dir: root, Runner: Cargo, Narrowable: narrowable(Cargo)}
		if rootPackageWorkspace(filepath.Join(root, "Cargo.toml")) {
			// Without it cargo tests the root package alone.
			c.Command, c.Args = "cargo test --workspace", []string{"cargo", "test", "--workspace"}
		}
		p.Checks = append(p.Checks, c)
	}
	if fileExists(filepath.Join(root, "package.json")) {
		c, ok, err := nodeCheck(root, rel("package.json"))
		if err != nil {
			return p, err
		}
		if ok {
			p.Checks = append(p.Checks, c)
		} else if members {
			// A workspace root with no tests of its own: its packages'.
			pkgs, err := workspacePackages(root)
			if err != nil {
				return p, workspaceError(repoRoot, root, err)
			}
			for _, pkg := range pkgs {
				r, _ := filepath.Rel(repoRoot, filepath.Join(pkg.dir, "package.json"))
				c, ok, err := nodeCheck(pkg.dir, filepath.ToSlash(r))
				if err != nil {
					return p, err
				}
				if ok {
					p.Checks = append(p.Checks, c)
				}
			}
		}
	}
	if isPythonProject(root, root == repoRoot) {
		p.Checks = append(p.Checks, pythonCheck(ctx, root, runner))
	}
	if len(p.Checks) == 0 {
		if hasMakeTestTarget(root) {
			p.Checks = append(p.Checks, Check{Command: "make test", Args: []string{"make", "test"}, Dir: root, Runner: Make})
		}
	}
	return p, nil
}

// underSkipped reports a path inside a folder no project search enters
// (testdata/, vendor/, node_modules/, target/, hidden ones): a broken
// Cargo.toml there is a fixture, not the project's manifest.
func underSkipped(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		if skipDir(p) {
			return true
		}
	}
	return false
}

// goChecks are a Go module's checks.
func goChecks(dir string) []Check {
	return []Check{
		{Command: "go vet ./...", Args: []string{"go", "vet", "./..."}, Dir: dir, Runner: GoVet, Narrowable: narrowable(GoVet)},
		{Command: "go test ./...", Args: []string{"go", "test", "./..."}, Dir: dir, Runner: Go, Narrowable: narrowable(Go)},
	}
}

// narrowable reports a runner with a related-test mode.
func narrowable(r Runner) bool { return runner.For(r).FullOnly().IsZero() }

// dependsOn is the reason of a project run because it builds against a
// changed one; how says so. No how, no reason.
func dependsOn(how string) scope.Reason {
	if how == "" {
		return scope.Reason{}
	}
	return scope.Reason{Code: scope.DependsOnChange, Detail: how}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func itoa(n int) string { return strconv.Itoa(n) }

// hasPrefixWord reports whether s starts with word followed by a space or the end.
func hasPrefixWord(s, word string) bool {
	return s == word || strings.HasPrefix(s, word+" ")
}
