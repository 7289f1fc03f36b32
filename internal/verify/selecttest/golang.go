package selecttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

func init() { analyzers[detect.Go] = selectGo }

// goGraph is the part of `go list -deps -test -json ./...` selection needs,
// reduced to the packages of the main module. It is what the cache stores.
type goGraph struct {
	Module   string   `json:"module"`
	Packages []*goPkg `json:"packages"`
}

// goPkg is one package of the main module.
type goPkg struct {
	ImportPath string `json:"importPath"`
	// Rel is the package folder relative to the module root, slash-separated.
	Rel  string `json:"rel"`
	Name string `json:"name"`
	// Files are the base names of every file go list attributes to the
	// package: Go, cgo, assembly, embedded and test files.
	Files []string `json:"files"`
	// TestFiles counts its _test.go files.
	TestFiles int `json:"testFiles"`
	// TestDeps are the module packages its test binary links, test-only
	// imports and the external _test package included.
	TestDeps []string `json:"testDeps,omitempty"`
	// Deps are the module packages the package itself links.
	Deps []string `json:"deps,omitempty"`
	// Harness is set when its tests import a script-test harness
	// (testscript): they build and run the module's commands.
	Harness bool `json:"harness,omitempty"`
	// ExecImport is set when its tests import os/exec; with a `go` command
	// in their source (go build, go run) they run the module's programs.
	ExecImport bool `json:"execImport,omitempty"`
}

// goListFields are the fields requested from go list; the rest of its
// output is never produced. Direct Imports rather than Deps: the closure is
// cheap to compute here, and Deps of every test variant would make the
// output grow with the square of the module's depth (5 MB for 300
// chained packages).
const goListFields = "ImportPath,Name,Dir,ForTest,Module,Imports,TestImports,XTestImports," +
	"GoFiles,CgoFiles,CFiles,CXXFiles,HFiles,SFiles,SysoFiles,EmbedFiles,IgnoredGoFiles," +
	"TestGoFiles,XTestGoFiles,TestEmbedFiles,XTestEmbedFiles"

// programRunners are script-test harnesses that build and run the
// module's own programs.
var programRunners = map[string]bool{
	"github.com/rogpeppe/go-internal/testscript": true,
	"rsc.io/script":                              true,
	"rsc.io/script/scripttest":                   true,
	"github.com/rogpeppe/go-internal/gotooltest": true,
}

// listPkg is one object of go list's JSON stream.
type listPkg struct {
	ImportPath, Name, Dir, ForTest string
	Module                         *struct {
		Path, Dir string
		Main      bool
	}
	Imports, TestImports, XTestImports  []string
	GoFiles, CgoFiles, CFiles, CXXFiles []string
	HFiles, SFiles, SysoFiles           []string
	EmbedFiles, IgnoredGoFiles          []string
	TestGoFiles, XTestGoFiles           []string
	TestEmbedFiles, XTestEmbedFiles     []string
}

// loadGoGraph runs go list once in dir and reduces its output.
func loadGoGraph(ctx context.Context, r *run.Runner, dir string) (*goGraph, error) {
	var stdout bytes.Buffer
	res, err := r.Run(ctx, run.Spec{
		Args:    []string{"go", "list", "-e", "-deps", "-test", "-json=" + goListFields, "./..."},
		Dir:     dir,
		Purpose: run.Internal,
		Stdout:  &stdout,
	})
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("go list in %s: %s", dir, lastLine(res.Output))
	}
	return parseGoList(&stdout, dir)
}

