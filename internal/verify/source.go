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
}

// ReadFile returns the bytes of p (slash-separated, relative to Root) at
// Rev; a path missing there wraps fs.ErrNotExist.
func (s GitSource) ReadFile(p string) ([]byte, error) {
	if s.Rev == "" || !fs.ValidPath(p) {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
	}
	ctx := s.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	out, err := git.Output(ctx, s.Runner, s.Root, "cat-file", "blob", s.Rev+":"+p)
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
	ctx := s.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	tree := s.Rev + ":"
	if dir != "." && dir != "" {
		tree += dir
	}
	out, err := git.Output(ctx, s.Runner, s.Root, "ls-tree", "-z", "--name-only", tree)
	var ge *git.Error
	if errors.As(err, &ge) {
		return nil, nil // no such folder at Rev
	}
	if err != nil {
		return nil, err
	}
	return git.Split0(out), nil
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
