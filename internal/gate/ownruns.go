package gate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
)

// ownRun is a test or check command the model ran itself through bash.
type ownRun struct {
	// Command is the command line as the model wrote it.
	Command string
	// Dir is the working directory it ran in.
	Dir string
	// Runner is the kind of check (go, go-vet, pytest, unittest, cargo,
	// npm, jest, vitest, make, custom).
	Runner detect.Runner
	// Args are the words of the command that ran the check.
	Args []string
	// Plain is set for one simple command with literal words and no
	// filter; only plain runs can stand in for the gate. WhyNot says why a
	// run is not plain.
	Plain  bool
	WhyNot string
	// All is set when the run covers its runner's whole suite in Dir;
	// otherwise Targets lists the packages, paths, modules or crates.
	All     bool
	Targets []string

	Passed   bool
	TimedOut bool
	Output   string
	// Version is the tree version right after the run.
	Version int
	// Chained marks one stage of a passing && chain of plain check runs
	// (its Command is the stage's words; its time is not known alone).
	Chained bool `json:",omitempty"`
}

// parseOwnRun recognizes a check run in a bash command line. ok is false
// when the command runs no check at all. checks are configured check
// commands, recognized by their exact words.
func parseOwnRun(cmdline, dir string, checks []string) (run ownRun, ok bool) {
	run = ownRun{Command: cmdline, Dir: dir}
	f, err := syntax.NewParser().Parse(strings.NewReader(cmdline), "")
	if err != nil {
		return run, false
	}
	var calls []*syntax.CallExpr
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, is := n.(*syntax.CallExpr); is && len(c.Args) > 0 {
			calls = append(calls, c)
		}
		return true
	})
	for _, c := range calls {
		args := literalArgs(c)
		inv, ok := classify(args, checks)
		if !ok {
			continue
		}
		run.Runner, run.Args = inv.Runner, args
		run.WhyNot = plainness(f, c, args)
		if run.WhyNot == "" {
			run.All, run.Targets, run.WhyNot = inv.All, inv.Targets, inv.WhyNot
		}
		run.Plain = run.WhyNot == ""
		return run, true
	}
	return run, false
}

// parseChain reads a command line that chains plain check runs with &&
// (go vet ./... && go test ./...): one run per stage, each with its own
// words as its command. nil unless every stage is a plain run of a check;
// ;, ||, pipes, subshells and any other command in the chain (cd, export)
// can hide a failure or change what a stage means.
func parseChain(cmdline, dir string, checks []string) []ownRun {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmdline), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	top := f.Stmts[0]
	if top.Negated || top.Background || top.Coprocess || len(top.Redirs) > 0 {
		return nil
	}
	dir, stages := leadingCd(andStages(top), dir)
	if len(stages) < 2 {
		return nil
	}
	var runs []ownRun
	for _, st := range stages {
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return nil
		}
		args := literalArgs(call)
		inv, ok := classify(args, checks)
		if !ok || stmtPlainness(st, call, args) != "" || inv.WhyNot != "" {
			return nil
		}
		text := cmdline[st.Pos().Offset():st.End().Offset()]
		runs = append(runs, ownRun{Command: text, Dir: dir, Runner: inv.Runner, Args: args, Plain: true,
			All: inv.All, Targets: inv.Targets, Chained: true})
	}
	return runs
}

// parseCdRun reads cd DIR && CHECK (cd stages, then one check run): the
// check's run, in DIR, passed or not. ok is false for anything else.
func parseCdRun(cmdline, dir string, checks []string) (run ownRun, ok bool) {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmdline), "")
	if err != nil || len(f.Stmts) != 1 {
		return run, false
	}
	top := f.Stmts[0]
	if top.Negated || top.Background || top.Coprocess || len(top.Redirs) > 0 {
		return run, false
	}
	stages := andStages(top)
	inDir, rest := leadingCd(stages, dir)
	if len(rest) != 1 || len(rest) == len(stages) {
		return run, false
	}
	call, isCall := rest[0].Cmd.(*syntax.CallExpr)
	if !isCall || len(call.Args) == 0 {
		return run, false
	}
	args := literalArgs(call)
	inv, ok := classify(args, checks)
	if !ok {
		return run, false
	}
	run = ownRun{Command: cmdline, Dir: inDir, Runner: inv.Runner, Args: args}
	run.WhyNot = stmtPlainness(rest[0], call, args)
	if run.WhyNot == "" {
		run.All, run.Targets, run.WhyNot = inv.All, inv.Targets, inv.WhyNot
	}
	run.Plain = run.WhyNot == ""
	return run, true
}

