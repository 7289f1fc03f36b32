// Package snapshot records a project tree at the start of a turn and tells,
// after any tool call, which files differ from it — however they changed:
// edit tools, shell commands, generators or subagents.
//
// Content is identified by git blob ids. In a git repository the ids of
// clean tracked files come from the index without reading the files, so a
// snapshot of a large repository costs two git calls, one lstat per file and
// hashing only the files that were already dirty. The original bytes of
// every file stay retrievable (dirty and untracked ones are kept, clean ones
// are in git's object store), which is what test protection and the putback
// baseline compare against and write back.
package snapshot

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/chanto-dev/chanto/internal/git"
	"github.com/chanto-dev/chanto/internal/run"
)

// maxKept bounds the bytes held in memory for dirty and untracked files; past
// it, further originals are copied into a temp folder instead.
const maxKept = 32 << 20

// Snapshot is a tree as it was when Take ran.
type Snapshot struct {
	root   string
	git    bool
	runner *run.Runner
	// ctx is Take's, for ReadFile: protect.Source has no context, and an
	// interrupted turn must not wait on git.
	ctx context.Context

	mu    sync.Mutex
	base  map[string]entry // path → state at Take
	seen  map[string]entry // path → last observed state, to skip rehashing
	kept  int
	spill string // temp folder for originals past maxKept

	// w, when set, tells which paths may have changed since the last
	// check; last is that check's result.
	w        *watcher
	last     Change
	haveLast bool
	scans    int // full scans so far (tests)
}

type entry struct {
	id   string // git blob id (hex)
	mode fs.FileMode
	st   stamp
	data []byte // original bytes, when kept in memory
	file string // original bytes spilled to this file
}

// stamp is what lstat says about a file; equal stamps mean unchanged content.
type stamp struct {
	size  int64
	mtime int64
	ctime int64
	ino   uint64
	mode  fs.FileMode
}

func stampOf(fi fs.FileInfo) stamp {
	s := stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode()}
	s.ino, s.ctime = inodeAndCtime(fi)
	return s
}

// Change is the difference between a snapshot and the current tree, as
// slash-separated paths relative to the root, each list sorted.
type Change struct {
	Modified []string
	Added    []string
	Deleted  []string
}

// All returns every changed path, sorted.
func (c Change) All() []string {
	all := slices.Concat(c.Modified, c.Added, c.Deleted)
	slices.Sort(all)
	return all
}

// Empty reports whether nothing changed.
func (c Change) Empty() bool { return len(c.Modified)+len(c.Added)+len(c.Deleted) == 0 }

// Take records root. Files git ignores are not part of the snapshot; in a
// folder that is not a git repository every file is, except .git and
// node_modules folders.
func Take(ctx context.Context, r *run.Runner, root string) (*Snapshot, error) {
	return take(ctx, r, root, true)
}

// TakeToSave is Take for a process that saves the snapshot and exits
// (another agent's hook): no watcher is started, as none would outlive it.
func TakeToSave(ctx context.Context, r *run.Runner, root string) (*Snapshot, error) {
	return take(ctx, r, root, false)
}

func take(ctx context.Context, r *run.Runner, root string, watch bool) (*Snapshot, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{root: root, runner: r, ctx: ctx, base: map[string]entry{}, seen: map[string]entry{}}
	index, err := s.gitIndex(ctx)
	s.git = err == nil
	paths, err := s.list(ctx)
	if errors.Is(err, errNotGit) && s.git {
		// The index was read in-process, but git refuses the tree (or is
		// missing): a plain folder, as when git's own index read fails.
		s.git, index = false, nil
		paths, err = s.list(ctx)
	}
	if err != nil {
		return nil, err
	}
	infos := lstatAll(root, paths)
	for i, p := range paths {
		fi := infos[i]
		if fi == nil {
			continue
		}
		e := entry{mode: fi.Mode(), st: stampOf(fi)}
		if id, ok := index[p]; ok && id.clean(fi) {
			e.id = id.blob
		} else {
			data, err := readEntry(root, p, fi)
			if err != nil {
				continue
			}
			e.id = blobID(data)
			if err := s.keep(&e, data); err != nil {
				return nil, err
			}
		}
		s.base[p] = e
	}
	if watch {
		s.watch(paths)
	}
	return s, nil
}

// watch starts the inotify watcher; without it every check is a full scan.
func (s *Snapshot) watch(paths []string) {
	w, err := newWatcher(s.root)
	if err != nil {
		return
	}
	if err := w.add(paths); err != nil {
		w.close()
		return
	}
	s.w = w
}

// Root is the folder the snapshot was taken of.
func (s *Snapshot) Root() string { return s.root }

// Len is the number of files recorded.
func (s *Snapshot) Len() int { return len(s.base) }

