package snapshot

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/chanto-dev/chanto/internal/git"
)

// Digest identifies the content of the tree's changes: two calls return the
// same digest exactly when every changed file has the same bytes and mode.
// It tells "nothing changed since that run" apart from "edited and edited
// back" (same digest again, which is right: the content is the same).
func (s *Snapshot) Digest(c Change) string {
	h := sha256.New()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range c.Modified {
		e := s.seen[p]
		fmt.Fprintf(h, "M %s %s %o\n", p, e.id, e.mode)
	}
	for _, p := range c.Added {
		fmt.Fprintf(h, "A %s %s\n", p, s.currentID(p))
	}
	for _, p := range c.Deleted {
		fmt.Fprintf(h, "D %s\n", p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// currentID hashes an added file, caching by stat like Changes does.
func (s *Snapshot) currentID(p string) string {
	full := filepath.Join(s.root, filepath.FromSlash(p))
	fi, err := os.Lstat(full)
	if err != nil {
		return "missing"
	}
	st := stampOf(fi)
	if e, ok := s.seen[p]; ok && e.st == st {
		return e.id
	}
	data, err := readEntry(s.root, p, fi)
	if err != nil {
		return "unreadable"
	}
	e := entry{id: blobID(data), mode: fi.Mode(), st: st}
	s.seen[p] = e
	return e.id
}

// Paths lists the files recorded, sorted.
func (s *Snapshot) Paths() []string {
	out := make([]string, 0, len(s.base))
	for p := range s.base {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Materialize writes the tree as it was at Take into dir (which should be
// empty): the throwaway copy a full-scope baseline runs in. Clean tracked
// files come from git's object store in one call (no checkout: no filter
// or hook of the repository runs); the rest from the kept bytes.
func (s *Snapshot) Materialize(ctx context.Context, dir string) error {
	var fromGit []string
	for _, p := range s.Paths() {
		e := s.base[p]
		if e.data == nil && e.file == "" && s.git {
			fromGit = append(fromGit, p)
			continue
		}
		data, err := s.ReadFile(p)
		if err != nil {
			return err
		}
		if err := writeOut(filepath.Join(dir, filepath.FromSlash(p)), e.mode, bytes.NewReader(data)); err != nil {
			return err
		}
	}
	if len(fromGit) == 0 {
		return nil
	}
	var ids strings.Builder
	for _, p := range fromGit {
		ids.WriteString(s.base[p].id + "\n")
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.writeBatch(pr, dir, fromGit) }()
	err := git.Run(ctx, s.runner, git.Cmd{Dir: s.root, Args: []string{"cat-file", "--batch"}, Stdin: strings.NewReader(ids.String()), Stdout: pw})
	pw.CloseWithError(err)
	if werr := <-done; err == nil {
		err = werr
	}
	return err
}

// writeBatch reads "git cat-file --batch" output for paths, in order, and
// writes each file under dir. It drains the stream, so git never blocks.
func (s *Snapshot) writeBatch(stream io.Reader, dir string, paths []string) error {
	defer func() { _, _ = io.Copy(io.Discard, stream) }()
	br := bufio.NewReaderSize(stream, 64<<10)
	for _, p := range paths {
		header, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("materialize %s: %w", p, err)
		}
		f := strings.Fields(header)
		if len(f) != 3 || f[0] != s.base[p].id {
			return fmt.Errorf("materialize %s: unexpected cat-file output %q", p, strings.TrimSpace(header))
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return fmt.Errorf("materialize %s: %w", p, err)
		}
		if err := writeOut(filepath.Join(dir, filepath.FromSlash(p)), s.base[p].mode, io.LimitReader(br, size)); err != nil {
			return err
		}
		if _, err := br.Discard(1); err != nil {
			return err
		}
	}
	return nil
}

// writeOut creates one file (or symlink) of the copy.
func writeOut(dst string, mode fs.FileMode, content io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	_ = os.Remove(dst)
	if mode&fs.ModeSymlink != 0 {
		target, err := io.ReadAll(content)
		if err != nil {
			return err
		}
		return os.Symlink(string(target), dst)
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode.Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(f, content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
