package gate

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// ownRun is a test or check command the model ran itself through bash.
type ownRun struct {
	// Command is the command line as the model wrote it.
	Command string
	// Dir is the working directory it ran in.
	Dir string
	// Runner is the kind of check (go, go-vet, pytest, unittest, cargo,
	// npm, jest, vitest, make, custom).
	Runner detect.Runner
	// Plain is set for one simple command with literal words and no
	// filter; only plain runs can stand in for the gate. WhyNot says why a
	// run is not plain.
	Plain  bool
	WhyNot string
	// All is set when the run covers its runner's whole suite in Dir;
	// otherwise Targets lists the packages, paths, modules or crates.
	All     bool
	Targets []string

	Passed   bool
	TimedOut bool
	Output   string
	// Version is the tree version right after the run.
	Version int
}

// parseOwnRun recognizes a check run in a bash command line. ok is false
// when the command runs no check at all. checks are configured check
// commands, recognized by their exact words.
func parseOwnRun(cmdline, dir string, checks []string) (run ownRun, ok bool) {
	run = ownRun{Command: cmdline, Dir: dir}
	f, err := syntax.NewParser().Parse(strings.NewReader(cmdline), "")
	if err != nil {
		return run, false
	}
	var calls []*syntax.CallExpr
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, is := n.(*syntax.CallExpr); is && len(c.Args) > 0 {
			calls = append(calls, c)
		}
		return true
	})
	var found *syntax.CallExpr
	for _, c := range calls {
		if r, _ := classify(literalArgs(c), checks); r != "" {
			found = c
			break
		}
	}
	if found == nil {
		return run, false
	}
	args := literalArgs(found)
	run.Runner, run.All, run.Targets, run.WhyNot = "", false, nil, ""
	r, spec := classify(args, checks)
	run.Runner = r
	run.WhyNot = plainness(f, found, args)
	if run.WhyNot == "" {
		run.All, run.Targets, run.WhyNot = spec.scope(args)
	}
	run.Plain = run.WhyNot == ""
	return run, true
}

// plainness returns why a command line is not one plain simple command,
// or "" when it is.
func plainness(f *syntax.File, call *syntax.CallExpr, args []string) string {
	if len(f.Stmts) != 1 {
		return "more than one command"
	}
	st := f.Stmts[0]
	if st.Cmd != syntax.Command(call) {
		return "not a simple command (piped, chained or in a subshell)"
	}
	if st.Negated || st.Background || st.Coprocess {
		return "negated or in the background"
	}
	if len(call.Assigns) > 0 {
		return "has an environment prefix"
	}
	for _, r := range st.Redirs {
		// 2>&1 and output to a file keep the exit status; input does not matter.
		if r.Op == syntax.RdrIn || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc {
			return "reads redirected input"
		}
	}
	if len(args) != len(call.Args) {
		return "has expansions or substitutions"
	}
	return ""
}

// literalArgs returns the words of c that are plain literals (quotes
// removed); a word with any expansion is left out, which makes the
// lengths differ and the run not plain.
func literalArgs(c *syntax.CallExpr) []string {
	var out []string
	for _, w := range c.Args {
		if s, ok := shell.Literal(w); ok {
			out = append(out, s)
		}
	}
	return out
}

// runnerSpec knows one runner's flags: which take a value, which filter
// the tests (and so make a run narrower than it looks), which are harmless.
type runnerSpec struct {
	// skip is the number of leading words that name the command
	// (e.g. 2 for "go test", 3 for "python3 -m pytest").
	skip int
	// valued flags take the next word as their value.
	valued []string
	// filters narrow the run; a run using one never counts.
	filters []string
	// safe flags neither filter nor matter; any flag outside safe,
	// valued-safe and filters makes the run count as filtered, to be safe.
	safe []string
	// targets tells how positional words are read: "paths", "packages",
	// "crates" (via -p), "modules", "none" (positional words are filters).
	targets string
}