// sameDir reports whether two folder paths name one folder.
func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// parseGoList reduces a go list JSON stream to a goGraph.
func parseGoList(rd io.Reader, dir string) (*goGraph, error) {
	dec := json.NewDecoder(rd)
	var all []*listPkg
	g := &goGraph{}
	// In a go.work every used module is a main module: the one is the
	// module in dir.
	exact := false
	for {
		p := new(listPkg)
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		if p.Module != nil && p.Module.Main && !exact {
			if sameDir(p.Module.Dir, dir) {
				g.Module, exact = p.Module.Path, true
			} else if g.Module == "" {
				g.Module = p.Module.Path
			}
		}
		all = append(all, p)
	}
	if g.Module == "" {
		return g, nil
	}
	local := func(ip string) bool { return ip == g.Module || strings.HasPrefix(ip, g.Module+"/") }
	imports := make(map[string][]string, len(all))
	for _, p := range all {
		imports[p.ImportPath] = p.Imports
	}
	byPath := map[string]*goPkg{}
	for _, p := range all {
		if p.ForTest != "" || strings.Contains(p.ImportPath, " ") || !local(p.ImportPath) ||
			p.Module == nil || !p.Module.Main || isTestMain(p) {
			continue
		}
		if _, dup := byPath[p.ImportPath]; dup {
			continue
		}
		rel, err := filepath.Rel(dir, p.Dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		gp := &goPkg{ImportPath: p.ImportPath, Rel: filepath.ToSlash(rel), Name: p.Name}
		for _, l := range [][]string{p.GoFiles, p.CgoFiles, p.CFiles, p.CXXFiles, p.HFiles, p.SFiles,
			p.SysoFiles, p.EmbedFiles, p.IgnoredGoFiles, p.TestGoFiles, p.XTestGoFiles,
			p.TestEmbedFiles, p.XTestEmbedFiles} {
			gp.Files = append(gp.Files, l...)
		}
		gp.TestFiles = len(p.TestGoFiles) + len(p.XTestGoFiles)
		for _, ip := range append(append([]string{}, p.TestImports...), p.XTestImports...) {
			gp.Harness = gp.Harness || programRunners[ip]
			gp.ExecImport = gp.ExecImport || ip == "os/exec"
		}
		// Every package's own closure: mains' tests-by-execution depend on
		// it, and go vet's facts flow along it to importers.
		gp.Deps = localDeps(closure(imports, p.ImportPath), local)
		byPath[p.ImportPath] = gp
		g.Packages = append(g.Packages, gp)
	}
	// The test main "P.test" links everything P's tests need.
	for _, p := range all {
		if !isTestMain(p) {
			continue
		}
		base := strings.TrimSuffix(p.ImportPath, ".test")
		if gp := byPath[base]; gp != nil && gp.TestFiles > 0 {
			gp.TestDeps = localDeps(closure(imports, p.ImportPath), local)
		}
	}
	sort.Slice(g.Packages, func(i, j int) bool { return g.Packages[i].Rel < g.Packages[j].Rel })
	return g, nil
}

// closure returns every package reachable from start through imports
// (test-variant names included, start excluded).
func closure(imports map[string][]string, start string) []string {
	seen := map[string]bool{start: true}
	stack := []string{start}
	var out []string
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range imports[n] {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
				stack = append(stack, d)
			}
		}
	}
	return out
}

// isTestMain reports the generated main package of a test binary ("P.test",
// whose source lives in the build cache).
func isTestMain(p *listPkg) bool {
	return p.Name == "main" && p.ForTest == "" && strings.HasSuffix(p.ImportPath, ".test") &&
		len(p.GoFiles) > 0 && filepath.IsAbs(p.GoFiles[0])
}

// localDeps strips test-variant suffixes and keeps module packages.
func localDeps(deps []string, local func(string) bool) []string {
	set := map[string]bool{}
	for _, d := range deps {
		if i := strings.IndexByte(d, ' '); i >= 0 {
			d = d[:i]
		}
		d = strings.TrimSuffix(d, "_test")
		if local(d) {
			set[d] = true
		}
	}
	return sortedKeys(set)
}

func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// goGraphToNarrow loads the module's package graph for go test and go vet
// alike, and the selection to use instead of narrowing, if any: the whole
// module when the project has too few test files for narrowing to pay.
func goGraphToNarrow(ctx context.Context, r *run.Runner, in Input) (*goGraph, Selection, error) {
	g, err := goGraphFor(ctx, r, in.Check.Dir)
	if err != nil {
		return nil, Selection{}, err
	}
	tests := 0
	for _, p := range g.Packages {
		tests += p.TestFiles
	}
	if tests <= MinTestFiles {
		return g, fullSelection(in.Check, scope.Count(scope.FewTestFiles, MinTestFiles)), nil
	}
	return g, Selection{}, nil
}

// selectGo narrows `go test ./...` to the packages whose tests reach the
// change. A full run names the packages with tests it covers (Packages).
func selectGo(ctx context.Context, r *run.Runner, in Input) (Selection, error) {
	g, sel, err := selectGoIn(ctx, r, in)
	if err == nil && g != nil && sel.Full {
		for _, p := range g.Packages {
			if p.TestFiles > 0 {
				sel.Packages = append(sel.Packages, p.ImportPath)
			}
		}
		if c := sel.Reason.Code; c == scope.FewTestFiles || c == scope.ReachesAll {
			sel.Stages = fullStages(in, g, sel.Reason)
		}
	}
	return sel, err
}

