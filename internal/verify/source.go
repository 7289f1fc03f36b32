package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
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
	// pre holds the files Prefetch read.
	pre *prefetched
}

// prefetched holds base files read in one git start: their bytes, or
// that Rev has no such path.
type prefetched struct {
	files   map[string][]byte
	missing map[string]bool
}

// Prefetch reads paths at Rev with one git start (cat-file --batch), so
// ReadFile answers them without a start each; a path that is no file at
// Rev (a folder, a submodule) is left for ReadFile to ask about. A
// failure only leaves the files to ReadFile.
func (s *GitSource) Prefetch(paths []string) {
	if s.Rev == "" || len(paths) == 0 {
		return
	}
	ctx := s.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	var in strings.Builder
	var asked []string
	for _, p := range paths {
		if fs.ValidPath(p) && !strings.ContainsAny(p, "\n\r") {
			in.WriteString(s.Rev + ":" + p + "\n")
			asked = append(asked, p)
		}
	}
	var out bytes.Buffer
	if git.Run(ctx, s.Runner, git.Cmd{Dir: s.Root, Args: []string{"cat-file", "--batch"}, Stdin: strings.NewReader(in.String()), Stdout: &out}) != nil {
		return
	}
	pre := &prefetched{files: map[string][]byte{}, missing: map[string]bool{}}
	b := out.Bytes()
	for _, p := range asked {
		header, rest, ok := bytes.Cut(b, []byte("\n"))
		if !ok {
			return
		}
		if string(header) == s.Rev+":"+p+" missing" {
			pre.missing[p], b = true, rest
			continue
		}
		f := strings.Fields(string(header))
		if len(f) != 3 {
			return // ambiguous or unreadable: leave it all to ReadFile
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 || size+1 > len(rest) || rest[size] != '\n' {
			return
		}
		if f[1] == "blob" {
			pre.files[p] = rest[:size:size]
		}
		b = rest[size+1:]
	}
	s.pre = pre
}

// ReadFile returns the bytes of p (slash-separated, relative to Root) at
// Rev; a path missing there wraps fs.ErrNotExist.
func (s GitSource) ReadFile(p string) ([]byte, error) {
	if s.Rev == "" || !fs.ValidPath(p) {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
	}
	if s.pre != nil {
		if b, ok := s.pre.files[p]; ok {
			return bytes.Clone(b), nil
		}
		if s.pre.missing[p] {
			return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
		}
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