// leadingCd takes the cd stages off the front of an && list and returns
// the folder the rest runs in. A stage counts only as cd with one literal
// word naming a folder that exists (absolute, or relative to dir): not
// "cd -", not "~", nothing CDPATH could send elsewhere (a relative name
// is taken only when dir holds it). At least one stage is always left.
func leadingCd(stages []*syntax.Stmt, dir string) (string, []*syntax.Stmt) {
	for len(stages) > 1 {
		st := stages[0]
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 {
			break
		}
		args := literalArgs(call)
		if len(args) != 2 || len(call.Args) != 2 || args[0] != "cd" {
			break
		}
		target := args[1]
		if target == "" || strings.HasPrefix(target, "-") || strings.HasPrefix(target, "~") {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		if fi, err := os.Stat(target); err != nil || !fi.IsDir() {
			break
		}
		dir, stages = filepath.Clean(target), stages[1:]
	}
	return dir, stages
}

// andStages flattens a && b && c into its statements; a statement that is
// not an && list is its own only stage.
func andStages(st *syntax.Stmt) []*syntax.Stmt {
	b, ok := st.Cmd.(*syntax.BinaryCmd)
	if !ok || b.Op != syntax.AndStmt {
		return []*syntax.Stmt{st}
	}
	if st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 {
		return nil
	}
	x, y := andStages(b.X), andStages(b.Y)
	if x == nil || y == nil {
		return nil
	}
	return append(x, y...)
}

// plainness returns why a command line is not one plain simple command,
// or "" when it is.
func plainness(f *syntax.File, call *syntax.CallExpr, args []string) string {
	if len(f.Stmts) != 1 {
		return "more than one command"
	}
	return stmtPlainness(f.Stmts[0], call, args)
}

// stmtPlainness returns why st is not the plain simple command call, or "".
func stmtPlainness(st *syntax.Stmt, call *syntax.CallExpr, args []string) string {
	if st.Cmd != syntax.Command(call) {
		return "not a simple command (piped, chained or in a subshell)"
	}
	if st.Negated || st.Background || st.Coprocess {
		return "negated or in the background"
	}
	if len(call.Assigns) > 0 {
		return "has an environment prefix"
	}
	for _, r := range st.Redirs {
		// 2>&1 and output to a file keep the exit status; input does not matter.
		if r.Op == syntax.RdrIn || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc {
			return "reads redirected input"
		}
	}
	if len(args) != len(call.Args) {
		return "has expansions or substitutions"
	}
	return ""
}

// literalArgs returns the words of c that are plain literals (quotes
// removed); a word with any expansion is left out, which makes the
// lengths differ and the run not plain.
func literalArgs(c *syntax.CallExpr) []string {
	var out []string
	for _, w := range c.Args {
		if s, ok := shell.Literal(w); ok {
			out = append(out, s)
		}
	}
	return out
}

// classify says which runner args invoke: a runner the registry knows,
// else a configured check by its parsed words (custom); ok is false for
// neither.
func classify(args, checks []string) (runner.Invocation, bool) {
	if len(args) == 0 {
		return runner.Invocation{}, false
	}
	if inv, ok := runner.Recognize(args); ok {
		return inv, true
	}
	for _, c := range checks {
		if slices.Equal(configuredWords(c), args) {
			return runner.Invocation{Runner: runner.Custom, Args: args, Skip: len(args), Plain: true, All: true}, true
		}
	}
	return runner.Invocation{}, false
}

// configuredWords are the words of a configured check that is one simple
// command with literal words; nil otherwise (it can only be run, never
// stood in for).
func configuredWords(check string) []string {
	s, err := shell.Parse(check)
	if err != nil || !s.Simple || !s.Commands[0].Literal || len(s.Commands[0].Env) > 0 {
		return nil
	}
	return s.Commands[0].Args
}

// covers reports whether a plain run r covers a check the gate would run:
// the same runner in the same folder, and at least the selected targets.
// full means the gate would run the whole suite.
func (r ownRun) covers(dir string, name detect.Runner, full bool, targets []string) bool {
	return r.coversWant(dir, runner.Want{Runner: name, Full: full, Targets: targets})
}

// coversWant reports whether a plain run r in dir covers the run want.
func (r ownRun) coversWant(dir string, want runner.Want) bool {
	return filepath.Clean(r.Dir) == filepath.Clean(dir) && runner.Covers(r.invocation(), want)
}

// invocation is the run as the runner registry reads it.
func (r ownRun) invocation() runner.Invocation {
	return runner.Invocation{Runner: r.Runner, Args: r.Args, Plain: r.Plain, WhyNot: r.WhyNot, All: r.All, Targets: r.Targets}
}

// plannedWant is a planned check as coverage compares it; a configured
// check carries its words.
func plannedWant(pl verify.Planned) runner.Want {
	w := runner.Want{Runner: pl.Runner, Full: pl.Full, Targets: pl.Targets}
	switch {
	case pl.Configured != "":
		w.Args = configuredWords(pl.Configured)
	case pl.Runner == runner.Custom:
		w.Args = configuredWords(pl.Command)
	}
	return w
}

// sameRunner lets "npm test" stand for the runner it launches.
func sameRunner(model, gate detect.Runner) bool { return runner.For(model).StandsFor(gate) }
