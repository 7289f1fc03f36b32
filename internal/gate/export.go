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

// ParseOwnRun recognizes a check run in a shell command line run in dir
// (parsed with mvdan.cc/sh); ok is false when it runs no check. A plain run
// is resolved to what it collects (tests/ holding every test file is the
// whole suite). Passed, Output and Version are the caller's to fill.
func ParseOwnRun(cmdline, dir string, checks []string) (OwnRun, bool) {
	r, ok := parseOwnRun(cmdline, dir, checks)
	if !ok {
		return r, false
	}
	if r.Plain && !r.All {
		inv := runner.Resolve(dir, r.invocation())
		r.All, r.Targets = inv.All, inv.Targets
	}
	return r, true
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