// fullStages splits a full run of go test ./... the way a related run is
// split (goStages): the tests of the packages the change is in, then every
// other package of the module, so that a fault its own package's tests
// catch does not wait for the whole suite. Together the two run what
// ./... runs (a package without tests is built by go test ./... too, so
// it is in the second). Only when the check names no packages but ./...
// and no build tags (the graph is listed without them), and the other
// packages' tests took MinRunPatternSecs or more when last run whole: two go commands cost a little more than one, and the second
// stage is what a failure in the first saves.
func fullStages(in Input, g *goGraph, why scope.Reason) []Selection {
	if !slices.Equal(runner.GoTestPackages(in.Check.Args), []string{"./..."}) {
		return nil
	}
	if runner.HasGoFlag(in.Check.Args, "tags") {
		// The graph was listed without the check's tags: a package
		// only they build is not in it.
		return nil
	}
	byRel := map[string]*goPkg{}
	for _, p := range g.Packages {
		byRel[p.Rel] = p
	}
	first := map[string]bool{}
	for _, f := range cleanChanged(in.Changed) {
		if inNestedModule(in.Check.Dir, f) {
			continue
		}
		// The package the file is in, or whose folder holds it (testdata).
		for d := path.Dir(f); ; d = path.Dir(d) {
			if p := byRel[d]; p != nil {
				if p.TestFiles > 0 {
					first[p.ImportPath] = true
				}
				break
			}
			if d == "." || d == "/" {
				break
			}
		}
	}
	times := GoTestTimes(in.Check)
	var head, rest []string
	restSecs := 0.0
	for _, p := range g.Packages {
		if first[p.ImportPath] {
			head = append(head, goTarget(p.Rel))
			continue
		}
		if inNestedModule(in.Check.Dir, path.Join(p.Rel, "x.go")) {
			continue // another module of a go.work: ./... leaves it out
		}
		rest = append(rest, goTarget(p.Rel))
		restSecs += times[p.ImportPath]
	}
	if len(head) == 0 || len(rest) == 0 || restSecs < MinRunPatternSecs {
		return nil
	}
	second := goCommand(in.Check, rest, nil, "")
	second.Reason = scope.Reason{Code: scope.RestOfSuite, Detail: why.String()}
	return []Selection{goCommand(in.Check, head, nil, ""), second}
}

func selectGoIn(ctx context.Context, r *run.Runner, in Input) (*goGraph, Selection, error) {
	g, full, err := goGraphToNarrow(ctx, r, in)
	if err != nil || full.Full {
		return g, full, err
	}
	scan := scanGoTests(in.Check.Dir, g)
	plan, reason := planGo(g, in, scan.readers)
	if !reason.IsZero() {
		return g, fullSelection(in.Check, reason), nil
	}
	widened := plan.widen(g, scan)
	if f := plan.uncovered(toSet(in.Added)); f != "" {
		return g, fullSelection(in.Check, scope.Because(scope.NoRelatedTests, f)), nil
	}
	if len(plan.selected) == 0 {
		return g, fullSelection(in.Check, scope.Because(scope.NoRelatedTests)), nil
	}
	withTests := 0
	for _, p := range g.Packages {
		if p.TestFiles > 0 {
			withTests++
		}
	}
	if len(plan.selected) == withTests {
		// The packages no import reaches, if any, are why it reaches
		// them all: "(including ./middleware: its tests read ..)".
		full := fullSelection(in.Check, scope.For(scope.ReachesAll, "test package"))
		full.Widened = widened
		return g, full, nil
	}
	targets := make([]string, 0, len(plan.selected))
	for ip := range plan.selected {
		targets = append(targets, goTarget(plan.byPath[ip].Rel))
	}
	sort.Strings(targets)
	pattern := goRunPattern(in, g, plan)
	sel := goCommand(in.Check, targets, widened, pattern)
	sel.Stages = goStages(in.Check, plan, widened, pattern)
	return g, sel, nil
}

// goCommand is the related go test run of targets, with the -run pattern
// if there is one.
func goCommand(c detect.Check, targets, widened []string, pattern string) Selection {
	args, _ := runner.For(c.Runner).NarrowTargets(c.Dir, c.Args, targets)
	sel := narrowed(args, targets, widened)
	if pattern != "" {
		sel.Args = runner.WithGoTestFlags(sel.Args, "-run", pattern)
		sel.Command, sel.RunPattern = shell.Join(sel.Args), pattern
	}
	return sel
}

