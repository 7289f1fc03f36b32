// Package baseline tells new failures from ones that were already there: a
// full-scope baseline runs in a throwaway copy of the base tree, a
// related-scope one puts the changed files back to their base bytes for
// one run and restores them. Putback is crash-safe: the changed versions are
// saved under ~/.chanto/history/putback/ first, a watcher process restores
// them if chanto dies, and the next start recovers anything left.
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
