package verify

import (
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// Planned is a check about to run, as the gate selected it; Options.Prior
// sees it before anything is executed.
type Planned struct {
	// Dir is the absolute folder the check runs in.
	Dir    string
	Runner detect.Runner
	// Full is set when the whole suite would run; Targets lists the
	// selected packages, files or crates otherwise.
	Full    bool
	Targets []string
	// Command is the command as it would be shown.
	Command string
	// Configured is the check's command line as the user configured it,
	// for a configured check whose runner is known (for an opaque one,
	// Runner is Custom and Command is that line): a run covers it only
	// with these words or, when they are a plain run, as a run of its
	// runner covers the whole suite.
	Configured string
}

// Prior is an earlier run that settles a planned check, so it is not run
// again: the model's own plain, covering run with nothing changed since.
type Prior struct {
	// Command is the earlier run's command line.
	Command string
	// Passed and TimedOut are its outcome.
	Passed   bool
	TimedOut bool
	// Full is set when the earlier run covered the whole suite, so the
	// evidence does not claim the full suite was not run.
	Full bool
}

// fromPrior records a check settled by an earlier run.
func (e *engine) fromPrior(c CheckRun, pr *Prior) CheckRun {
	c.Command = pr.Command
	c.FromModelRun = true
	if pr.Full && (!c.Scope.Full || c.check.Narrowable && !e.opts.Full) {
		// What ran is the whole suite, and that is the news: planned
		// related, or planned whole by a rule of its own (a run like this
		// one measured it as cheap) rather than by the user.
		c.Scope, c.Targets = scope.Scope{Full: true, Reason: scope.Because(scope.OwnFullRun)}, nil
	}
	c.Passed = pr.Passed
	c.TimedOut = pr.TimedOut
	c.Tests = -1
	if !pr.Passed {
		c.ExitCode = -1
	}
	return c
}