// goStages splits the selected packages into those the change is in and
// those that import them, when both have tests: a fault is usually caught
// by its own package's tests, and those take a fraction of the whole run
// (zap: 1.4s of 3.3s for a zapcore change). nil when there is nothing to
// split.
func goStages(c detect.Check, pl *goPlan, widened []string, pattern string) []Selection {
	var first, rest []string
	for ip := range pl.selected {
		switch t := goTarget(pl.byPath[ip].Rel); {
		case pattern != "" && !pl.runs[ip]:
			// The pattern names none of its tests.
		case pl.changed[ip] || pl.testChanged[ip]:
			first = append(first, t)
		default:
			rest = append(rest, t)
		}
	}
	if len(first) == 0 || len(rest) == 0 {
		return nil
	}
	sort.Strings(first)
	sort.Strings(rest)
	return []Selection{goCommand(c, first, widened, pattern), goCommand(c, rest, widened, pattern)}
}

func goTarget(rel string) string {
	if rel == "." {
		return "."
	}
	return "./" + rel
}

// goPlan is the mapping of the change onto packages.
type goPlan struct {
	byPath map[string]*goPkg
	// changed are packages whose non-test code changed.
	changed map[string]bool
	// changedFiles are the changed paths that map to code, by package.
	files    map[string][]string
	selected map[string]bool
	// edited are changed packages with a changed file that is not new.
	edited map[string]bool
	// testChanged are packages with a changed test file.
	testChanged map[string]bool
	// runs, once a -run pattern is made, are the selected packages that
	// hold a test it names.
	runs map[string]bool
	// covered are changed files reached by widening (programs, file reads).
	covered map[string]bool
	// allChanged is every changed file (for file readers).
	allChanged []string
	// whole are selected packages whose tests reach the change through
	// something other than names (test data, programs, files read), so
	// all of them run.
	whole map[string]bool
	// buildsGo names the selected packages whose tests run the go command
	// or a script harness, as the evidence reason for running them whole.
	buildsGo []string
}

// planGo maps changed files to packages and selects the tests that import
// them. A non-empty reason means the full suite must run.
func planGo(g *goGraph, in Input, readers map[string][]string) (*goPlan, scope.Reason) {
	pl := &goPlan{byPath: map[string]*goPkg{}, changed: map[string]bool{}, files: map[string][]string{},
		selected: map[string]bool{}, covered: map[string]bool{}, edited: map[string]bool{}, whole: map[string]bool{}, testChanged: map[string]bool{}}
	byDir := map[string]*goPkg{}
	for _, p := range g.Packages {
		pl.byPath[p.ImportPath] = p
		byDir[p.Rel] = p
	}
	added := toSet(in.Added)
	for _, f := range cleanChanged(in.Changed) {
		if inNestedModule(in.Check.Dir, f) {
			continue
		}
		pl.allChanged = append(pl.allChanged, f)
		p := byDir[path.Dir(f)]
		listed := p != nil && contains(p.Files, path.Base(f))
		isGo := strings.HasSuffix(f, ".go")
		switch {
		case listed || p != nil && isGo:
			if strings.HasSuffix(f, "_test.go") {
				if p.TestFiles > 0 {
					pl.selected[p.ImportPath] = true
					pl.testChanged[p.ImportPath] = true
				}
			} else {
				pl.changed[p.ImportPath] = true
				pl.files[p.ImportPath] = append(pl.files[p.ImportPath], f)
				if !added[f] {
					pl.edited[p.ImportPath] = true
				}
			}
		case isGo && added[f]:
			// A new file outside any package (a reproduction program in a
			// folder of its own with a build tag) imports into nothing.
		case testdataOwner(byDir, f) != nil:
			// By Go convention a package's testdata serves its own tests.
			if p := testdataOwner(byDir, f); p.TestFiles > 0 {
				pl.selected[p.ImportPath] = true
				pl.whole[p.ImportPath] = true
			}
		case readByTests(readers, f):
			// widen selects the tests that read it.
		case isGo:
			return nil, scope.Because(scope.NoRelatedTests, f)
		default:
			return nil, scope.For(scope.NotCode, "Go", f)
		}
	}
	for _, p := range g.Packages {
		if p.TestFiles == 0 {
			continue
		}
		if pl.changed[p.ImportPath] || anyIn(p.TestDeps, pl.changed) {
			pl.selected[p.ImportPath] = true
		}
	}
	return pl, scope.Reason{}
}

