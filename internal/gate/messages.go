package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/verify"
	"github.com/chanto-dev/chanto/internal/verify/protect"
)

// protectNote is appended to the result of the tool call that tampered
// with a test.
func protectNote(vs []protect.Violation) string {
	var b strings.Builder
	b.WriteString("⚠ chanto test protection: this call changed existing tests in a way that is not allowed:\n")
	for _, v := range vs {
		b.WriteString("- " + indent(v.String()) + "\n")
	}
	b.WriteString("Restore the test; fix the code, not the tests. If what you were asked to do genuinely conflicts with an existing test, leave the test as it was and explain the conflict in your answer.")
	return b.String()
}

// protectSendBack returns an answer that still stands on tampered tests.
func protectSendBack(vs []protect.Violation) string {
	var b strings.Builder
	b.WriteString("Your answer was not accepted: it stands on changes to existing tests.\n")
	for _, v := range vs {
		b.WriteString("- " + indent(v.String()) + "\n")
	}
	b.WriteString("Restore these tests to what they were at the start of this turn and fix the code, not the tests. " +
		"If the requested behaviour genuinely conflicts with an existing test, restore the test, keep your code change, and explain the conflict in your final answer.")
	return b.String()
}

// failedRunSendBack returns an answer given after a failing check run
// (verify off).
func failedRunSendBack(r ownRun, why string) string {
	return fmt.Sprintf("Before you finish: %s. Its output ended with:\n\n%s\n\n"+
		"Fix the failure and run the check again so that a passing run covers the same tests, "+
		"or, if it cannot or should not be fixed, say so plainly in your answer.", why, trimOutput(r.Output))
}

// gateSendBack returns a failed gate run to the model: the check that
// stopped the chain with a new failure, or, when only old failures remain,
// every check that had them.
func gateSendBack(rep *verify.Report, attempt, max int) string {
	var b strings.Builder
	if last := rep.Stopped(); last != nil {
		fmt.Fprintf(&b, "chanto ran the project's checks before accepting your answer. Check %d of %d failed: %s`%s`%s (exit %d).\n",
			len(rep.Checks), planned(rep), teamLabel(*last), last.Command, where(last.Dir), last.ExitCode)
		if named := testsNamed(rep.NewFailures); len(named) > 0 {
			// An opaque check names no test: no label then.
			b.WriteString("New failures: " + failureNames(named) + "\n")
		}
		b.WriteString(notNewLines(*last))
		b.WriteString("\nOutput (trimmed):\n" + trimOutput(last.Output) + "\n\n")
		for i, c := range rep.Checks[:len(rep.Checks)-1] {
			if len(c.AlreadyFailing) > 0 {
				fmt.Fprintf(&b, "(Check %d, `%s`%s, failed too, but only with failures that were already there before this turn: %s. Leave those alone unless they are part of the task.)\n\n",
					i+1, c.Command, where(c.Dir), failureNames(c.AlreadyFailing)+flakyAside(c))
			}
		}
		if len(rep.NewFailures) == 0 && len(rep.AlreadyFailing) > 0 {
			b.WriteString("Only tests that were already failing before this turn fail. Fix them if that is part of the task; otherwise say so in your answer, and the turn ends unverified.")
			return b.String()
		}
		if last.Interrupted != "" {
			b.WriteString("Note: " + last.Interrupted + ".\n\n")
		}
		if len(rep.NotRun) > 0 {
			what := "The tests of the packages that depend on the changed ones did not run yet (`%s`): they run when these pass.\n\n"
			if rep.NotRunIsRest() {
				what = "The rest of the suite, the packages the change is not in, did not run yet (`%s`): it runs when these pass.\n\n"
			}
			fmt.Fprintf(&b, what, strings.Join(rep.NotRun, "`, `"))
		}
		if len(rep.ChecksNotRun) > 0 {
			fmt.Fprintf(&b, "The checks after this one did not run yet (`%s`): they run when these pass.\n\n", strings.Join(rep.ChecksNotRun, "`, `"))
		}
		fmt.Fprintf(&b, "Fix the code, not the tests, and finish again (attempt %d of %d). "+
			"If the failure is in code you were told to leave alone, or the request conflicts with the test, leave it and explain why in your answer.", attempt, max)
		return b.String()
	}
	b.WriteString("chanto ran the project's checks before accepting your answer. Every failure it found was already there before this turn.\n")
	for i, c := range rep.Checks {
		switch {
		case len(c.AlreadyFailing) > 0:
			fmt.Fprintf(&b, "\nCheck %d of %d failed: `%s`%s (exit %d).\n%s\nOutput (trimmed):\n%s\n",
				i+1, planned(rep), c.Command, where(c.Dir), c.ExitCode, notNewLines(c), trimOutput(c.Output))
		case c.Passed:
			fmt.Fprintf(&b, "\nCheck %d of %d passed: `%s`%s.\n", i+1, planned(rep), c.Command, where(c.Dir))
		}
	}
	b.WriteString("\nOnly tests that were already failing before this turn fail. Fix them if that is part of the task; otherwise say so in your answer, and the turn ends unverified.")
	return b.String()
}

// teamLabel is "the team check lint, " before a team check's command.
func teamLabel(c verify.CheckRun) string {
	if c.Team == "" {
		return ""
	}
	return "the team check " + c.Team + ", "
}

// planned is how many checks the gate was to run: "check 2 of 3" counts
// the ones a failure kept from running.
func planned(rep *verify.Report) int { return max(rep.Planned, len(rep.Checks)) }

// where is " in DIR" for a check run below the root.
func where(dir string) string {
	if dir != "" && dir != "." {
		return " in " + dir
	}
	return ""
}

// testsNamed drops the failure an opaque check stands for (no name).
func testsNamed(fs []verify.Failure) []verify.Failure {
	var out []verify.Failure
	for _, f := range fs {
		if f.Name != "" {
			out = append(out, f)
		}
	}
	return out
}

// notNewLines names a check's failures that are not the change's: those
// already failing before the turn, and the flaky ones apart.
func notNewLines(c verify.CheckRun) string {
	var old, flaky []verify.Failure
	for _, f := range c.AlreadyFailing {
		if slices.ContainsFunc(c.Flaky, func(g verify.Failure) bool { return g.ID == f.ID }) {
			flaky = append(flaky, f)
		} else {
			old = append(old, f)
		}
	}
	var b strings.Builder
	if len(old) > 0 {
		b.WriteString("Already failing before this turn: " + failureNames(old) + "\n")
	}
	if len(flaky) > 0 {
		b.WriteString("Flaky (failed with your change, then passed when run again, alone and among the others; passed before this turn too): " + failureNames(flaky) + "\n")
	}
	return b.String()
}

// flakyAside says which of the already-failing names are flaky.
func flakyAside(c verify.CheckRun) string {
	if len(c.Flaky) == 0 {
		return ""
	}
	return " (of them flaky, passing when run again: " + failureNames(c.Flaky) + ")"
}

func failureNames(fs []verify.Failure) string {
	names := make([]string, 0, len(fs))
	for _, f := range fs {
		if f.Name == "" {
			f.Name = f.ID // an opaque check: its command
		}
		names = append(names, f.Name)
	}
	if len(names) > 10 {
		return strings.Join(names[:10], ", ") + fmt.Sprintf(" and %d more", len(names)-10)
	}
	return strings.Join(names, ", ")
}

// trimOutput is the trimming the user is shown too (verify.TrimOutput).
func trimOutput(s string) string { return verify.TrimOutput(s) }

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }
