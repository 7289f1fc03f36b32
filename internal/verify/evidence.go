package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

// maxNamed is how many failing tests the evidence names before "and N more".
const maxNamed = 5

// noTestsHint ends every "collected no tests" evidence.
const noTestsHint = "set checks = [...] under [guardrails] to tell chanto what to run"

// finish sets the verdict and the evidence and emits verify.result.
func (e *engine) finish(rep *Report) *Report {
	rep.Verdict, rep.Evidence = verdict(rep, e)
	e.emit(event.Event{Type: event.VerifyResult, Verify: rep.Result()})
	return rep
}

// Result is the verdict as the verify.result event carries it.
func (rep *Report) Result() *event.VerifyEnd {
	return &event.VerifyEnd{Verdict: string(rep.Verdict), Evidence: rep.Evidence,
		NewFailures: nonNil(ids(rep.NewFailures)), AlreadyFailing: nonNil(ids(rep.AlreadyFailing))}
}

// verdict decides the outcome and writes its one-line evidence.
func verdict(rep *Report, e *engine) (Verdict, string) {
	const nv = "⚠ Not verified: "
	switch n := len(rep.Violations); {
	case n == 1:
		return NotVerified, nv + "1 test-protection violation (fix the code, not the tests)."
	case n > 1:
		return NotVerified, nv + strconv.Itoa(n) + " test-protection violations (fix the code, not the tests)."
	case rep.Problem != "":
		return NotVerified, nv + rep.Problem
	case len(rep.Checks) == 0:
		return NothingToVerify, "Nothing to verify: no checks found (no go.mod, Cargo.toml, package.json test script, Python project or Makefile test target); " + noTestsHint + "."
	}
	last := rep.Checks[len(rep.Checks)-1]
	cmd := e.shownDir(last.check.Dir) + shortCommand(last.Command, last.Targets)
	switch {
	case last.NotFound != "" && isNodeCheck(last) && !dirExists(filepath.Join(last.check.Dir, "node_modules")):
		return NotVerified, fmt.Sprintf("%s%s is not installed (%s; node_modules is missing: run npm install).", nv, last.NotFound, cmd)
	case last.NotFound != "":
		return NotVerified, fmt.Sprintf("%s%s is not installed (%s).", nv, last.NotFound, cmd)
	case last.TimedOut && last.FromModelRun:
		return NotVerified, fmt.Sprintf("%s%s timed out in your own run, with nothing changed since; not started again.", nv, cmd)
	case last.TimedOut:
		return NotVerified, fmt.Sprintf("%s%s timed out after %s.", nv, cmd, formatLimit(e.opts.Timeout))
	case last.CouldNotRun != "":
		return NotVerified, fmt.Sprintf("%s%s could not run: %s.", nv, cmd, strings.TrimSuffix(last.CouldNotRun, "."))
	case last.Refused:
		return NotVerified, fmt.Sprintf("%s%s was refused.", nv, cmd)
	case last.NoTests && last.check.Runner == "go-vet":
		return NotVerified, fmt.Sprintf("%s%s found no Go packages; %s.", nv, cmd, noTestsHint)
	case last.NoTests:
		return NotVerified, fmt.Sprintf("%s%s collected no tests; %s.", nv, cmd, noTestsHint)
	case !last.Passed:
		return NotVerified, nv + cmd + " failed" + failureSummary(rep, last) + baselineNote(last) + "."
	}
	return Verified, "Verified: " + passedList(rep, e) + " passed" + scopeSuffix(rep, e)
}

// maxShownCommand is the longest command the one-line evidence and the
// progress line show whole; --json always has the whole command.
const maxShownCommand = 240

// shortCommand shortens a related command that names many targets to its
// first targets and a count: "pytest a.py b.py … (+283 more; --json has the
// whole command)". Short commands are shown as they are.
func shortCommand(cmd string, targets []string) string {
	if len(cmd) <= maxShownCommand {
		return cmd
	}
	shown := 0
	cut := -1
	for _, t := range targets {
		q := " " + shell.Join([]string{t})
		i := strings.Index(cmd[max(cut, 0):], q)
		if i < 0 {
			break
		}
		end := max(cut, 0) + i + len(q)
		if end > maxShownCommand && shown > 0 {
			break
		}
		cut, shown = end, shown+1
	}
	if shown == 0 || shown == len(targets) {
		// Not a list of targets: cut at a word.
		i := strings.LastIndexByte(cmd[:maxShownCommand], ' ')
		if i <= 0 {
			i = maxShownCommand
		}
		return cmd[:i] + " … (--json has the whole command)"
	}
	return fmt.Sprintf("%s … (+%d more; --json has the whole command)", cmd[:cut], len(targets)-shown)
}