// uncovered returns a changed, not-new file whose package no selected test
// reaches, or "".
func (pl *goPlan) uncovered(added map[string]bool) string {
	ips := sortedKeys(pl.changed)
	for _, ip := range ips {
		if pl.coveredByTests(ip) {
			continue
		}
		for _, f := range pl.files[ip] {
			if !added[f] && !pl.covered[f] {
				return f
			}
		}
	}
	return ""
}

// coveredByTests reports whether some selected package's tests link ip.
func (pl *goPlan) coveredByTests(ip string) bool {
	for sel := range pl.selected {
		if sel == ip || contains(pl.byPath[sel].TestDeps, ip) {
			return true
		}
	}
	return false
}

// widen adds tests that depend on the change without importing it: tests
// that run the module's programs, and tests that read other packages'
// folders. It returns the notes for the evidence.
func (pl *goPlan) widen(g *goGraph, scan goTestScan) []string {
	var notes []string
	var affectedMains []*goPkg
	for _, p := range g.Packages {
		// A program made only of new files is a new program nothing runs yet.
		if p.Name == "main" && (pl.edited[p.ImportPath] || anyIn(p.Deps, pl.changed)) {
			affectedMains = append(affectedMains, p)
		}
	}
	for _, p := range g.Packages {
		if p.TestFiles == 0 {
			continue
		}
		if len(affectedMains) > 0 && (p.Harness || p.ExecImport && scan.buildsGo[p.ImportPath]) {
			pl.coverMains(affectedMains)
			pl.whole[p.ImportPath] = true
			if !pl.selected[p.ImportPath] {
				pl.selected[p.ImportPath] = true
				notes = append(notes, goTarget(p.Rel)+": its tests run the project's programs")
			}
		}
		for _, f := range readFiles(scan.readers[p.ImportPath], pl.allChanged) {
			pl.covered[f] = true
			pl.whole[p.ImportPath] = true
			if !pl.selected[p.ImportPath] {
				pl.selected[p.ImportPath] = true
				notes = append(notes, goTarget(p.Rel)+": its tests read "+f)
			}
		}
	}
	// A selected package whose tests run the go command or a script
	// harness builds the module's code in a process of its own (zap's
	// TestStacktraceFiltersVendorZap runs its package's tests again with
	// the module vendored): no name leads from that test to the change,
	// so a -run pattern could leave it out. Its tests all run.
	for ip := range pl.selected {
		if p := pl.byPath[ip]; p != nil && (p.Harness || p.ExecImport && scan.buildsGo[ip]) {
			pl.whole[ip] = true
			pl.buildsGo = append(pl.buildsGo, goTarget(p.Rel))
		}
	}
	sort.Strings(pl.buildsGo)
	sort.Strings(notes)
	return notes
}

// coverMains marks the changed files linked into the given programs as
// reached by tests that run programs.
func (pl *goPlan) coverMains(mains []*goPkg) {
	for _, m := range mains {
		for _, ip := range append([]string{m.ImportPath}, m.Deps...) {
			for _, f := range pl.files[ip] {
				pl.covered[f] = true
			}
		}
	}
}

// testdataOwner returns the package whose testdata folder holds f.
func testdataOwner(byDir map[string]*goPkg, f string) *goPkg {
	for d := path.Dir(f); d != "." && d != "/"; d = path.Dir(d) {
		if path.Base(d) == "testdata" {
			return byDir[path.Dir(d)]
		}
	}
	return nil
}

// readByTests reports whether some test package reads f by relative path.
func readByTests(readers map[string][]string, f string) bool {
	for _, dirs := range readers {
		if len(readFiles(dirs, []string{f})) > 0 {
			return true
		}
	}
	return false
}

// readFiles returns the changed files that lie in one of dirs.
func readFiles(dirs, changed []string) []string {
	var out []string
	for _, f := range changed {
		for _, d := range dirs {
			if d == "." || f == d || strings.HasPrefix(f, d+"/") {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

func anyIn(list []string, set map[string]bool) bool {
	for _, s := range list {
		if set[s] {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// inNestedModule reports whether f lies in a folder below root that has
// its own go.mod: it belongs to that module's checks.
func inNestedModule(root, f string) bool {
	for d := path.Dir(f); d != "." && d != "/"; d = path.Dir(d) {
		if fileExists(filepath.Join(root, filepath.FromSlash(d), "go.mod")) {
			return true
		}
	}
	return false
}
