// Package baseline tells new failures from ones that were already there: a
// full-scope baseline runs in a throwaway copy of the base tree, a
// related-scope one puts the changed files back to their base bytes for
// one run and restores them. Putback is crash-safe: the changed versions are
// saved under ~/.chanto/history/putback/ first, a watcher process restores
// them if chanto dies, and the next start recovers anything left.
//
// The putback invariants, in order of a run (Putback):
//   - one putback per project at a time (a lock file beside the saves), and
//     any earlier save of that project still pending is restored first;
//   - the save folder is created and flock'ed before anything else, and the
//     lock is held until the save is gone: whoever holds it owns the save,
//     and the kernel releases it when chanto dies;
//   - the watcher (Watch, started as "chanto __putback-watch DIR" in its own
//     session) is running and holds its end of a pipe before the save is
//     written; EOF on that pipe without "done" means chanto died;
//   - the current versions (bytes, mode, owner, sha256) are fsynced and the
//     manifest committed by an atomic rename before the tree is touched, so
//     a save without a manifest never reached the tree and is garbage;
//   - every write into the tree is a side file renamed over the target, so
//     no file is ever half-written; restore overwrites whatever the test run
//     left, checks every sha256 first, and is idempotent;
//   - a finished save loses its manifest first, then the folder.
//
// Recover handles what both chanto and its watcher left (power loss, a
// kill of both), under the same lock, so it can race the watcher safely.
package baseline

import "strings"

// Run is the outcome of a baseline run, for classification.
type Run struct {
	// Failures are the failure identities the baseline run reported, such
	// as "pkg/TestX" or "tests/test_a.py::test_b".
	Failures []string
	// Ran is false when the baseline could not run at all (timed out, the
	// command was not found, the copy could not be made): then nothing is
	// known to have failed before, and every current failure is new.
	Ran bool
	// Note says why it did not run, when it did not.
	Note string
}

// Classify splits the current failures into new ones and ones that already
// failed at the base, matching identities exactly (after trimming spaces).
// Order follows current; duplicates are dropped.
func Classify(current, base []string) (newFailures, alreadyFailing []string) {
	before := make(map[string]bool, len(base))
	for _, b := range base {
		before[strings.TrimSpace(b)] = true
	}
	seen := make(map[string]bool, len(current))
	for _, c := range current {
		c = strings.TrimSpace(c)
		if c == "" || seen[c] {
			continue
		}
		seen[c] = true
		if before[c] {
			alreadyFailing = append(alreadyFailing, c)
		} else {
			newFailures = append(newFailures, c)
		}
	}
	return newFailures, alreadyFailing
}

// ClassifyAgainst is Classify with the rule for a baseline that did not
// run: everything is new.
func ClassifyAgainst(current []string, base Run) (newFailures, alreadyFailing []string) {
	if !base.Ran {
		return Classify(current, nil)
	}
	return Classify(current, base.Failures)
}
