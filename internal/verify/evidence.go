package verify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/safetext"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// maxNamed is how many failing tests the evidence names before "and N more".
const maxNamed = 5

// maxNameLen is how many characters of one failure the evidence shows: a
// vet finding is a whole message, and five of them filled the screen;
// --json and the failure output keep it whole.
const maxNameLen = 160

// NotVerifiedMark starts every evidence line that is not a pass; it is
// written here only.
const NotVerifiedMark = "⚠ Not verified: "

// NotVerifiedEvidence is the evidence line for a turn that ends unverified
// because of why (a sentence without the final period).
func NotVerifiedEvidence(why string) string {
	// A reason may end in a sentence's period, but a command such as
	// "go test ./..." ends in dots that are its own: those keep theirs.
	if strings.HasSuffix(why, ".") && !strings.HasSuffix(why, "...") {
		return NotVerifiedMark + why
	}
	return NotVerifiedMark + why + "."
}

// noTestsHint ends every "collected no tests" evidence.
const noTestsHint = "set checks = [...] under [guardrails] to tell chanto what to run"

// finish sets the verdict and the evidence and emits verify.result.
func (e *engine) finish(rep *Report) *Report {
	rep.Verdict, rep.Evidence = Evidence(rep)
	e.emit(event.Event{Type: event.VerifyResult, Verify: rep.Result()})
	return rep
}

// Result is the verdict as the verify.result event carries it.
func (rep *Report) Result() *event.VerifyEnd {
	return &event.VerifyEnd{Verdict: rep.Verdict, Evidence: rep.Evidence,
		NewFailures: nonNil(ids(rep.NewFailures)), AlreadyFailing: nonNil(ids(rep.AlreadyFailing)), Failures: rep.FailureDetails()}
}

// Evidence decides the verdict of a report and writes its one-line
// evidence. It is a pure function of the report: everything it says was
// recorded when the checks ran.
func Evidence(rep *Report) (Verdict, string) {
	v, line := verdict(rep, &engine{cs: ChangeSet{Root: rep.Root}, opts: Options{Timeout: rep.timeout}})
	if len(rep.Violations) == 0 && rep.Problem == "" {
		line += checkNotes(rep)
	}
	return v, line
}

// checkNotes are the notes of the checks that ran, each once, as a
// sentence of their own: " Note: the virtualenv venv/ has no pytest, so
// /usr/bin/python3 ran the tests."
func checkNotes(rep *Report) string {
	var notes []string
	for _, c := range rep.Checks {
		if c.Note != "" && !slices.Contains(notes, c.Note) {
			notes = append(notes, c.Note)
		}
	}
	if w := rep.WrittenByChecks; len(w) > 0 {
		shown := strings.Join(w[:min(len(w), 3)], ", ")
		if len(w) > 3 {
			shown += fmt.Sprintf(" … (+%d more; --json has them all)", len(w)-3)
		}
		notes = append(notes, "the checks wrote files your change did not touch: "+shown+
			" (left as they are; git diff shows what they did)")
	}
	if len(notes) == 0 {
		return ""
	}
	return " Note: " + strings.Join(notes, "; ") + "."
}

// verdict decides the outcome and writes its one-line evidence.
func verdict(rep *Report, e *engine) (Verdict, string) {
	const nv = NotVerifiedMark
	switch {
	case len(rep.Violations) > 0:
		return NotVerified, ViolationsEvidence(rep.Violations)
	case rep.Problem != "":
		return NotVerified, nv + rep.Problem
	case len(rep.Checks) == 0:
		return NothingToVerify, "Nothing to verify: no checks found (no go.mod, Cargo.toml, package.json test script, Python project or Makefile test target); " + noTestsHint + "."
	}
	stopped := rep.Stopped()
	if stopped == nil && len(rep.AlreadyFailing) > 0 {
		return NotVerified, nv + onlyOldEvidence(rep, e) + untested(rep)
	}
	if stopped == nil {
		return Verified, "Verified: " + passedList(rep, e) + " passed" + scopeSuffix(rep, e) + untested(rep)
	}
	last := *stopped
	cmd := e.label(last)
	others := slices.DeleteFunc(slices.Clone(rep.Checks), func(c CheckRun) bool { return c.Command == last.Command && c.Dir == last.Dir })
	earlier := oldChecks(others, e)
	if earlier != "" {
		earlier = "; " + earlier
	}
	switch {
	case last.NotFound != "" && last.installHint != "":
		return NotVerified, fmt.Sprintf("%s%s is not installed (%s; %s)%s.", nv, last.NotFound, cmd, last.installHint, earlier)
	case last.NotFound != "":
		return NotVerified, fmt.Sprintf("%s%s is not installed (%s)%s.", nv, last.NotFound, cmd, earlier)
	case last.TimedOut && last.FromModelRun:
		return NotVerified, fmt.Sprintf("%s%s timed out in your own run, with nothing changed since; not started again%s.", nv, cmd, earlier)
	case last.TimedOut:
		limit := rep.timeout
		if last.limit > 0 {
			limit = last.limit
		}
		return NotVerified, fmt.Sprintf("%s%s timed out after %s%s.", nv, cmd, formatLimit(limit), earlier)
	case last.CouldNotRun != "":
		return NotVerified, fmt.Sprintf("%s%s could not run: %s%s.", nv, cmd, strings.TrimSuffix(last.CouldNotRun, "."), earlier)
	case last.Refused:
		return NotVerified, fmt.Sprintf("%s%s was refused%s.", nv, cmd, earlier)
	case last.NoTests:
		return NotVerified, fmt.Sprintf("%s%s %s; %s%s.", nv, cmd, runner.For(last.check.Runner).NoTestsText(), noTestsHint, earlier)
	}
	return NotVerified, nv + cmd + " failed" + stageNote(last) + failureSummary(rep.NewFailures, last.AlreadyFailing, last) + interruptedNote(last) + baselineNote(last) + earlier + "." + notRunNote(rep) + checksNotRunNote(rep)
}

