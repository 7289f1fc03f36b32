package verify

import (
	"context"
	"os"
	"slices"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/git"
)

// A check can write into the project: a test that updates its own golden
// files or source (gotest.tools' -update code rewrites the calling test
// file), a tool that formats in place, a run that leaves its output
// behind. What it wrote is not the change the gate judged, and the next
// verify would take it for one (a test file the run emptied reads as
// tampering). So after the checks, git is asked once more what differs
// from the base, and the paths it names now that it did not name before
// are reported as written by the checks. chanto leaves them as they are:
// they may be what the user wanted (a snapshot run with -u), and putting
// back a file it did not write is not the gate's call.

// writtenByChecks returns the paths git sees changed after the checks that
// it did not see before, sorted; nil when it cannot tell or nothing new.
// It asks only for a change set read from git (chanto verify, the
// hooks), not one handed in by an agent turn's snapshot.
func (e *engine) writtenByChecks(ctx context.Context) []string {
	if e.opts.Changed != nil || !e.cs.Git || e.cs.Base == "" || e.cs.Unknown {
		return nil
	}
	outs, err := git.Outputs(ctx, e.r, e.cs.Root,
		[]string{"diff", "--name-status", "-z", "-M", e.cs.Base, "--"},
		[]string{"ls-files", "-z", "--others", "--exclude-standard"})
	if err != nil {
		return nil
	}
	now := ChangeSet{Root: e.cs.Root, Git: true, Base: e.cs.Base}
	if now.addNameStatus(outs[0]) != nil {
		return nil
	}
	for _, p := range splitZ(outs[1]) {
		now.add(p, 'A')
	}
	now.finish()
	now.dropUnder(config.Home())
	now.dropUnder(os.TempDir())
	after := &engine{cs: now}
	after.dropProducedLocks()
	var out []string
	for _, p := range after.cs.Changed {
		if !slices.Contains(e.cs.Changed, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
