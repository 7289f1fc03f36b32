package runner

import (
	"path"
	"regexp"
	"slices"
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

// NarrowTests runs the failing tests by full name with -t, and only their
// files when every failure names one that is there (file arguments filter
// vitest's run by path): a related selection becomes `vitest run FLAGS
// FILES -t …`.
func (v vitest) NarrowTests(dir string, args []string, tests []Failure) ([]string, bool) {
	pattern, ok := jsNamePattern(dir, args, tests, "vitest")
	if !ok {
		return nil, false
	}
	files, ok := failingFiles(dir, tests)
	if !ok {
		return withExtraArgs(args, "-t", pattern), true
	}
	if i := runnerAt(args, "vitest"); i >= 0 && at(args, i+1) == "related" {
		out := append(append([]string{}, args[:i+1]...), "run")
		rest := args[i+2:]
		for j := 0; j < len(rest) && strings.HasPrefix(rest[j], "-"); j++ {
			if rest[j] == "--run" {
				continue
			}
			out = append(out, rest[j])
			if slices.Contains(v.flags.Valued, rest[j]) && j+1 < len(rest) {
				j++
				out = append(out, rest[j])
			}
		}
		return append(append(out, files...), "-t", pattern), true
	}
	return withExtraArgs(args, append(files, "-t", pattern)...), true
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