// notRunNote names the dependents' tests a new failure in the changed
// packages' own stopped, naming up to three of those: " The tests of the
// packages that depend on ./a did not run yet (go test ./b ./c): they run
// once these pass." The module's root package, ".", is named in words. A
// full run split the same way stopped the rest of the suite instead.
func notRunNote(rep *Report) string {
	if len(rep.NotRun) == 0 {
		return ""
	}
	shown := shortCommands(rep.NotRun)
	last := rep.Stopped()
	if last != nil && last.restIsSuite() {
		return " The rest of the suite did not run yet (" + strings.Join(shown, "; ") + "): it runs once these pass."
	}
	them := "them"
	if last != nil && len(last.Targets) > 0 && len(last.Targets) <= 3 {
		named := slices.Clone(last.Targets)
		for i, t := range named {
			if t == "." {
				named[i] = "the root package"
			}
		}
		them = strings.Join(named, ", ")
	}
	return " The tests of the packages that depend on " + them + " did not run yet (" + strings.Join(shown, "; ") + "): they run once these pass."
}

// checksNotRunNote names the checks a new failure kept from running:
// " The checks after it did not run yet (go test ./a ./b): they run once
// these pass."
func checksNotRunNote(rep *Report) string {
	if len(rep.ChecksNotRun) == 0 {
		return ""
	}
	shown := shortCommands(rep.ChecksNotRun)
	once := "once these pass"
	if last := rep.Last(); last == nil || len(last.Failures) == 0 {
		once = "once it passes" // a failure that names no test
	}
	if len(shown) == 1 {
		return " The check after it did not run yet (" + shown[0] + "): it runs " + once + "."
	}
	return " The checks after it did not run yet (" + strings.Join(shown, "; ") + "): they run " + once + "."
}

// shortCommands shortens each of the commands for the evidence.
func shortCommands(cmds []string) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = shortCommand(c, nil)
	}
	return out
}

// oldChecksHint ends an evidence line whose only failures are old ones in
// a check that did not stop the chain (lint debt, typically).
const oldChecksHint = "set checks = [...] under [guardrails] to leave such a check out"

// onlyOldEvidence is the evidence when every failure was failing before the
// change: the checks that failed, then the ones that ran and passed, before
// or after them (a changed project's tests, then a dependent red at HEAD).
// "go vet ./... failed: x_test.go:12: … (already failing before this
// change); go test ./a (3s) passed, related to your changes."
func onlyOldEvidence(rep *Report, e *engine) string {
	text := oldChecks(rep.Checks, e)
	first := slices.IndexFunc(rep.Checks, func(c CheckRun) bool { return len(c.AlreadyFailing) > 0 })
	var passed []CheckRun
	ranAfter := false
	for i, c := range rep.Checks {
		if len(c.AlreadyFailing) == 0 && (c.Passed || c.NoTests && !c.Dependent || c.FromModelRun) {
			passed = append(passed, c)
			ranAfter = ranAfter || i > first
		}
	}
	if len(passed) == 0 {
		return text + "."
	}
	sub := &Report{Checks: passed, Changed: rep.Changed, ChangeUnknown: rep.ChangeUnknown}
	text += "; " + passedList(sub, e) + " passed" + strings.TrimSuffix(scopeSuffix(sub, e), ".")
	// The hint is for an old check that others ran after: leaving it
	// out would let them decide.
	if hint := oldHint(rep); hint != "" && ranAfter {
		return text + "; " + hint + "."
	}
	return text + "."
}

