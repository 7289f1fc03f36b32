package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/git"
	"github.com/chanto-dev/chanto/internal/run"
)

// ChangeSet is what changed in the working tree against a base.
type ChangeSet struct {
	// Root is the repository's top-level folder (or the folder checked
	// when it is not a git repository).
	Root string `json:"root"`
	// Git is false for a folder outside any git repository.
	Git bool `json:"git"`
	// Base is the revision compared against ("" with no commits yet).
	Base string `json:"base,omitempty"`
	// Changed lists every changed path (added, modified, deleted, both
	// sides of a rename), slash-separated, relative to Root, sorted.
	Changed []string `json:"changed"`
	// Added lists the paths of Changed that are new (untracked or added).
	Added []string `json:"added,omitempty"`
	// Deleted lists the paths of Changed that are gone.
	Deleted []string `json:"deleted,omitempty"`
	// Unknown is set when the change could not be determined (not a git
	// repository): everything counts as changed.
	Unknown bool `json:"unknown,omitempty"`
}

// Changes computes the change set of the working tree in dir against base
// (a revision; "" means HEAD): modified, added, deleted and renamed files
// plus untracked files that are not ignored. Outside a git repository the
// change is unknown and Root is dir.
func Changes(ctx context.Context, r *run.Runner, dir, base string) (ChangeSet, error) {
	cs, objs, err := changes(ctx, r, dir, base)
	objs.Close()
	return cs, err
}

// changes is Changes that also hands back the git start it used, as a
// reader of the base's objects (nil when there is none); the caller
// closes it.
func changes(ctx context.Context, r *run.Runner, dir, base string) (ChangeSet, *git.Objects, error) {
	cs, err := changesBase(ctx, r, dir, base)
	if err != nil || cs.Unknown || cs.Base == "" {
		return cs, nil, err
	}
	// The tracked changes and the untracked files, in one sandboxed
	// start that then stays to read the base's files.
	outs, objs, err := git.OutputsThenObjects(ctx, r, cs.Root,
		[]string{"diff", "--name-status", "-z", "-M", cs.Base, "--"},
		[]string{"ls-files", "-z", "--others", "--exclude-standard"})
	if err != nil {
		return ChangeSet{}, nil, err
	}
	if err := cs.addNameStatus(outs[0]); err != nil {
		objs.Close()
		return ChangeSet{}, nil, err
	}
	for _, p := range splitZ(outs[1]) {
		cs.add(p, 'A')
	}
	cs.finish()
	return cs, objs, nil
}

// changesBase is the first half of Changes: the top level and the base
// revision; outside git or with no commits yet, the whole change set.
func changesBase(ctx context.Context, r *run.Runner, dir, base string) (ChangeSet, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ChangeSet{}, err
	}
	top, err := git.Top(ctx, r, abs)
	if err != nil {
		var ge *git.Error
		var nf *run.NotFoundError
		if errors.As(err, &ge) || errors.As(err, &nf) {
			if base != "" {
				return ChangeSet{}, fmt.Errorf("--base %s: %s is not in a git repository", base, abs)
			}
			return ChangeSet{Root: abs, Unknown: true}, nil
		}
		return ChangeSet{}, err
	}
	cs := ChangeSet{Root: top, Git: true}
	rev := base
	if rev == "" {
		rev = "HEAD"
	}
	// HEAD's files can tell it names a commit, without a git run.
	if base != "" || !git.HasHead(r, cs.Root) {
		if _, err := git.Output(ctx, r, cs.Root, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
			if base != "" {
				return ChangeSet{}, fmt.Errorf("--base %s: not a commit in this repository", base)
			}
			// No commits yet: everything in the index and worktree is new.
			return changesNoCommits(ctx, r, cs)
		}
	}
	if base != "" {
		rev = branchPoint(ctx, r, cs.Root, base)
	}
	cs.Base = rev
	return cs, nil
}

// branchPoint turns --base REV into the commit the current branch grew
// from: the merge base of REV and HEAD, so commits made on REV since (say,
// on main) do not count as part of this change. When REV is HEAD or ahead
// of it, or there is no common history, REV itself is the base.
func branchPoint(ctx context.Context, r *run.Runner, root, base string) string {
	out, err := git.Output(ctx, r, root, "merge-base", base, "HEAD")
	if err != nil {
		return base
	}
	mb := strings.TrimSpace(string(out))
	head, err := git.Output(ctx, r, root, "rev-parse", "HEAD")
	if err != nil || mb == "" || mb == strings.TrimSpace(string(head)) {
		return base
	}
	return mb
}

