package snapshot

import (
	"context"
	"encoding/gob"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/chanto-dev/chanto/internal/durable"
	"github.com/chanto-dev/chanto/internal/run"
)

// A snapshot saved to a folder outlives the process that took it: another
// agent's hooks run chanto once per event, so the turn-start snapshot taken
// at one event is read back at the next. The folder holds the manifest
// (path, blob id, mode, lstat stamp) and the bytes of the files git's object
// store does not have (dirty and untracked ones), one file per blob id.

const manifestName = "snapshot.gob"

// savedEntry is an entry as the manifest stores it.
type savedEntry struct {
	ID    string
	Mode  fs.FileMode
	Size  int64
	MTime int64
	CTime int64
	Ino   uint64
	SMode fs.FileMode
	// Kept is set when the original bytes are in the folder (objects/ID).
	Kept bool
}

type manifest struct {
	Root    string
	Git     bool
	Entries map[string]savedEntry
}

// Save writes the snapshot into dir (created if needed), so Load can read
// it back in another process.
func (s *Snapshot) Save(dir string) error {
	objects := filepath.Join(dir, "objects")
	if err := os.MkdirAll(objects, 0o700); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := manifest{Root: s.root, Git: s.git, Entries: make(map[string]savedEntry, len(s.base))}
	for p, e := range s.base {
		se := savedEntry{ID: e.id, Mode: e.mode, Size: e.st.size, MTime: e.st.mtime, CTime: e.st.ctime, Ino: e.st.ino, SMode: e.st.mode}
		if e.data != nil || e.file != "" {
			se.Kept = true
			if err := saveObject(objects, e); err != nil {
				return fmt.Errorf("save %s: %w", p, err)
			}
		}
		m.Entries[p] = se
	}
	f, err := os.CreateTemp(dir, manifestName+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := gob.NewEncoder(f).Encode(m); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, manifestName))
}

// saveObject writes one kept original under its blob id (once: the id
// names the content).
func saveObject(objects string, e entry) error {
	dst := filepath.Join(objects, e.id)
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	data := e.data
	if data == nil {
		var err error
		if data, err = os.ReadFile(e.file); err != nil {
			return err
		}
	}
	return durable.WriteFile(dst, data, 0o600)
}

// Load reads a snapshot Save wrote into dir. It has no watcher: every
// change check scans the tree.
func Load(ctx context.Context, r *run.Runner, dir string) (*Snapshot, error) {
	f, err := os.Open(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var m manifest
	if err := gob.NewDecoder(f).Decode(&m); err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", dir, err)
	}
	s := &Snapshot{root: m.Root, git: m.Git, runner: r, ctx: ctx, base: make(map[string]entry, len(m.Entries)), seen: map[string]entry{}}
	objects := filepath.Join(dir, "objects")
	for p, se := range m.Entries {
		e := entry{id: se.ID, mode: se.Mode, st: stamp{size: se.Size, mtime: se.MTime, ctime: se.CTime, ino: se.Ino, mode: se.SMode}}
		if se.Kept {
			e.file = filepath.Join(objects, se.ID)
		}
		s.base[p] = e
	}
	return s, nil
}