// oldHint is how to leave out a check whose old failures end the run
// unverified: the detected checks are replaced by a list (oldChecksHint);
// a configured list is the user's own, so the check is to come off it.
// Flaky failures alone get none: the check is not what is wrong.
func oldHint(rep *Report) string {
	onlyFlaky, configured := true, false
	for _, c := range rep.Checks {
		if len(c.AlreadyFailing) > len(c.Flaky) {
			onlyFlaky = false
			configured = configured || c.check.Configured
		}
	}
	switch {
	case onlyFlaky:
		return ""
	case configured:
		return configuredOldHint
	}
	return oldChecksHint
}

// configuredOldHint is oldChecksHint for a check the user's checks list
// names.
const configuredOldHint = "take such a check off checks under [guardrails] to leave it out"

// oldChecks lists the checks among cs whose failures were all old ones:
// "go vet ./... failed: a.go:3: … (already failing before this change)".
func oldChecks(cs []CheckRun, e *engine) string {
	var parts []string
	for _, c := range cs {
		if len(c.AlreadyFailing) == 0 {
			continue
		}
		cmd := e.label(c)
		parts = append(parts, cmd+" failed"+stageNote(c)+failureSummary(nil, c.AlreadyFailing, c)+interruptedNote(c)+testsRan(c))
	}
	return strings.Join(parts, "; ")
}

// interruptedNote says that a run stopped before any test ran: "; pytest
// stopped at its collection errors, so none of its tests ran".
func interruptedNote(c CheckRun) string {
	if c.Interrupted == "" {
		return ""
	}
	return "; " + c.Interrupted
}

