package sandbox

import (
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/git"
)

// NewGit returns the sandbox chanto's own git runs in (run.Runner's
// GitSandbox): the read-only mode with no network, whatever [sandbox]
// says, so a filter, hook, helper or transport that a repository's
// configuration names cannot write anywhere, reach the network, or see a
// process of the host. The repository's folders (its git folder, a linked
// worktree's common folder, alternate object stores) are bound read-only
// even where the sandbox would hide them (under /tmp).
func NewGit(root string, opts ...Option) (*Sandbox, error) {
	s, err := New(config.Sandbox{Mode: ModeReadOnly, Network: NetDeny}, root, opts...)
	if err != nil {
		return nil, err
	}
	s.readable = git.Folders(s.root)
	return s, nil
}
