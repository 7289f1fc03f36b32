// Package selecttest narrows a detected test command to the tests related to
// a change set, per runner, and decides when the full suite must run
// instead (DESIGN §5), always with a reason a user can read.
//
// The rules are applied in a fixed order; the first that forces the full
// suite gives the reason. See docs/selection.md for each rule with an
// example.
package selecttest

import (
	"context"
	"path"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// Input is what selection needs.
type Input struct {
	// Check is the detected test command (Narrowable).
	Check detect.Check
	// Changed lists changed files, relative to Check.Dir, slash-separated;
	// deleted files included.
	Changed []string
	// Added lists which of Changed are new files (not in the base).
	Added []string
	// ChangeUnknown is set when the change set could not be determined.
	ChangeUnknown bool
	// ForceFull is set by --full, --verify-full or scope = "full".
	ForceFull bool
	// FullRunSecs is how long a full run of this check took earlier this
	// session (0 if never).
	FullRunSecs float64
	// ForceFullReason says what forced the full suite (scope.Asked with
	// the setting, a project that depends on a change); zero means
	// "--full".
	ForceFullReason scope.Reason
	// Base, when set, reads a file (relative to Check.Dir) as the change's
	// base has it (a file the base lacks wraps fs.ErrNotExist); pytest
	// selection below the file and go test's -run pattern need it.
	Base func(rel string) ([]byte, error)
}

// Selection is the command to run.
type Selection struct {
	// Scope says whether the whole suite runs (Full), why (Reason:
	// related to the change, Cargo.toml changed) and, for a related run,
	// why tests that no import reaches were added (Widened: "./cmd/x: its
	// tests run the project's programs").
	scope.Scope
	// Args is the argv to run (the narrowed or full command).
	Args []string
	// Command is Args shell-quoted, exactly as a user could paste it.
	Command string
	// Targets are the selected packages, files or crates.
	Targets []string
	// RunPattern is the -run pattern narrowing go test to the tests that
	// can reach the change (it is in Args too), or "".
	RunPattern string
	// Stages, when set, splits a related go test run in two: the
	// packages the change is in, then the packages that import them.
	// The gate starts both at once and stops the second when the first
	// has a failure (docs/selection.md, "The changed packages first").
	// Each stage is a Selection of its own with the same scope and
	// pattern; together they run what Args runs.
	Stages []Selection
	// Packages, for a full go test run whose module graph was read, are
	// the import paths of the packages with tests it runs.
	Packages []string
}

// MaxChangedFiles is the largest change set that is still narrowed.
const MaxChangedFiles = 20

// MinTestFiles is the test-file count at or below which the full suite is
// cheap enough to always run.
const MinTestFiles = 20

// FastFullRunSecs is the full-run duration at or below which the full suite
// always runs.
const FastFullRunSecs = 30

// Select decides what in.Check runs: the tests related to in.Changed, or the
// full suite with the reason. Commands it needs (go list, cargo metadata) run
// through r with run.Internal (nil means a plain run.Runner). An error means the project could not be
// analysed (a broken go.mod, cargo metadata failing); the caller then runs
// the full suite and may show the error.
func Select(ctx context.Context, r *run.Runner, in Input) (Selection, error) {
	if r == nil {
		r = &run.Runner{}
	}
	if reason, full := generalRule(in); full {
		return fullSelection(in.Check, reason), nil
	}
	an := analyzers[in.Check.Runner]
	if an == nil {
		return fullSelection(in.Check, noRelatedMode(in.Check.Runner)), nil
	}
	sel, err := an(ctx, r, in)
	if err != nil {
		return fullSelection(in.Check, scope.Because(scope.NotWorkedOut)), err
	}
	return sel, nil
}

// analyzer narrows one runner's command; it returns a full selection when
// one of the runner-specific rules applies.
type analyzer func(ctx context.Context, r *run.Runner, in Input) (Selection, error)

var analyzers = map[detect.Runner]analyzer{}

// generalRule applies the rules that need no knowledge of the runner, in
// the order the evidence should name them.
func generalRule(in Input) (scope.Reason, bool) {
	switch {
	case in.ForceFull:
		if !in.ForceFullReason.IsZero() {
			return in.ForceFullReason, true
		}
		return scope.For(scope.Asked, "--full"), true
	case !in.Check.Narrowable && !in.Check.AsWritten.IsZero():
		return in.Check.AsWritten, true
	case !in.Check.Narrowable:
		return noRelatedMode(in.Check.Runner), true
	case in.ChangeUnknown:
		return scope.Because(scope.ChangeUnknown), true
	case len(in.Changed) == 0:
		return scope.Because(scope.NoChange), true
	case len(in.Changed) > MaxChangedFiles:
		return scope.Count(scope.ManyChanged, MaxChangedFiles), true
	}
	if f := firstSetupFile(in.Changed); f != "" {
		return scope.Because(scope.SetupChanged, f), true
	}
	if in.FullRunSecs > 0 && in.FullRunSecs <= FastFullRunSecs {
		return scope.Reason{Code: scope.FastFullRun, Secs: in.FullRunSecs}, true
	}
	return scope.Reason{}, false
}

// noRelatedMode is the reason for checks that always run in full.
func noRelatedMode(r detect.Runner) scope.Reason {
	if r == "" {
		r = runner.Custom
	}
	if why := runner.For(r).FullOnly(); !why.IsZero() {
		return why
	}
	return scope.For(scope.AlwaysFull, string(r))
}

// fullSelection is the check's own command with a reason.
func fullSelection(c detect.Check, reason scope.Reason) Selection {
	s := Selection{Scope: scope.Scope{Full: true, Reason: reason}, Args: c.Args}
	if len(c.Args) > 0 {
		s.Command = shell.Join(c.Args)
	} else {
		s.Command = c.Command
	}
	return s
}

// narrowed builds a related selection.
func narrowed(args, targets, widened []string) Selection {
	sc := scope.Scope{Reason: scope.Because(scope.RelatedToChange), Widened: widened}
	return Selection{Scope: sc, Args: args, Command: shell.Join(args), Targets: targets}
}

// sortedKeys returns the set's members in order.
func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// cleanChanged drops paths outside the project and normalises the rest.
func cleanChanged(files []string) []string {
	var out []string
	for _, f := range files {
		f = path.Clean(strings.ReplaceAll(f, "\\", "/"))
		if f == "." || f == ".." || strings.HasPrefix(f, "../") || strings.HasPrefix(f, "/") {
			continue
		}
		out = append(out, f)
	}
	return out
}

func toSet(files []string) map[string]bool {
	set := make(map[string]bool, len(files))
	for _, f := range cleanChanged(files) {
		set[f] = true
	}
	return set
}
