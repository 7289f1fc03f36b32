package runner

import (
	"path"
	"regexp"
	"strings"

	"github.com/chanto-dev/chanto/internal/verify/scope"
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

// Related builds `vitest related --run ... FILES`; the related
// subcommand must come first, so a script's run/watch word is replaced.
func (vitest) Related(dir string, args, files []string) ([]string, scope.Reason) {
	words := args
	if i := runnerAt(args, "vitest"); i < 0 {
		w, isScript, reason := npmScript(dir, args)
		if !isScript {
			return nil, scope.For(scope.NotDirect, "vitest")
		}
		if !reason.IsZero() {
			return nil, reason
		}
		if runnerAt(w, "vitest") < 0 {
			return nil, scope.For(scope.ScriptNotPlain, "vitest")
		}
		words = w
		if path.Base(words[0]) == "vitest" {
			words = append([]string{"npx"}, words...)
		}
	}
	i := runnerAt(words, "vitest")
	out := append([]string{}, words[:i+1]...)
	out = append(out, "related", "--run")
	for j, a := range words[i+1:] {
		if j == 0 && (a == "run" || a == "watch" || a == "dev") {
			continue
		}
		if a == "--run" || a == "--watch" {
			continue
		}
		if !strings.HasPrefix(a, "-") && j == 0 {
			return nil, scope.For(scope.OwnSubcommand, "vitest")
		}
		out = append(out, a)
	}
	return append(out, files...), scope.Reason{}
}
