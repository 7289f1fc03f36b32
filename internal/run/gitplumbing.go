package run

import "slices"

// readOnlyGit are the git subcommands chanto itself uses to read a
// repository (snapshot, change set). They only read the index, the object
// store and the work tree, so they run outside the sandbox, which saves a
// namespace set-up per call (tens of milliseconds) on every turn.
var readOnlyGit = []string{"ls-files", "diff-files", "diff", "rev-parse", "cat-file", "check-ignore", "rev-list", "merge-base"}

// gitHardening turns off the repository settings through which a read
// could run a program the project chose: an fsmonitor hook, hooks, external
// diff and textconv drivers. Command-line -c settings override the
// repository's .git/config.
var gitHardening = []string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "diff.external=", "-c", "core.untrackedCache=false"}

// plainGit reports whether spec is chanto's own read-only git plumbing, and
// returns its argv with the hardening settings added.
func plainGit(spec Spec) ([]string, bool) {
	if spec.Purpose != Internal || len(spec.Args) < 2 || spec.Args[0] != "git" {
		return nil, false
	}
	i := 1
	for i < len(spec.Args) {
		switch a := spec.Args[i]; {
		case (a == "-c" || a == "-C") && i+1 < len(spec.Args):
			i += 2
			continue
		case a == "--no-pager" || a == "--literal-pathspecs" || a == "--no-optional-locks":
			i++
			continue
		}
		break
	}
	if i >= len(spec.Args) || !slices.Contains(readOnlyGit, spec.Args[i]) {
		return nil, false
	}
	args := slices.Concat([]string{"git"}, gitHardening, spec.Args[1:i], spec.Args[i:])
	if spec.Args[i] == "diff" {
		args = slices.Insert(args, len(gitHardening)+i+1, "--no-ext-diff", "--no-textconv")
	}
	return args, true
}