// testsRan says, for a check whose failures were all old ones, that none
// of the other tests it ran failed, when its runner counts them and it
// ran more than failed: a red test check's line then says the rest of its
// run agrees, as a red vet's line says which tests passed after it. ""
// for vet's findings and opaque checks.
func testsRan(c CheckRun) string {
	if c.check.Runner == detect.GoVet || len(c.Failures) == 0 || c.Tests <= len(c.Failures) {
		return ""
	}
	return fmt.Sprintf("; no other of its %d tests failed", c.Tests)
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
// or " (exit 2)" for a check that names no tests. With nothing changed
// they are marked as failing at the base ("failing at HEAD; nothing
// changed"): there is no change for them to have failed before.
func failureSummary(newF, oldF []Failure, last CheckRun) string {
	before := "already failing before this change"
	if b := last.Baseline; b != nil && b.Kind == unchangedKind {
		// There is no change: the tree itself is the base.
		before = "failing at " + b.at + "; nothing changed"
	}
	if len(last.Failures) == 0 {
		if len(oldF) > 0 {
			return fmt.Sprintf(" (exit %d; %s)", last.ExitCode, before)
		}
		return fmt.Sprintf(" (exit %d)", last.ExitCode)
	}
	var flaky []Failure
	oldF = slices.DeleteFunc(slices.Clone(oldF), func(f Failure) bool {
		if slices.ContainsFunc(last.Flaky, func(g Failure) bool { return g.ID == f.ID }) {
			flaky = append(flaky, f)
			return true
		}
		return false
	})
	newNames, oldNames := names(newF), names(oldF)
	var parts []string
	switch {
	case len(newNames) > 0 && len(oldNames) > 0:
		parts = append(parts, nameList(newNames), nameList(oldNames)+" "+before)
	case len(newNames) > 0:
		parts = append(parts, nameList(newNames))
	case len(oldNames) > 0:
		parts = append(parts, nameList(oldNames)+" ("+before+")")
	}
	if len(flaky) > 0 {
		parts = append(parts, nameList(names(flaky))+" ("+flakyNote+")")
	}
	return ": " + strings.Join(parts, "; ")
}

// maxStageText is how much of a stage's command the evidence shows.
const maxStageText = 80

// stageNote says which stage of a test script's && chain failed and that
// the later ones never ran: " in stage 8 of 9 (npm run test-tz-plugin),
// so stage 9 never ran".
func stageNote(c CheckRun) string {
	st := c.Stage
	if st == nil {
		return ""
	}
	text := fmt.Sprintf(" in stage %d of %d (%s)", st.Index, st.Of, safetext.Cut(st.Command, maxStageText))
	switch {
	case !st.Sure:
		return text + " or a later one"
	case st.Index == st.Of:
		return text
	case st.Index+1 == st.Of:
		return fmt.Sprintf("%s, so stage %d never ran", text, st.Of)
	}
	return fmt.Sprintf("%s, so stages %d–%d never ran", text, st.Index+1, st.Of)
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
		n := safetext.Cut(strings.Join(strings.Fields(f.Name), " "), maxNameLen)
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// nameList is "TestA, TestB and 3 more". When a name holds ", " or ends
// in punctuation (jest titles are sentences: "Locale: zh-cn, Global
// localeData", "yearStart: 4."), every name is quoted, so the list cannot
// be read as more or fewer tests than it names, and a name's own full
// stop is not taken for the line's.
func nameList(ns []string) string {
	shown := ns
	if len(shown) > maxNamed {
		shown = shown[:maxNamed]
	}
	if slices.ContainsFunc(ns, ambiguousName) {
		quoted := make([]string, len(shown))
		for i, n := range shown {
			quoted[i] = "\u201c" + n + "\u201d"
		}
		shown = quoted
	}
	text := strings.Join(shown, ", ")
	if len(ns) > maxNamed {
		text += fmt.Sprintf(" and %d more", len(ns)-maxNamed)
	}
	return text
}

// ambiguousName tells whether a name, put in a list of names, could be
// read as two names or as the end of the line.
func ambiguousName(n string) bool {
	return strings.Contains(n, ", ") || strings.ContainsAny(n[max(len(n)-1, 0):], ".,;:")
}

// passedList is "go vet ./... (1s), go test ./pkg (2s)".
func passedList(rep *Report, e *engine) string {
	parts := make([]string, 0, len(rep.Checks))
	for _, c := range rep.Checks {
		if c.FromModelRun {
			parts = append(parts, e.label(c)+" (your own run, not repeated)")
			continue
		}
		if c.NoTests && c.Dependent {
			continue // untested says so
		}
		if c.NoTests {
			parts = append(parts, e.label(c)+" (no tests of its own)")
			continue
		}
		parts = append(parts, e.label(c)+" ("+formatDuration(c.Duration)+")")
	}
	return strings.Join(parts, ", ")
}

// maxUntested is how many projects without tests untested names.
const maxUntested = 3

// untested names the projects that ran only because they depend on the
// change and collected no tests: they decided nothing, and the line says
// so in a sentence of its own (" Not counted, no tests: examples/a,
// examples/b (they depend on the change).").
func untested(rep *Report) string {
	var dirs []string
	for i, c := range rep.Checks {
		if c.Dependent && rep.undecided(i) && !slices.Contains(dirs, c.Dir) {
			dirs = append(dirs, c.Dir)
		}
	}
	if len(dirs) == 0 {
		return ""
	}
	shown := strings.Join(dirs, ", ")
	if len(dirs) > maxUntested {
		shown = strings.Join(dirs[:maxUntested], ", ") + fmt.Sprintf(" and %d more", len(dirs)-maxUntested)
	}
	return " Not counted, no tests: " + shown + " (they depend on the change)."
}

// scopeSuffix says how much of the suite ran and why.
func scopeSuffix(rep *Report, e *engine) string {
	related := false
	var reasons, widened []string
	seen := map[string]bool{}
	for _, c := range rep.Checks {
		if !c.Scope.Full {
			related = true
			// What a narrowed run took in beyond the import graph
			// ("./e2e: its tests run the project's programs").
			for _, w := range c.Scope.Widened {
				if !seen[w] {
					seen[w] = true
					widened = append(widened, w)
				}
			}
			continue
		}
		if !c.check.Narrowable || c.Dependent && c.NoTests {
			continue // a dependent with no tests is named apart ("Not counted, no tests")
		}
		if why := c.Scope.String(); !seen[why] && why != "" {
			seen[why] = true
			reasons = append(reasons, why)
		}
	}
	relatedText := scope.Scope{Reason: scope.Because(scope.RelatedToChange), Widened: widened}.String()
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
		if r, why := c.check.Runner, c.Scope.String(); r != detect.GoVet && r != detect.Custom && why != "" && !seen[why] {
			seen[why] = true
			reasons = append(reasons, why)
		}
	}
	if len(reasons) > 0 {
		return " (full suite: " + strings.Join(reasons, "; ") + ")."
	}
	if rep.Checks[0].Team != "" {
		return " (team checks)."
	}
	if rep.Checks[0].check.Runner == "custom" {
		return " (configured checks)."
	}
	return "."
}

// label is how the evidence names a check: a team check by its name,
// any other by its command (from the root: "cd web && npm test").
func (e *engine) label(c CheckRun) string {
	if c.Team != "" {
		return c.Team
	}
	return e.shownDir(c.check.Dir) + shortCommand(c.Command, c.Targets)
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

// formatLimit shows a time limit as it is usually set: "600s", "1.5s".
func formatLimit(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
