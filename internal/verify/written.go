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

// writtenByChecks returns the paths changed after the checks that were
// not changed before, sorted; nil when it cannot tell or nothing new. A
// change set read from git (chanto verify, the hooks) asks git again; one
// handed in (an agent turn's snapshot) asks Options.ChangedNow.
func (e *engine) writtenByChecks(ctx context.Context) []string {
	if e.opts.Changed != nil {
		return e.writtenSince(ctx)
	}
	if !e.cs.Git || e.cs.Base == "" || e.cs.Unknown {
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
	return e.beyondChange(now)
}

// writtenSince is writtenByChecks for a change set handed in: the caller's
// ChangedNow reads it again, and what it names beyond the change (files
// chanto keeps or generates left out, as for the change) was written by
// the checks.
func (e *engine) writtenSince(ctx context.Context) []string {
	if e.opts.ChangedNow == nil {
		return nil
	}
	changed, err := e.opts.ChangedNow(ctx)
	if err != nil {
		return nil
	}
	now := ChangeSet{Root: e.cs.Root, Changed: dropGenerated(changed)}
	return e.beyondChange(now)
}

// beyondChange returns what the change set now names that the change did
// not, once chanto's own files, the temp folder and lock files chanto's
// runs produced are left out, as they are from the change.
func (e *engine) beyondChange(now ChangeSet) []string {
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
