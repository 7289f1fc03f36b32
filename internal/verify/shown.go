package verify

import (
	"fmt"
	"strings"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/safetext"
	"github.com/chanto-dev/chanto/internal/verify/protect"
)

// This file is what a failed gate shows beyond its verdict: the failing
// checks' output, trimmed the same way for the user (print mode, chanto
// verify, the TUI) as for the model, and the test-protection findings
// named on the evidence line.

// MaxFailureOutput bounds the check output shown per failing check.
const MaxFailureOutput = 12 << 10

// maxNamedViolations is how many violations the evidence line names.
const maxNamedViolations = 3

// TrimOutput keeps the useful part of long check output within
// MaxFailureOutput bytes: a quarter from the head (the first failures),
// the rest from the tail, where runners summarize. Sections that hold no
// failure (pytest's warnings summary) go first, so the tail is the
// failures and not the warnings. It never cuts inside a UTF-8 character.
func TrimOutput(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= MaxFailureOutput {
		return s
	}
	s = dropPytestWarnings(s)
	if len(s) <= MaxFailureOutput {
		return s
	}
	head := safetext.Head(s, MaxFailureOutput/4)
	tail := safetext.Tail(s, 3*MaxFailureOutput/4)
	return head + "\n… [output trimmed] …\n" + tail
}

// dropPytestWarnings replaces the body of pytest's "warnings summary"
// section, which runs from its ===== header to the next one, with one
// line saying how much was left out.
func dropPytestWarnings(s string) string {
	lines := strings.Split(s, "\n")
	start := -1
	for i, l := range lines {
		if pytestSection(l) == "warnings summary" {
			start = i
			break
		}
	}
	if start < 0 {
		return s
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if pytestSection(lines[i]) != "" {
			end = i
			break
		}
	}
	kept := append(lines[:start+1:start+1], fmt.Sprintf("… [%d lines of warnings left out] …", end-start-1))
	return strings.Join(append(kept, lines[end:]...), "\n")
}

// pytestSection is the title of a pytest section header line such as
// "=========== warnings summary ===========", or "".
func pytestSection(line string) string {
	t := strings.TrimSpace(line)
	if len(t) < 8 || !strings.HasPrefix(t, "===") || !strings.HasSuffix(t, "===") {
		return ""
	}
	return strings.TrimSpace(strings.Trim(t, "="))
}

// FailureDetails lists each check of a not-verified report that did not
// pass and has something to show: its command, folder, failing tests and
// trimmed output. Empty for any other verdict.
func (rep *Report) FailureDetails() []event.Failure {
	out := []event.Failure{}
	if rep.Verdict != NotVerified {
		return out
	}
	for _, c := range rep.Checks {
		if c.Passed {
			continue
		}
		output := TrimOutput(c.Output)
		if output == "" && len(c.Failures) == 0 {
			continue // nothing to show (refused, not installed): the evidence says it
		}
		f := event.Failure{Check: c.Command, Tests: []string{}, Output: output}
		if c.Dir != "." {
			f.Dir = c.Dir
		}
		for _, x := range c.Failures {
			f.Tests = append(f.Tests, x.Name)
		}
		out = append(out, f)
	}
	return out
}

// ViolationsEvidence is the evidence line of standing test-protection
// violations: each named by file, test and kind.
//
//	⚠ Not verified: p06/p06_test.go: TestV06: assertion changed (fix the code, not the tests).
func ViolationsEvidence(vs []protect.Violation) string {
	names := make([]string, 0, maxNamedViolations+1)
	for i, v := range vs {
		if i == maxNamedViolations {
			names = append(names, fmt.Sprintf("and %d more", len(vs)-i))
			break
		}
		names = append(names, v.Short())
	}
	return NotVerifiedMark + strings.Join(names, "; ") + " (fix the code, not the tests)."
}