func changesNoCommits(ctx context.Context, r *run.Runner, cs ChangeSet) (ChangeSet, error) {
	files, err := git.Output(ctx, r, cs.Root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return ChangeSet{}, err
	}
	for _, p := range splitZ(files) {
		if _, err := os.Lstat(filepath.Join(cs.Root, filepath.FromSlash(p))); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		cs.add(p, 'A')
	}
	cs.finish()
	return cs, nil
}

// addNameStatus parses "git diff --name-status -z": a status field, then
// one path (two for renames and copies), each NUL-terminated.
func (cs *ChangeSet) addNameStatus(out []byte) error {
	fields := splitZ(out)
	for i := 0; i < len(fields); {
		st := fields[i]
		i++
		if st == "" {
			continue
		}
		n := 1
		if st[0] == 'R' || st[0] == 'C' {
			n = 2
		}
		if i+n > len(fields) {
			return fmt.Errorf("git diff: truncated output after status %q", st)
		}
		switch st[0] {
		case 'R':
			cs.add(fields[i], 'D')
			cs.add(fields[i+1], 'M')
		case 'C':
			cs.add(fields[i+1], 'A')
		default:
			cs.add(fields[i], st[0])
		}
		i += n
	}
	return nil
}

// generatedDirs hold files test runners and package managers write (caches,
// installed dependencies); they are never part of a change, even in a
// repository without a .gitignore for them.
var generatedDirs = map[string]bool{"__pycache__": true, ".pytest_cache": true, "node_modules": true}

// buildDirs are generated only with the layout their tool gives them: a
// Cargo target folder, a virtualenv. The name alone may be a source folder.
var buildDirs = map[string]map[string]bool{
	"target": {"debug": true, "release": true, "doc": true, "tmp": true, "package": true, "CACHEDIR.TAG": true, ".rustc_info.json": true},
	".venv":  {"bin": true, "lib": true, "lib64": true, "include": true, "share": true, "pyvenv.cfg": true},
	"venv":   {"bin": true, "lib": true, "lib64": true, "include": true, "share": true, "pyvenv.cfg": true},
}

func isGenerated(p string) bool {
	parts := strings.Split(p, "/")
	for i, c := range parts[:len(parts)-1] {
		if generatedDirs[c] || buildDirs[c][parts[i+1]] {
			return true
		}
	}
	return false
}

// dropGenerated returns a copy of paths without the generated files (a
// change set handed in by the agent's snapshot, which sees every file).
func dropGenerated(paths []string) []string {
	out := []string{}
	for _, p := range paths {
		if !isGenerated(p) {
			out = append(out, p)
		}
	}
	return out
}

func (cs *ChangeSet) add(p string, status byte) {
	if isGenerated(p) {
		return
	}
	cs.Changed = append(cs.Changed, p)
	switch status {
	case 'A':
		cs.Added = append(cs.Added, p)
	case 'D':
		cs.Deleted = append(cs.Deleted, p)
	}
}

func (cs *ChangeSet) finish() {
	for _, s := range []*[]string{&cs.Changed, &cs.Added, &cs.Deleted} {
		sort.Strings(*s)
		*s = compactStrings(*s)
	}
	if cs.Changed == nil {
		cs.Changed = []string{}
	}
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func splitZ(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}

// dropUnder removes the paths inside dir (chanto's own state folder, when
// it lives in the repository: a home folder under git).
func (cs *ChangeSet) dropUnder(dir string) {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	rel, err := filepath.Rel(cs.Root, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return
	}
	prefix := filepath.ToSlash(rel) + "/"
	keep := func(list []string) []string {
		out := list[:0]
		for _, p := range list {
			if !strings.HasPrefix(p, prefix) {
				out = append(out, p)
			}
		}
		return out
	}
	cs.Changed, cs.Added, cs.Deleted = keep(cs.Changed), keep(cs.Added), keep(cs.Deleted)
}
