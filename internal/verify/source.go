package verify

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/chanto-dev/chanto/internal/git"
	"github.com/chanto-dev/chanto/internal/run"
)

// GitSource reads files as they are in a git revision. It implements
// protect.Source.
type GitSource struct {
	Ctx    context.Context
	Runner *run.Runner
	// Root is the repository's top-level folder.
	Root string
	// Rev is the revision; "" means an empty tree (a repository with no
	// commits), where every file is missing.
	Rev string
	// objs, when set, answers every read through one cat-file process
	// (newGitSource); without it each read is a git call of its own.
	objs *git.Objects
}

// newGitSource is a GitSource whose reads share one git start; Close
// ends it.
func newGitSource(ctx context.Context, r *run.Runner, root, rev string) GitSource {
	return GitSource{Ctx: ctx, Runner: r, Root: root, Rev: rev, objs: git.NewObjects(ctx, r, root)}
}

// Close ends the cat-file process a newGitSource started.
func (s GitSource) Close() { s.objs.Close() }

func (s GitSource) ctx() context.Context {
	if s.Ctx == nil {
		return context.Background()
	}
	return s.Ctx
}

// object reads name through the shared process: found is false when Rev
// has no such object; ok is false when there is no process or it failed,
// and the caller asks git on its own.
func (s GitSource) object(name string) (obj git.Object, found, ok bool) {
	if s.objs == nil || strings.ContainsAny(name, "\n\r") {
		return git.Object{}, false, false
	}
	obj, err := s.objs.Read(name)
	switch {
	case errors.Is(err, git.ErrMissing):
		return git.Object{}, false, true
	case err != nil:
		return git.Object{}, false, false
	}
	return obj, true, true
}

// ReadFile returns the bytes of p (slash-separated, relative to Root) at
// Rev; a path missing there wraps fs.ErrNotExist.
func (s GitSource) ReadFile(p string) ([]byte, error) {
	if s.Rev == "" || !fs.ValidPath(p) {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
	}
	if obj, found, ok := s.object(s.Rev + ":" + p); ok {
		switch {
		case !found:
			return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
		case obj.Type == "blob":
			return obj.Data, nil
		default:
			return nil, fmt.Errorf("git cat-file %s:%s: a %s, not a file", s.Rev, p, obj.Type)
		}
	}
	out, err := git.Output(s.ctx(), s.Runner, s.Root, "cat-file", "blob", s.Rev+":"+p)
	var ge *git.Error
	if errors.As(err, &ge) {
		if m := ge.Msg; strings.Contains(m, "does not exist") || strings.Contains(m, "Not a valid object name") || strings.Contains(m, "exists on disk, but not in") {
			return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
		}
		return nil, fmt.Errorf("git cat-file %s:%s: %s", s.Rev, p, ge.Msg)
	}
	return out, err
}

// ListDir returns the names in folder dir ("." for the root) at Rev, so
// protection reads only the runner configurations that exist.
func (s GitSource) ListDir(dir string) ([]string, error) {
	if s.Rev == "" {
		return nil, nil
	}
	tree := s.Rev + ":"
	if dir != "." && dir != "" {
		tree += dir
	}
	if obj, found, ok := s.object(tree); ok {
		if !found || obj.Type != "tree" {
			return nil, nil // no such folder at Rev
		}
		entries, err := git.ParseTree(obj.ID, obj.Data)
		if err == nil {
			names := make([]string, len(entries))
			for i, e := range entries {
				names[i] = e.Name
			}
			return names, nil
		}
	}
	out, err := git.Output(s.ctx(), s.Runner, s.Root, "ls-tree", "-z", "--name-only", tree)
	var ge *git.Error
	if errors.As(err, &ge) {
		return nil, nil // no such folder at Rev
	}
	if err != nil {
		return nil, err
	}
	return git.Split0(out), nil
}

// Modes returns the tree modes (0o100644, 0o100755, 0o120000, …) of the
// paths at Rev that it can read through the shared process; a path it
// cannot is left out.
func (s GitSource) Modes(paths []string) map[string]uint32 {
	out := map[string]uint32{}
	dirs := map[string][]git.TreeEntry{}
	for _, p := range paths {
		if !fs.ValidPath(p) || p == "." {
			continue
		}
		dir, name := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		entries, seen := dirs[dir]
		if !seen {
			obj, found, ok := s.object(s.Rev + ":" + dir)
			if ok && found && obj.Type == "tree" {
				entries, _ = git.ParseTree(obj.ID, obj.Data)
			}
			dirs[dir] = entries
		}
		for _, e := range entries {
			if e.Name == name {
				out[p] = e.Mode
				break
			}
		}
	}
	return out
}

// DirSource reads files from a folder on disk (the working tree). It
// implements protect.Source.
type DirSource string

// ReadFile returns the bytes of p, slash-separated and relative to the folder.
func (d DirSource) ReadFile(p string) ([]byte, error) {
	if !fs.ValidPath(p) {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
	}
	return os.ReadFile(filepath.Join(string(d), filepath.FromSlash(path.Clean(p))))
}

// ListDir returns the names in folder dir.
func (d DirSource) ListDir(dir string) ([]string, error) {
	return listDir(filepath.Join(string(d), filepath.FromSlash(path.Clean(dir))))
}

func listDir(dir string) ([]string, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name()
	}
	return out, nil
}
