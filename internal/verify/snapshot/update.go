package snapshot

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/git"
)

// clone copies c so callers cannot disturb the cached last result.
func (c Change) clone() Change {
	return Change{Modified: slices.Clone(c.Modified), Added: slices.Clone(c.Added), Deleted: slices.Clone(c.Deleted)}
}

// update revises the last change set for the paths the watcher reported.
// The caller holds s.mu.
func (s *Snapshot) update(ctx context.Context, paths []string) (Change, error) {
	if len(paths) == 0 {
		return s.last.clone(), nil
	}
	modified, added, deleted := setOf(s.last.Modified), setOf(s.last.Added), setOf(s.last.Deleted)
	var candidates []string // new files, kept unless ignored
	for _, p := range uniq(paths) {
		delete(modified, p)
		delete(added, p)
		delete(deleted, p)
		fi, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(p)))
		if err != nil || !(fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0) {
			if _, ok := s.base[p]; ok {
				deleted[p] = true
			}
			continue
		}
		if _, ok := s.base[p]; ok {
			if s.differs(p, fi) {
				modified[p] = true
			}
			continue
		}
		candidates = append(candidates, p)
	}
	kept, err := s.notIgnored(ctx, candidates)
	if err != nil {
		return Change{}, err
	}
	for _, p := range kept {
		added[p] = true
	}
	c := Change{Modified: sortedKeys(modified), Added: sortedKeys(added), Deleted: sortedKeys(deleted)}
	s.last = c
	return c.clone(), nil
}

// differs reports whether an existing file's content or mode moved from
// the snapshot, hashing only when lstat says it may have.
func (s *Snapshot) differs(p string, fi fs.FileInfo) bool {
	base := s.base[p]
	st := stampOf(fi)
	if st == base.st {
		return false
	}
	if seen, ok := s.seen[p]; ok && seen.st == st {
		return seen.id != base.id || seen.mode != base.mode
	}
	data, err := readEntry(s.root, p, fi)
	if err != nil {
		return true
	}
	now := entry{id: blobID(data), mode: fi.Mode(), st: st}
	s.seen[p] = now
	return now.id != base.id || now.mode != base.mode
}

// notIgnored drops the paths git ignores (or, outside git, those under
// .git and node_modules, which a scan skips too).
func (s *Snapshot) notIgnored(ctx context.Context, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if !s.git {
		return slices.DeleteFunc(paths, func(p string) bool {
			return slices.ContainsFunc(strings.Split(p, "/"), func(c string) bool { return c == ".git" || c == "node_modules" })
		}), nil
	}
	var out bytes.Buffer
	err := git.Run(ctx, s.runner, git.Cmd{Dir: s.root, Args: []string{"check-ignore", "-z", "--stdin"},
		Stdin: strings.NewReader(strings.Join(paths, "\x00") + "\x00"), Stdout: &out})
	var ge *git.Error
	if errors.As(err, &ge) && ge.ExitCode == 1 {
		err = nil // 1 means none is ignored
	}
	if errors.As(err, &ge) {
		return nil, errNotGit
	}
	if err != nil {
		return nil, err
	}
	ignored := setOf(split0(out.Bytes()))
	return slices.DeleteFunc(paths, func(p string) bool { return ignored[p] }), nil
}

func setOf(ps []string) map[string]bool {
	m := make(map[string]bool, len(ps))
	for _, p := range ps {
		m[p] = true
	}
	return m
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func uniq(ps []string) []string {
	ps = slices.Clone(ps)
	slices.Sort(ps)
	return slices.Compact(ps)
}
