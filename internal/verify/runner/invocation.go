package runner

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Invocation is a recognised run of a runner: what it runs.
type Invocation struct {
	// Runner is the runner invoked.
	Runner Name
	// Args is the argv as recognised.
	Args []string
	// Skip is how many leading words name the command ("go test": 2,
	// "python3 -m pytest": 3).
	Skip int
	// Plain is set when no flag or word filters the tests; WhyNot says
	// why a run is not plain.
	Plain  bool
	WhyNot string
	// All is set when the run covers the runner's whole suite in its
	// folder; otherwise Targets lists the packages, paths, modules or
	// crates it names.
	All     bool
	Targets []string
}

// TargetKind says how a runner reads the positional words after its
// command.
type TargetKind int

const (
	// NoTargets: positional words name tests (a filter), as for jest.
	NoTargets TargetKind = iota
	// Paths: files and folders (pytest).
	Paths
	// Packages: Go package patterns; none means the current folder.
	Packages
	// Crates: cargo packages, named by -p.
	Crates
	// Modules: dotted Python modules (unittest).
	Modules
	// Whole: the words are part of the command itself (make test, a
	// configured check); a recognised run is always the whole suite.
	Whole
)

// Flags is a runner's flag table, as data. A flag outside Safe and
// Filters makes a run count as filtered, to be safe.
type Flags struct {
	// Valued flags take the next word as their value.
	Valued []string
	// Filters narrow the run; a run using one is not plain.
	Filters []string
	// Safe flags neither filter nor matter.
	Safe []string
}

// read reads the words after the command (args[skip:]) with the runner's
// flag table and target kind.
func read(name Name, kind TargetKind, flags Flags, args []string, skip int) Invocation {
	inv := Invocation{Runner: name, Args: args, Skip: skip}
	inv.All, inv.Targets, inv.WhyNot = readScope(kind, flags, args, skip)
	inv.Plain = inv.WhyNot == ""
	if !inv.Plain {
		inv.All, inv.Targets = false, nil
	}
	return inv
}

// scope reads the words after the command: whether the run is whole,
// which targets it names, and why it does not count if a filter is used.
func readScope(kind TargetKind, flags Flags, args []string, skip int) (all bool, targets []string, whyNot string) {
	if kind == Whole {
		return true, nil, ""
	}
	words := args[min(skip, len(args)):]
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
		if slices.Contains(flags.Filters, name) {
			return false, nil, "filtered with " + name
		}
		if !slices.Contains(flags.Safe, name) && !slices.Contains(flags.Safe, w) {
			return false, nil, "uses " + name + ", which chanto cannot tell is harmless"
		}
		if slices.Contains(flags.Valued, name) && !hasValue {
			i++
			if kind == Crates && (name == "-p" || name == "--package") && i < len(words) {
				targets = append(targets, words[i])
			}
		}
	}
	switch kind {
	case NoTargets:
		if len(positional) > 0 {
			return false, nil, "names tests: " + strings.Join(positional, " ")
		}
		return true, nil, ""
	case Crates:
		if len(positional) > 0 {
			return false, nil, "filters tests by name: " + strings.Join(positional, " ")
		}
		if slices.Contains(args, "--workspace") || slices.Contains(args, "--all") || len(targets) == 0 {
			return true, nil, ""
		}
		return false, targets, ""
	case Modules:
		positional = slices.DeleteFunc(positional, func(p string) bool { return p == "discover" })
		if len(positional) == 0 {
			return true, nil, ""
		}
		return false, positional, ""
	case Paths:
		for _, p := range positional {
			if strings.Contains(p, "::") {
				return false, nil, "names a single test: " + p
			}
		}
		if len(positional) == 0 {
			return true, nil, ""
		}
		for i, p := range positional {
			positional[i] = CleanRel(p)
		}
		if slices.Contains(positional, ".") {
			return true, nil, ""
		}
		return false, positional, ""
	case Packages:
		if len(positional) == 0 {
			// "go test" with no package tests the current directory only.
			return false, []string{"."}, ""
		}
		for i, p := range positional {
			positional[i] = CleanRel(p)
		}
		if slices.Contains(positional, "./...") {
			return true, nil, ""
		}
		return false, positional, ""
	}
	return true, nil, ""
}

// CleanRel normalizes a relative path or package pattern: "./a/b/" → "a/b",
// "./..." and "..." → "./...", "a/..." stays.
func CleanRel(p string) string {
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

// coversTarget is TargetCovers by target kind.
func coversTarget(kind TargetKind, have, want string) bool {
	want = CleanRel(want)
	switch kind {
	case Packages:
		if base, ok := strings.CutSuffix(have, "/..."); ok {
			return want == base || strings.HasPrefix(want, base+"/")
		}
		return have == want
	case Modules:
		return have == want || strings.HasPrefix(want, have+".")
	case Crates:
		return have == want
	}
	// Paths: a folder covers the files below it, a file its tests
	// (pytest node ids, tests/t.py::test_a).
	return have == want || strings.HasPrefix(want, have+"/") || strings.HasPrefix(want, have+"::")
}

// Want is a run the gate would make of a check: its runner, and the
// whole suite or the selected targets. A configured check has its words
// in Args (Custom, or the known runner they call).
type Want struct {
	Runner  Name
	Full    bool
	Targets []string
	Args    []string
}

// Covers reports whether a recognised run have (in the same folder)
// covers the run want: a plain run of a runner that stands for want's,
// of the whole suite or of at least want's targets. A configured check
// is covered only by a run of itself: the same words, or, when a known
// runner reads its words, a run that covers that runner's run.
func Covers(have Invocation, want Want) bool {
	if want.Runner == Custom || want.Args != nil {
		if !have.Plain {
			return false
		}
		if slices.Equal(have.Args, want.Args) {
			return true
		}
		known, ok := Recognize(want.Args)
		return ok && known.Plain && Covers(have, Want{Runner: known.Runner, Full: known.All, Targets: known.Targets})
	}
	if !have.Plain || !For(have.Runner).StandsFor(want.Runner) {
		return false
	}
	if have.All {
		return true
	}
	if want.Full {
		return false
	}
	r := For(want.Runner)
	for _, t := range want.Targets {
		if !slices.ContainsFunc(have.Targets, func(h string) bool { return r.TargetCovers(h, t) }) {
			return false
		}
	}
	return len(want.Targets) > 0
}

// CoversRun reports whether a plain run have covers everything an
// earlier run e ran.
func CoversRun(have, e Invocation) bool {
	var words []string
	if e.Runner == Custom {
		words = e.Args
	}
	if e.All {
		return Covers(have, Want{Runner: e.Runner, Full: true, Args: words})
	}
	return Covers(have, Want{Runner: e.Runner, Targets: e.Targets, Args: words})
}

// SameCheck reports whether a run, plain or not, ran the check want
// stands for: a run of its runner, or for a configured check its own
// words (or the known runner they call). A run of the check that timed
// out is not started again.
func SameCheck(have Invocation, want Want) bool {
	if want.Runner != Custom && want.Args == nil {
		return For(have.Runner).StandsFor(want.Runner)
	}
	if slices.Equal(have.Args, want.Args) {
		return true
	}
	known, ok := Recognize(want.Args)
	return ok && For(have.Runner).StandsFor(known.Runner)
}
