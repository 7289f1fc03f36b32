// Package selecttest narrows a detected test command to the tests related to
// a change set, per runner, and decides when the full suite must run
// instead (DESIGN §5), always with a reason a user can read.
package selecttest

import "github.com/chanto-dev/chanto/internal/verify/detect"

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
}

// Selection is the command to run.
type Selection struct {
	// Full is set when the whole suite runs.
	Full bool
	// Reason explains the choice for the evidence line, e.g.
	// "related to your changes" or "Cargo.toml changed".
	Reason string
	// Args is the argv to run (the narrowed or full command).
	Args []string
	// Command is Args shell-quoted, exactly as a user could paste it.
	Command string
	// Targets are the selected packages, files or crates.
	Targets []string
}
