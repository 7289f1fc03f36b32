package snapshot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/chanto-dev/chanto/internal/run"
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
// files come from git's index in one call; the rest from the kept bytes.
func (s *Snapshot) Materialize(ctx context.Context, dir string) error {
	if s.git {
		res, err := s.runner.Run(ctx, run.Spec{
			Args: []string{"git", "checkout-index", "--all", "--force", "--prefix=" + dir + string(filepath.Separator)},
			Dir:  s.root, Purpose: run.Internal,
		})
		if err != nil {
			return err
		}
		if res.ExitCode != 0 {
			return fmt.Errorf("git checkout-index: %s", res.Output)
		}
	}
	for _, p := range s.Paths() {
		e := s.base[p]
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if e.data == nil && e.file == "" {
			if s.git {
				continue // written by checkout-index
			}
		}
		data, err := s.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		_ = os.Remove(dst)
		if e.mode&fs.ModeSymlink != 0 {
			if err := os.Symlink(string(data), dst); err != nil {
				return err
			}
			continue
		}
		if err := os.WriteFile(dst, data, e.mode.Perm()); err != nil {
			return err
		}
	}
	if !s.git {
		return nil
	}
	// Files in the index that were already deleted when the turn started.
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if _, ok := s.base[filepath.ToSlash(rel)]; !ok {
			return os.Remove(p)
		}
		return nil
	})
}
