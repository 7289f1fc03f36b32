package gate

import (
	"github.com/chanto-dev/chanto/internal/verify"
	"github.com/chanto-dev/chanto/internal/verify/protect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
)

// What the gate inside another agent (internal/hookgate) shares with this
// one: it sees the same moments through that agent's hooks, one process per
// event, so it keeps the turn on disk and calls these instead of a Policy.

// OwnRun is a check the model ran itself, as the gate records it.
type OwnRun = ownRun

// RunEnd is how a bash command ended, as the caller saw it.
type RunEnd struct {
	Passed, TimedOut bool
	Output           string
}

// OwnRunsOf recognizes the check runs in a shell command line run in dir
// (parsed with mvdan.cc/sh) that ended as end; nil when it runs no check.
// A plain run is resolved to what it collects (tests/ holding every test
// file is the whole suite). A passing && chain of plain check runs gives
// one passing run per stage; a chain that failed does not say which stage
// failed, so it is one run that is not plain. Leading cd DIR stages (an
// existing folder, named literally) move the runs after them to DIR, so
// cd DIR && go test ./... is a plain run in DIR, passed or failed.
// Version is the caller's to fill.
func OwnRunsOf(cmdline, dir string, checks []string, end RunEnd) []OwnRun {
	if end.Passed && !end.TimedOut {
		if runs := parseChain(cmdline, dir, checks); runs != nil {
			for i := range runs {
				runs[i] = resolved(runs[i])
				runs[i].Passed, runs[i].Output = true, end.Output
			}
			return runs
		}
	}
	r, ok := parseCdRun(cmdline, dir, checks)
	if !ok {
		r, ok = parseOwnRun(cmdline, dir, checks)
	}
	if !ok {
		return nil
	}
	r = resolved(r)
	r.Passed = end.Passed && !end.TimedOut
	r.TimedOut, r.Output = end.TimedOut, end.Output
	return []OwnRun{r}
}

// resolved is a plain run with what its targets collect.
func resolved(r ownRun) ownRun {
	if r.Plain && !r.All {
		inv := runner.Resolve(r.Dir, r.invocation())
		r.All, r.Targets = inv.All, inv.Targets
	}
	return r
}

// PriorRuns lets runs stand in for the gate's planned checks: a plain,
// passing run covering the selection made at tree version (nothing changed
// since), or a timed-out run of the same tests.
func PriorRuns(runs []OwnRun, version int) func(verify.Planned) *verify.Prior {
	return priorRuns(runs, version)
}

// SendBackText is what a failed gate run tells the model (attempt of max).
func SendBackText(rep *verify.Report, attempt, max int) string {
	return gateSendBack(rep, attempt, max)
}

// ProtectNote is what the model is told right after a tool call tampered
// with a test.
func ProtectNote(vs []protect.Violation) string { return protectNote(vs) }

// ProtectSendBackText is what an answer standing on tampered tests is told.
func ProtectSendBackText(vs []protect.Violation) string { return protectSendBack(vs) }
