package selecttest

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/pytestconf"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

func init() {
	analyzers[detect.Pytest] = selectPython
	analyzers[detect.Unittest] = selectPython
}

// pyTestFiles lists the project's test files: pytest's python_files
// patterns under testpaths (or everywhere), or unittest's test*.py.
func (p *pyProject) testFiles(unittest bool) []string {
	patterns := p.cfg.PythonFiles
	if unittest {
		patterns = []string{"test*.py"}
	}
	var out []string
	for f := range p.files {
		if !fileExists(filepath.Join(p.dir, filepath.FromSlash(f))) || !p.underTestPaths(f, unittest) {
			continue
		}
		base := path.Base(f)
		for _, pat := range patterns {
			if pyFilesMatch(pat, f) && base != "conftest.py" {
				out = append(out, f)
				break
			}
		}
	}
	if !unittest {
		// pytest collects the doctests of matching text files too; one
		// without a prompt is data (a test may read it), not a test.
		for _, f := range p.docFiles {
			if p.underTestPaths(f, false) && hasPrompt(filepath.Join(p.dir, filepath.FromSlash(f))) {
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}

// pyFilesMatch is pytest's match of a python_files pattern with the file
// f (relative to the rootdir): against the base name, or, when the pattern
// holds a slash, against the whole path with fnmatch, whose * crosses
// folders ("test/*test_*.py" matches test/ext/test_b.py).
func pyFilesMatch(pat, f string) bool {
	if !strings.Contains(pat, "/") {
		ok, _ := path.Match(pat, path.Base(f))
		return ok
	}
	re, err := regexp.Compile(`^(?:.*/)?` + fnmatchRegexp(strings.TrimPrefix(pat, "./")) + `$`)
	return err == nil && re.MatchString(f)
}

// fnmatchRegexp translates a Python fnmatch pattern: * and ? match any
// character, / included; [...] is a set ([!...] negated).
func fnmatchRegexp(pat string) string {
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(pat[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			set := pat[i+1 : i+1+j]
			if strings.HasPrefix(set, "!") {
				set = "^" + set[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(set, `\`, `\\`) + "]")
			i += j + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

func (p *pyProject) underTestPaths(f string, unittest bool) bool {
	if unittest || len(p.cfg.TestPaths) == 0 {
		return true
	}
	for _, tp := range p.cfg.TestPaths {
		tp = path.Clean(filepath.ToSlash(tp))
		if tp == "." || f == tp || strings.HasPrefix(f, tp+"/") {
			return true
		}
		if ok, _ := path.Match(tp, f); ok {
			return true
		}
	}
	return false
}

// collectionOrder puts files in the order pytest's whole run meets them:
// by the testpaths entry that holds them, in the configured order, then
// by path. A test can depend on what an earlier one left behind (a
// session fixture a doctest reads, python-semver's docs after its tests),
// and a related run in another order would fail where the suite passes.
func (p *pyProject) collectionOrder(files []string) []string {
	rank := func(f string) int {
		for i, tp := range p.cfg.TestPaths {
			if tp = path.Clean(filepath.ToSlash(tp)); tp == "." || f == tp || strings.HasPrefix(f, tp+"/") {
				return i
			}
			if ok, _ := path.Match(tp, f); ok {
				return i
			}
		}
		return len(p.cfg.TestPaths)
	}
	sort.SliceStable(files, func(i, j int) bool { return rank(files[i]) < rank(files[j]) })
	return files
}

// pyMinTestFiles is MinTestFiles; the real-project check lowers it to
// compare selections on small projects too.
var pyMinTestFiles = MinTestFiles

// selectPython narrows pytest or unittest to the test modules that import
// the change, directly or through other modules.
func selectPython(_ context.Context, _ *run.Runner, in Input) (Selection, error) {
	unittest := in.Check.Runner == detect.Unittest
	changed := cleanChanged(in.Changed)
	cfg := readPytestConfig(in.Check.Dir, pytestconf.ParseVersion(in.Check.Version))
	if !unittest && contains(in.Check.Args, "--doctest-modules") {
		cfg.DoctestModules = true
	}
	if globs := doctestGlobs(in.Check.Args); !unittest && len(globs) > 0 {
		// The command's own patterns (tox.ini's, say) count with
		// the configuration's; pytest's default goes when any is set.
		if cfg.defaultGlobs {
			cfg.DoctestGlobs = nil
		}
		cfg.DoctestGlobs = append(slices.Clone(cfg.DoctestGlobs), globs...)
	}
	memo := pyMemoFile(in.Check.Dir)
	pyMemo.load(memo)
	defer pyMemo.save(memo)
	proj := loadPyProject(in.Check.Dir, cfg, changed)
	tests := proj.testFiles(unittest)
	if len(tests) <= pyMinTestFiles {
		return fullSelection(in.Check, scope.Count(scope.FewTestFiles, MinTestFiles)), nil
	}
	isTest := map[string]bool{}
	for _, t := range tests {
		isTest[t] = true
	}
	added := toSet(in.Added)
	selected := map[string]bool{}
	var targets []string
	for _, f := range changed {
		switch {
		case isTest[f]:
			selected[f] = true
		case !strings.HasSuffix(f, ".py") && !strings.HasSuffix(f, ".pyi"):
			return fullSelection(in.Check, scope.For(scope.NotCode, "Python", f)), nil
		case !fileExists(filepath.Join(in.Check.Dir, filepath.FromSlash(f))) && looksLikeTest(f, proj, unittest):
			// A deleted test file has nothing left to run.
		default:
			targets = append(targets, f)
		}
	}
	doctests := unittest || !proj.cfg.DoctestModules
	candidates := tests
	if !doctests {
		// Each module's doctests are tests of what it imports.
		candidates = append(proj.doctestModules(isTest), tests...)
	}
	widened, uncovered := proj.matchTests(candidates, targets, selected, added)
	if uncovered != "" {
		return fullSelection(in.Check, scope.Because(scope.NoRelatedTests, uncovered)), nil
	}
	if len(selected) == 0 {
		return fullSelection(in.Check, scope.Because(scope.NoRelatedTests)), nil
	}
	if countTrue(selected, isTest) == len(tests) {
		return fullSelection(in.Check, scope.For(scope.ReachesAll, "test file")), nil
	}
	if !doctests {
		for _, f := range targets {
			if fileExists(filepath.Join(in.Check.Dir, filepath.FromSlash(f))) && proj.underTestPaths(f, false) {
				selected[f] = true
			}
		}
	}
	files := proj.collectionOrder(sortedKeys(selected))
	var notes []string
	for _, t := range sortedKeys(selectedOnly(widened)) {
		notes = append(notes, t+": it "+widened[t])
	}
	if unittest {
		return unittestSelection(in.Check, files, notes)
	}
	if !contains(in.Check.Args, "-k") && pyNodesPay(in.Check.Dir, files) {
		if nodes := proj.narrowToNodes(in.Base, changed, files, isTest, added, widened); nodes.targets != nil {
			files = nodes.targets
		}
	}
	args, _ := runner.For(detect.Pytest).NarrowTargets(in.Check.Dir, in.Check.Args, files)
	return narrowed(args, files, notes), nil
}

// doctestModules lists the modules pytest's --doctest-modules collects
// doctests from (under testpaths, not test files, conftest.py, setup.py or
// __main__.py) that hold a doctest prompt.
func (p *pyProject) doctestModules(isTest map[string]bool) []string {
	var out []string
	for _, f := range p.sortedFiles("") {
		switch path.Base(f) {
		case "conftest.py", "setup.py", "__main__.py":
			continue
		}
		if isTest[f] || !p.underTestPaths(f, false) {
			continue
		}
		if hasPrompt(filepath.Join(p.dir, filepath.FromSlash(f))) {
			out = append(out, f)
		}
	}
	return out
}

// hasPrompt reports whether a file holds a doctest prompt (>>>).
func hasPrompt(file string) bool {
	data, err := os.ReadFile(file)
	return err == nil && strings.Contains(string(data), ">>>")
}

// countTrue counts the keys of m that set holds.
func countTrue(m, set map[string]bool) int {
	n := 0
	for k := range m {
		if set[k] {
			n++
		}
	}
	return n
}

// matchTests adds to selected the tests that reach each target file. It
// returns the tests selected only through a hidden dependency, with why,
// and the first target no test reaches (new or deleted files nothing
// imports aside).
func (p *pyProject) matchTests(tests, targets []string, selected, added map[string]bool) (map[string]string, string) {
	widened := map[string]string{}
	plain := map[string]bool{}
	for t := range selected {
		plain[t] = true
	}
	if len(targets) > 0 {
		reaches := make(map[string]pyReach, len(tests))
		for _, t := range tests {
			reaches[t] = p.reach(t)
		}
		for _, f := range targets {
			found := false
			for _, t := range tests {
				why, ok := reaches[t].All[f]
				if !ok {
					continue
				}
				found = true
				if why != "" {
					widened[t] = why
				} else {
					plain[t] = true
				}
				selected[t] = true
			}
			// A new file nothing imports yet, or a deleted one nothing
			// imports any more (the other half of a rename), has no tests
			// of its own; the files that changed their imports bring theirs.
			gone := !fileExists(filepath.Join(p.dir, filepath.FromSlash(f)))
			if !found && !((added[f] || gone) && !p.importedByAny(f)) {
				return nil, f
			}
		}
	}
	for t := range plain {
		delete(widened, t)
	}
	return widened, ""
}

func selectedOnly(m map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// looksLikeTest reports whether a (deleted) path matches the test patterns.
func looksLikeTest(f string, p *pyProject, unittest bool) bool {
	patterns := p.cfg.PythonFiles
	if unittest {
		patterns = []string{"test*.py"}
	}
	for _, pat := range patterns {
		if ok, _ := path.Match(pat, path.Base(f)); ok {
			return true
		}
	}
	return false
}

// importedByAny reports whether any project file depends on f.
func (p *pyProject) importedByAny(f string) bool {
	for _, from := range p.sortedFiles("") {
		if from == f {
			continue
		}
		for _, e := range p.fileEdges(from) {
			if e.To == f {
				return true
			}
		}
	}
	return false
}

func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// unittestSelection names the selected modules in dotted form after
// `-m unittest`; discovery arguments are dropped. Discovery from another
// top-level folder cannot be narrowed by module name.
func unittestSelection(c detect.Check, files, notes []string) (Selection, error) {
	var args []string
	for i, a := range c.Args {
		args = append(args, a)
		if a == "unittest" && i > 0 && c.Args[i-1] == "-m" {
			rest := c.Args[i+1:]
			if top := discoveryTop(rest); top != "." {
				return fullSelection(c, scope.Because(scope.UnittestDiscovery, top)), nil
			}
			break
		}
	}
	var mods []string
	for _, f := range files {
		mod := strings.ReplaceAll(strings.TrimSuffix(f, ".py"), "/", ".")
		for _, part := range strings.Split(mod, ".") {
			if !isIdentifier(part) {
				return fullSelection(c, scope.Because(scope.NoModuleName, f)), nil
			}
		}
		mods = append(mods, mod)
	}
	return narrowed(append(args, mods...), mods, notes), nil
}

// discoveryTop returns the top-level folder of `unittest discover` args
// ("." when not discovering from elsewhere).
func discoveryTop(args []string) string {
	if len(args) == 0 || args[0] != "discover" {
		return "."
	}
	start, top := ".", ""
	var pos []string
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case (a == "-s" || a == "--start-directory") && i+1 < len(args):
			start = args[i+1]
			i++
		case (a == "-t" || a == "--top-level-directory") && i+1 < len(args):
			top = args[i+1]
			i++
		case (a == "-p" || a == "--pattern") && i+1 < len(args):
			i++
		case !strings.HasPrefix(a, "-"):
			pos = append(pos, a)
		}
	}
	if len(pos) > 0 {
		start = pos[0]
	}
	if len(pos) > 2 {
		top = pos[2]
	}
	if top == "" {
		top = start
	}
	return path.Clean(filepath.ToSlash(top))
}

func isIdentifier(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if r != '_' && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127) {
			return false
		}
	}
	return true
}

// effectEdges lists, as whole dependencies, the project modules with
// effects (see hasEffects) that importing file runs, through module-level
// imports to any depth: `from . import _register` in a package __init__
// fills a registry every user of the package sees, though nothing names it.
func (p *pyProject) effectEdges(file string) []pyEdge {
	if e, ok := p.effects[file]; ok {
		return e
	}
	var out []pyEdge
	seen := map[string]bool{file: true}
	stack := []string{file}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, r := range p.runsOnImport(cur) {
			if seen[r] {
				continue
			}
			seen[r] = true
			if p.hasEffects(r) {
				out = append(out, pyEdge{To: r, Deep: true})
			}
			stack = append(stack, r)
		}
	}
	p.effects[file] = out
	return out
}

// runsOnImport lists the project files file's module-level imports run:
// the package __init__ files on the way, the module, and the submodules a
// from-import names.
func (p *pyProject) runsOnImport(file string) []string {
	var out []string
	for _, imp := range p.parsed(file).Imports {
		if !imp.Top {
			continue
		}
		edges, t, ok := p.resolveImport(file, imp)
		if !ok {
			continue
		}
		for _, e := range edges {
			out = append(out, e.To)
		}
		if t.File != "" {
			out = append(out, t.File)
		}
		if !imp.From || t.Dir == "" {
			continue
		}
		for _, n := range imp.Names {
			if sub, st, ok := p.walkModule(t.Dir, []string{n.Name}); ok && n.Name != "*" {
				for _, e := range sub {
					out = append(out, e.To)
				}
				if st.File != "" {
					out = append(out, st.File)
				}
			}
		}
	}
	return out
}

// hasEffects reports whether running file changes another project
// module's state: a module-level call or mutation (pyFile.Effects) through
// a name that one of its imports binds from the project.
func (p *pyProject) hasEffects(file string) bool {
	if v, ok := p.effectful[file]; ok {
		return v
	}
	f := p.parsed(file)
	found := false
	for _, name := range f.Effects {
		for _, imp := range f.Imports {
			if !importBinds(imp, name) && !(imp.From && !f.Defined[name] && len(imp.Names) == 1 && imp.Names[0].Name == "*") {
				continue
			}
			if _, _, ok := p.resolveImport(file, imp); ok {
				found = true
				break
			}
		}
		if found {
			break
		}
	}
	p.effectful[file] = found
	return found
}

// importBinds reports whether imp binds name in the importing file.
func importBinds(imp pyImport, name string) bool {
	if !imp.From {
		return imp.Bind == name
	}
	for _, n := range imp.Names {
		if n.As == name && n.Name != "*" {
			return true
		}
	}
	return false
}
