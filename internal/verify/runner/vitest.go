package runner

import (
	"path"
	"regexp"
)

// vitest is `vitest` and `npx vitest` (and the npm test script that is
// one): results from its JSON reporter.
type vitest struct{ base }

var _ Runner = vitest{}

func init() {
	register(vitest{base{
		name:    Vitest,
		targets: NoTargets,
		flags: Flags{
			Safe:    []string{"--run", "run", "--silent", "--reporter", "--coverage", "--no-color", "--passWithNoTests=false"},
			Valued:  []string{"--reporter"},
			Filters: []string{"-t", "--testNamePattern", "--changed", "related", "--passWithNoTests", "--shard", "--project", "--bail", "--dir", "--exclude"},
		},
		env:      jsEnv,
		collects: []string{"**/*.{test,spec}.?(c|m)[jt]s?(x)"},
		fallback: []fallbackRule{{regexp.MustCompile(`No test files found`), FallbackNoTests}},
	}})
}

func (v vitest) Recognize(args []string) (Invocation, bool) {
	prog := path.Base(at(args, 0))
	skip := 0
	switch {
	case prog == "vitest":
		skip = 1
	case prog == "npx" && at(args, 1) == "vitest":
		skip = 2
	default:
		return Invocation{}, false
	}
	if at(args, skip) == "run" {
		skip++
	}
	return v.read(args, skip), true
}

func (vitest) NoTests(exit, tests int, output string) bool {
	return jest{}.NoTests(exit, tests, output)
}

func (vitest) Collector(reportDir, dir string) Collector { return newJestJSON(reportDir, dir, true) }

func (vitest) NarrowTests(dir string, args []string, tests []Failure) ([]string, bool) {
	return jsNamePattern(dir, args, tests, "vitest")
}