var specs = map[detect.Runner]runnerSpec{
	detect.Go: {skip: 2, targets: "packages",
		valued:  []string{"-run", "-skip", "-count", "-timeout", "-p", "-parallel", "-cpu", "-tags", "-coverprofile", "-covermode", "-coverpkg", "-bench", "-benchtime", "-shuffle", "-o", "-exec", "-ldflags", "-gcflags", "-mod", "-vet", "-list", "-fuzz", "-fuzztime", "-outputdir", "-trimpath"},
		filters: []string{"-run", "-skip", "-list", "-short", "-fuzz", "-exec", "-vet"},
		safe:    []string{"-v", "-count", "-timeout", "-p", "-parallel", "-cpu", "-race", "-cover", "-coverprofile", "-covermode", "-coverpkg", "-json", "-failfast", "-shuffle", "-tags", "-bench", "-benchtime", "-benchmem", "-mod", "-trimpath", "-x", "-a", "-o", "-ldflags", "-gcflags", "-outputdir", "-buildvcs"}},
	detect.GoVet: {skip: 2, targets: "packages",
		valued: []string{"-tags", "-mod"}, safe: []string{"-tags", "-mod", "-json", "-v"}},
	detect.Pytest: {targets: "paths",
		valued:  []string{"-k", "-m", "-p", "--deselect", "--ignore", "--ignore-glob", "--maxfail", "--tb", "-W", "-r", "--rootdir", "-c", "--junitxml", "-n", "--durations", "-o", "--basetemp", "--color", "--import-mode", "--timeout"},
		filters: []string{"-k", "-m", "--deselect", "--ignore", "--ignore-glob", "--co", "--collect-only", "--lf", "--last-failed", "--sw", "--stepwise", "--setup-only", "--setup-plan", "--fixtures", "--markers", "-h", "--help", "--version"},
		safe:    []string{"-q", "-qq", "-v", "-vv", "-s", "-x", "--exitfirst", "-l", "--ff", "--failed-first", "-p", "--maxfail", "--tb", "-W", "-r", "-ra", "-rA", "--rootdir", "-c", "--junitxml", "-n", "--durations", "-o", "--basetemp", "--color", "--no-header", "--strict-markers", "--import-mode", "--timeout", "--capture=no", "--disable-warnings", "--showlocals"}},
	detect.Unittest: {targets: "modules",
		valued: []string{"-k", "-p", "-s", "-t"}, filters: []string{"-k"},
		safe: []string{"-v", "-q", "-f", "-b", "-c", "--locals", "discover", "-s", "-t", "-p"}},
	detect.Cargo: {skip: 2, targets: "crates",
		valued:  []string{"-p", "--package", "--test", "--bench", "--example", "--bin", "--features", "-F", "--target", "--target-dir", "-j", "--jobs", "--manifest-path", "--profile", "--color", "--exclude"},
		filters: []string{"--test", "--bench", "--example", "--bin", "--lib", "--doc", "--tests", "--bins", "--examples", "--benches", "--exclude", "--no-run"},
		safe:    []string{"-p", "--package", "--workspace", "--all", "-q", "--quiet", "-v", "--verbose", "--release", "--features", "-F", "--all-features", "--no-default-features", "--target", "--target-dir", "-j", "--jobs", "--manifest-path", "--profile", "--color", "--locked", "--offline", "--frozen", "--all-targets", "--no-fail-fast"}},
	detect.NPM:    {targets: "none"},
	detect.Jest:   {targets: "none", safe: []string{"--ci", "--silent", "--verbose", "--runInBand", "-i", "--coverage", "--colors", "--no-cache", "--json", "--detectOpenHandles", "--forceExit"}, filters: []string{"-t", "--testNamePattern", "-o", "--onlyChanged", "--changedSince", "--findRelatedTests", "--listTests", "--testPathPattern", "--testPathIgnorePatterns", "--lastCommit", "--onlyFailures", "-f", "--passWithNoTests", "--bail", "--shard", "--selectProjects"}},
	detect.Vitest: {targets: "none", safe: []string{"--run", "run", "--silent", "--reporter", "--coverage", "--no-color", "--passWithNoTests=false"}, valued: []string{"--reporter"}, filters: []string{"-t", "--testNamePattern", "--changed", "related", "--passWithNoTests", "--shard", "--project", "--bail", "--dir", "--exclude"}},
	detect.Make:   {targets: "none"},
	detect.Custom: {targets: "none"},
}