// failureSummary is ": TestA, TestB" with the already-failing ones marked,
// or " (exit 2)" for a check that names no tests.
func failureSummary(rep *Report, last CheckRun) string {
	const before = "already failing before this change"
	if len(last.Failures) == 0 {
		if len(rep.AlreadyFailing) > 0 {
			return fmt.Sprintf(" (exit %d; %s)", last.ExitCode, before)
		}
		return fmt.Sprintf(" (exit %d)", last.ExitCode)
	}
	newNames, oldNames := names(rep.NewFailures), names(rep.AlreadyFailing)
	switch {
	case len(oldNames) == 0:
		return ": " + nameList(newNames)
	case len(newNames) == 0:
		return ": " + nameList(oldNames) + " (" + before + ")"
	}
	return ": " + nameList(newNames) + "; " + nameList(oldNames) + " " + before
}

// baselineNote says that the failures could not be compared with the
// state before the change, and why: an empty "already failing" from a
// baseline that did not run is no finding.
func baselineNote(last CheckRun) string {
	b := last.Baseline
	if b == nil || b.Ran || b.Note == "" || b.Note == noBaseNote {
		return ""
	}
	return " (not compared with before the change: " + strings.TrimSuffix(b.Note, ".") + ")"
}

// names are the failures as the evidence line shows them: on one line
// (a test.each title may hold "\n" or "\t"), each name once (two files
// may hold a test of the same name; --json keeps both IDs).
func names(fs []Failure) []string {
	out := make([]string, 0, len(fs))
	seen := map[string]bool{}
	for _, f := range fs {
		n := strings.Join(strings.Fields(f.Name), " ")
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func nameList(ns []string) string {
	if len(ns) <= maxNamed {
		return strings.Join(ns, ", ")
	}
	return strings.Join(ns[:maxNamed], ", ") + fmt.Sprintf(" and %d more", len(ns)-maxNamed)
}

// passedList is "go vet ./... (1s), go test ./pkg (2s)".
func passedList(rep *Report, e *engine) string {
	parts := make([]string, 0, len(rep.Checks))
	for _, c := range rep.Checks {
		if c.FromModelRun {
			parts = append(parts, e.shownDir(c.check.Dir)+shortCommand(c.Command, c.Targets)+" (your own run, not repeated)")
			continue
		}
		if c.NoTests {
			parts = append(parts, e.shownDir(c.check.Dir)+shortCommand(c.Command, c.Targets)+" (no tests of its own)")
			continue
		}
		parts = append(parts, e.shownDir(c.check.Dir)+shortCommand(c.Command, c.Targets)+" ("+formatDuration(c.Duration)+")")
	}
	return strings.Join(parts, ", ")
}

// scopeSuffix says how much of the suite ran and why.
func scopeSuffix(rep *Report, e *engine) string {
	related := false
	var reasons, widened []string
	seen := map[string]bool{}
	for _, c := range rep.Checks {
		if c.Scope == "related" {
			related = true
			// What a narrowed run took in beyond the import graph
			// ("./e2e: its tests run the project's programs").
			if w, ok := strings.CutPrefix(c.Reason, selecttest.RelatedReason+" (including "); ok {
				if w = strings.TrimSuffix(w, ")"); !seen[w] {
					seen[w] = true
					widened = append(widened, w)
				}
			}
			continue
		}
		if !c.check.Narrowable {
			continue
		}
		if !seen[c.Reason] && c.Reason != "" {
			seen[c.Reason] = true
			reasons = append(reasons, c.Reason)
		}
	}
	relatedText := selecttest.RelatedReason
	if len(widened) > 0 {
		relatedText += " (including " + strings.Join(widened, "; ") + ")"
	}
	switch {
	case related && len(reasons) == 0:
		return ", " + relatedText + "; full suite not run."
	case related:
		return ", " + relatedText + " (full suite for the rest: " + strings.Join(reasons, "; ") + ")."
	case len(reasons) > 0:
		return " (full suite: " + strings.Join(reasons, "; ") + ")."
	}
	// Only runners without a related mode ran (node --test, mocha, make):
	// say why they ran, as narrowable ones do.
	if len(rep.Changed) == 0 && !rep.ChangeUnknown && rep.Checks[0].check.Runner != detect.Custom {
		return " (full suite: no files changed)."
	}
	for _, c := range rep.Checks {
		if r := c.check.Runner; r != detect.GoVet && r != detect.Custom && c.Reason != "" && !seen[c.Reason] {
			seen[c.Reason] = true
			reasons = append(reasons, c.Reason)
		}
	}
	if len(reasons) > 0 {
		return " (full suite: " + strings.Join(reasons, "; ") + ")."
	}
	if rep.Checks[0].check.Runner == "custom" {
		return " (configured checks)."
	}
	return "."
}

// formatDuration is "0.4s", "3s", "2m05s".
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < 2*time.Minute:
		return strconv.Itoa(int(d.Round(time.Second).Seconds())) + "s"
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// isNodeCheck reports a check run through npm.
func isNodeCheck(c CheckRun) bool {
	return len(c.check.Args) > 0 && c.check.Args[0] == "npm"
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// formatLimit shows a time limit as it is usually set: "600s", "1.5s".
func formatLimit(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
