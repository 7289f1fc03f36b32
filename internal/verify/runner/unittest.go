package runner

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

// unittest is `python -m unittest`: dotted modules as targets, results
// from its text.
type unittest struct{ base }

var _ Runner = unittest{}

func init() {
	register(unittest{base{
		name:     Unittest,
		targets:  Modules,
		flags:    Flags{Valued: []string{"-k", "-p", "-s", "-t"}, Filters: []string{"-k"}, Safe: []string{"-v", "-q", "-f", "-b", "-c", "--locals", "discover", "-s", "-t", "-p"}},
		collects: []string{"**/test*.py"},
		fallback: []fallbackRule{
			{regexp.MustCompile(`(ModuleNotFoundError|ImportError): [^\n]*\n(?s:.*)Ran \d+ tests?`), FallbackMissing},
			{regexp.MustCompile(`(?m)^(Ran 0 tests|NO TESTS RAN)`), FallbackNoTests},
		},
	}})
}

func (u unittest) Recognize(args []string) (Invocation, bool) {
	if !strings.HasPrefix(path.Base(at(args, 0)), "python") || at(args, 1) != "-m" || at(args, 2) != "unittest" {
		return Invocation{}, false
	}
	return u.read(args, 3), true
}

// NoTests: unittest exits 5 when it ran nothing (Python 3.12 and later).
func (unittest) NoTests(exit, tests int, _ string) bool {
	return tests == 0 && (exit == 0 || exit == 5)
}

// NarrowTests names each failing test by its dotted path after
// `-m unittest`, dropping discovery arguments.
func (unittest) NarrowTests(_ string, args []string, tests []Failure) ([]string, bool) {
	var out []string
	for i, a := range args {
		out = append(out, a)
		if a == "unittest" && i > 0 && args[i-1] == "-m" {
			break
		}
	}
	for _, f := range tests {
		name, ok := UnittestName(f.ID)
		if !ok {
			return nil, false
		}
		out = append(out, name)
	}
	return out, len(tests) > 0
}

// UnittestName is the name that loads a failing test again by itself, so
// that it fails under the same ID: the test's dotted path, or for a
// failing class or module fixture ("pkg.mod.K.setUpClass") its class or
// module. A module that did not import ("unittest.loader._FailedTest.…")
// fails under another ID when named, and has no such name; nor has a
// doctest, whose ID names the function it documents.
func UnittestName(id string) (string, bool) {
	if strings.ContainsAny(id, " /") || strings.HasPrefix(id, "unittest.loader.") {
		return "", false
	}
	owner, last, ok := cutLast(id, ".")
	switch {
	case !ok:
		return "", false
	case last == "setUpClass" || last == "tearDownClass" || last == "setUpModule" || last == "tearDownModule":
		return owner, true
	case !strings.HasPrefix(last, "test"):
		// Not a test method: a doctest a load_tests added
		// ("more_itertools.more.outer_product"), which naming would
		// load as the function itself.
		return "", false
	}
	return id, true
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

func (unittest) Collector(string, string) Collector { return &lineParser{parse: parseUnittest} }

var (
	unittestFail = regexp.MustCompile(`^(?:FAIL|ERROR): (\S+) \(([^)]+)\)`)
	unittestRan  = regexp.MustCompile(`^Ran (\d+) tests? in `)
)

func parseUnittest(line string, o *Outcome) {
	if m := unittestFail.FindStringSubmatch(line); m != nil {
		id := m[2]
		if !strings.HasSuffix(id, "."+m[1]) {
			id += "." + m[1]
		}
		o.Failures = appendUnique(o.Failures, Failure{ID: id, Name: pytestName(strings.TrimSuffix(id, "."+m[1]), m[1])})
	} else if m := unittestRan.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		o.Tests = max(o.Tests, 0) + n
	}
}