// Has reports whether path existed at Take.
func (s *Snapshot) Has(path string) bool {
	_, ok := s.base[path]
	return ok
}

// Mode returns path's mode at Take.
func (s *Snapshot) Mode(path string) (fs.FileMode, bool) {
	e, ok := s.base[path]
	return e.mode, ok
}

// ReadFile returns path's bytes as they were at Take, or an error wrapping
// fs.ErrNotExist if it did not exist. It satisfies protect.Source.
func (s *Snapshot) ReadFile(path string) ([]byte, error) {
	s.mu.Lock()
	e, ok := s.base[path]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	switch {
	case e.data != nil:
		return e.data, nil
	case e.file != "":
		return os.ReadFile(e.file)
	}
	out, err := git.Output(s.ctx, s.runner, s.root, "cat-file", "blob", e.id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// Changes compares the current tree with the snapshot. When the watcher
// can say which paths were touched since the last check, only those are
// looked at; otherwise the whole tree is scanned (see Rescan).
func (s *Snapshot) Changes(ctx context.Context) (Change, error) {
	s.mu.Lock()
	if s.w != nil && s.haveLast {
		if paths, ok := s.w.drain(); ok {
			c, err := s.update(ctx, paths)
			s.mu.Unlock()
			if err == nil {
				return c, nil
			}
			return s.Rescan(ctx)
		}
	}
	s.mu.Unlock()
	return s.Rescan(ctx)
}

// ChangedPaths is Changes as the paths of every change, sorted: what a
// gate asks after its checks ran, to name the files they wrote
// (verify.Options.ChangedNow).
func (s *Snapshot) ChangedPaths(ctx context.Context) ([]string, error) {
	c, err := s.Changes(ctx)
	if err != nil {
		return nil, err
	}
	return c.All(), nil
}

// Rescan compares the whole current tree with the snapshot, whatever the
// watcher says: the check a turn's final answer relies on.
func (s *Snapshot) Rescan(ctx context.Context) (Change, error) {
	if s.w != nil {
		s.w.drain() // events before this scan are covered by it
	}
	s.scans++
	paths, err := s.list(ctx)
	if err != nil {
		return Change{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w != nil {
		if err := s.w.add(paths); err != nil {
			s.w.close()
			s.w = nil
		}
	}
	var c Change
	present := make(map[string]bool, len(paths))
	infos := lstatAll(s.root, paths)
	for i, p := range paths {
		fi := infos[i]
		if fi == nil {
			continue
		}
		present[p] = true
		if _, existed := s.base[p]; !existed {
			c.Added = append(c.Added, p)
		} else if s.differs(p, fi) {
			c.Modified = append(c.Modified, p)
		}
	}
	for p := range s.base {
		if !present[p] {
			c.Deleted = append(c.Deleted, p)
		}
	}
	slices.Sort(c.Modified)
	slices.Sort(c.Added)
	slices.Sort(c.Deleted)
	s.last, s.haveLast = c, true
	return c.clone(), nil
}

// Close stops the watcher and removes spilled originals.
func (s *Snapshot) Close() error {
	if s.w != nil {
		s.w.close()
	}
	if s.spill == "" {
		return nil
	}
	return os.RemoveAll(s.spill)
}

func (s *Snapshot) keep(e *entry, data []byte) error {
	if s.kept+len(data) <= maxKept {
		e.data = data
		if e.data == nil {
			e.data = []byte{}
		}
		s.kept += len(data)
		return nil
	}
	if s.spill == "" {
		dir, err := os.MkdirTemp("", "chanto-snapshot-")
		if err != nil {
			return err
		}
		s.spill = dir
	}
	e.file = filepath.Join(s.spill, e.id)
	return os.WriteFile(e.file, data, 0o600)
}

// lstatAll stats paths in parallel (lstat dominates the cost of a change
// check on a large tree). Entries that are missing or neither regular files
// nor symlinks are nil.
func lstatAll(root string, paths []string) []fs.FileInfo {
	infos := make([]fs.FileInfo, len(paths))
	workers := min(runtime.GOMAXPROCS(0)*2, 1+len(paths)/512)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(paths); i += workers {
				fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(paths[i])))
				if err == nil && (fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0) {
					infos[i] = fi
				}
			}
		}()
	}
	wg.Wait()
	return infos
}

// readEntry reads a file's bytes, or a symlink's target as git stores it.
func readEntry(root, p string, fi fs.FileInfo) ([]byte, error) {
	full := filepath.Join(root, filepath.FromSlash(p))
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(full)
		return []byte(target), err
	}
	return os.ReadFile(full)
}

// blobID is git's object id of data as a blob.
func blobID(data []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

var errNotGit = errors.New("not a git work tree")
