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
		if strings.ContainsAny(f.ID, " /") {
			return nil, false
		}
		out = append(out, f.ID)
	}
	return out, len(tests) > 0
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
