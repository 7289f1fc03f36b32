package runner

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/chanto-dev/chanto/internal/shell"
)

// A test script of commands joined by && stops at the first that fails:
// the evidence says which stage that was and that the later ones never
// ran (dayjs runs jest nine times; an old failure in the eighth leaves
// the ninth, the whole suite, unrun). The stages are told apart in the
// output by what the package manager and the runners print: npm's
// "> pkg@1.0.0 test-tz" header before a script it runs, and the end of
// each jest ("Ran all test suites") or vitest ("Duration") run.

// Stage is where a failed && chain of a test script stopped.
type Stage struct {
	// Index is the 1-based stage that failed, of Of stages.
	Index int `json:"index"`
	Of    int `json:"of"`
	// Command is that stage as the script writes it.
	Command string `json:"command"`
	// Sure is false when the output cannot tell that stage from a later
	// one (a stage that prints no end of its own, before one that prints
	// no start): the failure came from Index or after it.
	Sure bool `json:"sure"`
}

// stageKind is what a stage prints that the tracker knows.
type stageKind struct {
	// header matches the package manager's line before a script it runs
	// (nil for a stage that runs no script).
	header *regexp.Regexp
	// runs counts the jest and vitest runs the stage makes, each of which
	// prints its end (0: unknown, the stage's end cannot be seen).
	runs int
}

var (
	// jestEnd is the last line of a jest run; jestFailed a summary line
	// that reports a failure (or a coverage threshold not met).
	jestEnd    = regexp.MustCompile(`^Ran all test suites`)
	jestFailed = regexp.MustCompile(`^Test Suites: .*\bfailed\b|coverage threshold for .* not met`)
	// vitestEnd and vitestFailed are vitest's.
	vitestEnd    = regexp.MustCompile(`^\s*Duration\s+\d`)
	vitestFailed = regexp.MustCompile(`^\s*Test Files\s+.*\bfailed\b`)
)

// ScriptStage reads the output of a failed run of args (`npm test`) in
// dir whose test script is commands joined by &&: the stage that failed.
// ok is false for any other script. truncated says the output lost its
// middle, so stages may have gone unseen.
func ScriptStage(dir string, args []string, output string, truncated bool) (Stage, bool) {
	scripts, script, ok := testScript(dir, args)
	if !ok {
		return Stage{}, false
	}
	stages, ok := shell.AndChain(script)
	if !ok {
		return Stage{}, false
	}
	kinds := make([]stageKind, len(stages))
	for i, st := range stages {
		kinds[i] = kindOf(st.Args, scripts, 0)
	}
	k, started, seen, failed := 0, false, 0, false
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimRight(line, "\r")
		if j := nextHeader(kinds, k, started, line); j >= 0 {
			k, started, seen, failed = j, true, 0, false
			continue
		}
		switch {
		case jestFailed.MatchString(line) || vitestFailed.MatchString(line):
			failed = true
		case jestEnd.MatchString(line) || vitestEnd.MatchString(line):
			seen++
			if kinds[k].runs > 0 && seen == kinds[k].runs && !failed && k+1 < len(stages) {
				k, started, seen, failed = k+1, false, 0, false
			}
		}
	}
	// Stage k failed for sure when its own output says so, or when the
	// next stage would have announced itself and did not.
	sure := failed || kinds[k].runs > 0 && seen < kinds[k].runs || k+1 == len(stages) || kinds[k+1].header != nil
	return Stage{Index: k + 1, Of: len(stages), Command: stages[k].Text, Sure: sure && !truncated}, true
}

// nextHeader returns the first stage from k on (after k when stage k has
// started) whose header line is line, or -1.
func nextHeader(kinds []stageKind, k int, started bool, line string) int {
	from := k
	if started {
		from = k + 1
	}
	for j := from; j < len(kinds); j++ {
		if kinds[j].header != nil && kinds[j].header.MatchString(line) {
			return j
		}
	}
	return -1
}

// kindOf reads one stage's words: a package script it runs (and the
// runner runs in it), or a jest or vitest run.
func kindOf(words []string, scripts map[string]string, depth int) stageKind {
	words = unwrap(words)
	if len(words) == 0 || depth > 4 {
		return stageKind{}
	}
	if name, _ := ScriptCalled(words); name != "" {
		body, ok := scripts[name]
		if !ok {
			return stageKind{}
		}
		kind := stageKind{header: regexp.MustCompile(`^> (?:\S+ )?` + regexp.QuoteMeta(name) + `(?:\s|$)`)}
		parsed, err := shell.Parse(body)
		if err != nil {
			return kind
		}
		for _, c := range parsed.Commands {
			kind.runs += kindOf(c.Args, scripts, depth+1).runs
		}
		return kind
	}
	if inv, ok := Recognize(words); ok && (inv.Runner == Jest || inv.Runner == Vitest) {
		return stageKind{runs: 1}
	}
	return stageKind{}
}

// unwrap drops the wrappers before a stage's command: cross-env and its
// assignments, npx.
func unwrap(words []string) []string {
	for len(words) > 0 {
		switch w := path.Base(words[0]); {
		case w == "cross-env" || w == "npx":
			words = words[1:]
		case strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-"):
			words = words[1:]
		default:
			return words
		}
	}
	return words
}

// testScript returns package.json's scripts and its test script, when
// args run that script through a package manager.
func testScript(dir string, args []string) (map[string]string, string, bool) {
	if name, _ := ScriptCalled(args); name != "test" && name != "t" {
		return nil, "", false
	}
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return nil, "", false
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(data, &pkg) != nil || pkg.Scripts["test"] == "" {
		return nil, "", false
	}
	return pkg.Scripts, pkg.Scripts["test"], true
}