// classify says which runner args invoke, or "" for none.
func classify(args, checks []string) (detect.Runner, runnerSpec) {
	if len(args) == 0 {
		return "", runnerSpec{}
	}
	joined := strings.Join(args, " ")
	for _, c := range checks {
		if strings.Join(strings.Fields(c), " ") == joined {
			s := specs[detect.Custom]
			s.skip = len(args)
			return detect.Custom, s
		}
	}
	prog := path.Base(args[0])
	at := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch {
	case prog == "go" && at(1) == "test":
		return detect.Go, specs[detect.Go]
	case prog == "go" && at(1) == "vet":
		return detect.GoVet, specs[detect.GoVet]
	case (strings.HasPrefix(prog, "python") && at(1) == "-m" && at(2) == "pytest"):
		s := specs[detect.Pytest]
		s.skip = 3
		return detect.Pytest, s
	case prog == "pytest" || prog == "py.test":
		s := specs[detect.Pytest]
		s.skip = 1
		return detect.Pytest, s
	case strings.HasPrefix(prog, "python") && at(1) == "-m" && at(2) == "unittest":
		s := specs[detect.Unittest]
		s.skip = 3
		return detect.Unittest, s
	case prog == "cargo" && at(1) == "test":
		return detect.Cargo, specs[detect.Cargo]
	case prog == "npm" && (at(1) == "test" || at(1) == "t"):
		s := specs[detect.NPM]
		s.skip = 2
		return detect.NPM, s
	case prog == "npm" && at(1) == "run" && at(2) == "test":
		s := specs[detect.NPM]
		s.skip = 3
		return detect.NPM, s
	case prog == "npx" && at(1) == "jest", prog == "jest":
		s := specs[detect.Jest]
		s.skip = 1 + boolInt(prog == "npx")
		return detect.Jest, s
	case prog == "npx" && at(1) == "vitest", prog == "vitest":
		s := specs[detect.Vitest]
		s.skip = 1 + boolInt(prog == "npx")
		if at(s.skip) == "run" {
			s.skip++
		}
		return detect.Vitest, s
	case prog == "make" && slices.Contains(args[1:], "test"):
		s := specs[detect.Make]
		s.skip = len(args)
		return detect.Make, s
	}
	return "", runnerSpec{}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// scope reads the words after the command: whether the run is whole,
// which targets it names, and why it does not count if a filter is used.
func (s runnerSpec) scope(args []string) (all bool, targets []string, whyNot string) {
	words := args[min(s.skip, len(args)):]
	var positional []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			if rest := words[i+1:]; len(rest) > 0 {
				return false, nil, "passes arguments to the test binary: " + strings.Join(rest, " ")
			}
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			positional = append(positional, w)
			continue
		}
		name, _, hasValue := strings.Cut(w, "=")
		if slices.Contains(s.filters, name) {
			return false, nil, "filtered with " + name
		}
		if !slices.Contains(s.safe, name) && !slices.Contains(s.safe, w) {
			return false, nil, "uses " + name + ", which chanto cannot tell is harmless"
		}
		if slices.Contains(s.valued, name) && !hasValue {
			i++
			if s.targets == "crates" && (name == "-p" || name == "--package") && i < len(words) {
				targets = append(targets, words[i])
			}
		}
	}
	switch s.targets {
	case "none":
		if len(positional) > 0 {
			return false, nil, "names tests: " + strings.Join(positional, " ")
		}
		return true, nil, ""
	case "crates":
		if len(positional) > 0 {
			return false, nil, "filters tests by name: " + strings.Join(positional, " ")
		}
		if slices.Contains(args, "--workspace") || slices.Contains(args, "--all") || len(targets) == 0 {
			return true, nil, ""
		}
		return false, targets, ""
	case "modules":
		positional = slices.DeleteFunc(positional, func(p string) bool { return p == "discover" })
		if len(positional) == 0 {
			return true, nil, ""
		}
		return false, positional, ""
	case "paths":
		for _, p := range positional {
			if strings.Contains(p, "::") {
				return false, nil, "names a single test: " + p
			}
		}
		if len(positional) == 0 {
			return true, nil, ""
		}
		for i, p := range positional {
			positional[i] = cleanRel(p)
		}
		if slices.Contains(positional, ".") {
			return true, nil, ""
		}
		return false, positional, ""
	case "packages":
		if len(positional) == 0 {
			// "go test" with no package tests the current directory only.
			return false, []string{"."}, ""
		}
		for i, p := range positional {
			positional[i] = cleanRel(p)
		}
		if slices.Contains(positional, "./...") || slices.Contains(positional, "...") {
			return true, nil, ""
		}
		return false, positional, ""
	}
	return true, nil, ""
}

// cleanRel normalizes a relative path or package pattern: "./a/b/" → "a/b",
// "./..." stays "./...", "a/..." stays.
func cleanRel(p string) string {
	if p == "./..." || p == "..." {
		return "./..."
	}
	suffix := ""
	if rest, ok := strings.CutSuffix(p, "/..."); ok {
		p, suffix = rest, "/..."
	}
	c := path.Clean(filepath.ToSlash(p))
	return c + suffix
}

// covers reports whether a plain run r covers a check the gate would run:
// the same runner in the same folder, and at least the selected targets.
// full means the gate would run the whole suite.
func (r ownRun) covers(dir string, runner detect.Runner, full bool, targets []string) bool {
	if !r.Plain || !sameRunner(r.Runner, runner) || filepath.Clean(r.Dir) != filepath.Clean(dir) {
		return false
	}
	if r.All {
		return true
	}
	if full {
		return false
	}
	for _, t := range targets {
		if !slices.ContainsFunc(r.Targets, func(have string) bool { return targetCovers(runner, have, t) }) {
			return false
		}
	}
	return len(targets) > 0
}

// sameRunner lets "npm test" stand for the runner it launches.
func sameRunner(model, gate detect.Runner) bool {
	if model == gate {
		return true
	}
	switch gate {
	case detect.NPM, detect.Jest, detect.Vitest, detect.NodeTest, detect.Mocha:
		return model == detect.NPM
	}
	return false
}

// targetCovers reports whether the model's target have includes the gate's
// target want.
func targetCovers(runner detect.Runner, have, want string) bool {
	want = cleanRel(want)
	switch runner {
	case detect.Go, detect.GoVet:
		if base, ok := strings.CutSuffix(have, "/..."); ok {
			return want == base || strings.HasPrefix(want, base+"/")
		}
		return have == want
	case detect.Unittest:
		return have == want || strings.HasPrefix(want, have+".")
	case detect.Cargo:
		return have == want
	}
	// Paths: a folder covers the files below it.
	return have == want || strings.HasPrefix(want, have+"/")
}
