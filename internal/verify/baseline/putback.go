package baseline

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/chanto-dev/chanto/internal/config"

	"github.com/chanto-dev/chanto/internal/durable"
)

// File is one changed file and what it was at the base.
type File struct {
	// Path is relative to the project root, slash- or OS-separated.
	Path string
	// Base is the content at the base; nil means the file did not exist
	// there, so the putback removes it. For a symlink it is the target.
	Base []byte
	// Mode is the base file's mode (permission bits; fs.ModeSymlink for a
	// symlink). Zero means 0644.
	Mode fs.FileMode
}

// PutbackOptions describe one putback.
type PutbackOptions struct {
	// Root is the project root the paths are relative to.
	Root string
	// Files are the changed files with their base content.
	Files []File
	// HistoryDir holds the putback saves; empty means config.HistoryDir().
	HistoryDir string
	// Watcher is the argv that starts the watcher; the save folder is
	// appended. Empty means this executable with WatchCommand.
	Watcher []string
}

// WatchCommand is the hidden subcommand that runs Watch.
const WatchCommand = "__putback-watch"

// testHook, when set by tests, hears each step of a putback.
var testHook func(step string)

func step(name string) {
	if testHook != nil {
		testHook(name)
	}
}

// Putback puts opts.Files back to their base content, calls run, and
// restores the changed versions, whatever run does (errors, panics, edits to
// the same files: the saved version wins). Before the tree is touched, the
// changed versions are saved durably under HistoryDir/putback/ and a
// watcher process is started that restores them if this process dies; a
// save neither of them finished is restored by Recover at the next start.
// An error from the restore says where the saved copies are.
//
// Putbacks of one project never overlap: a second one waits for the first
// (or for ctx), and any earlier save for the same files that is still
// pending (its chanto and watcher both gone) is restored first, so a
// putback never saves another putback's base versions as "current".
func Putback(ctx context.Context, opts PutbackOptions, run func(context.Context) error) (err error) {
	root, files, err := checkFiles(opts.Root, opts.Files)
	if err != nil {
		return err
	}
	hist := opts.HistoryDir
	if hist == "" {
		hist = config.HistoryDir()
	}
	if len(files) == 0 {
		return run(ctx)
	}
	parent := filepath.Join(hist, "putback")
	unlock, err := lockProject(ctx, parent, root)
	if err != nil {
		return fmt.Errorf("putback: %w", err)
	}
	defer unlock()
	if err := settleOverlapping(ctx, parent, root); err != nil {
		return fmt.Errorf("putback: %w", err)
	}
	p, err := newSave(parent, root)
	if err != nil {
		return fmt.Errorf("putback: %w", err)
	}
	step("locked")
	w, err := startWatcher(opts.Watcher, p.dir)
	if err != nil {
		p.abandon()
		return fmt.Errorf("putback: start watcher: %w", err)
	}
	step("watching")
	if err := p.save(files); err != nil {
		p.abandon()
		w.finish(true)
		return fmt.Errorf("putback: save changed files: %w", err)
	}
	step("saved")
	defer func() {
		step("restoring")
		rerr := p.restore()
		w.finish(rerr == nil)
		if rerr != nil {
			err = errors.Join(err, rerr)
		}
		step("restored")
	}()
	if err := p.putBase(files); err != nil {
		return fmt.Errorf("putback: %w", err)
	}
	step("put back")
	return run(ctx)
}

// checkFiles resolves root and refuses paths that leave it.
func checkFiles(root string, files []File) (string, []File, error) {
	if root == "" {
		return "", nil, errors.New("putback: no project root")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", nil, fmt.Errorf("putback: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", nil, fmt.Errorf("putback: project root: %w", err)
	}
	seen := map[string]bool{}
	out := make([]File, 0, len(files))
	for _, f := range files {
		rel := filepath.Clean(filepath.FromSlash(f.Path))
		if !filepath.IsLocal(rel) {
			return "", nil, fmt.Errorf("putback: %q is not a path inside %s", f.Path, real)
		}
		if seen[rel] {
			return "", nil, fmt.Errorf("putback: %q listed twice", f.Path)
		}
		seen[rel] = true
		if err := insideRoot(real, rel); err != nil {
			return "", nil, err
		}
		f.Path = filepath.ToSlash(rel)
		out = append(out, f)
	}
	return real, out, nil
}

// insideRoot refuses a path whose existing parent folders lead out of root
// through a symlink.
func insideRoot(root, rel string) error {
	parent := filepath.Join(root, filepath.Dir(rel))
	for {
		real, err := filepath.EvalSymlinks(parent)
		if err == nil {
			r, err := filepath.Rel(root, real)
			if err != nil || !filepath.IsLocal(r) && r != "." {
				return fmt.Errorf("putback: %s leads outside %s", rel, root)
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) || parent == root {
			return fmt.Errorf("putback: %s: %w", rel, err)
		}
		parent = filepath.Dir(parent)
	}
}

// save is one putback in progress; it holds the save folder's lock.
type save struct {
	dir  string
	root string
	t    *tree
	lock *os.File
	m    *manifest
}

// newSave creates and locks an empty save folder named after this pid.
func newSave(parent, root string) (*save, error) {
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, err
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	id := strconv.Itoa(os.Getpid()) + "-" + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(rnd[:])
	dir := filepath.Join(parent, id)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	lock, err := lockDir(dir, false)
	if err != nil {
		os.Remove(dir)
		return nil, err
	}
	if err := durable.SyncDir(parent); err != nil {
		lock.Close()
		os.Remove(dir)
		return nil, err
	}
	t, err := openTree(root)
	if err != nil {
		lock.Close()
		os.Remove(dir)
		return nil, err
	}
	return &save{dir: dir, root: root, t: t, lock: lock}, nil
}

// save copies the current version of every file into the folder and
// commits the manifest. The tree is not touched.
func (p *save) save(files []File) error {
	m := &manifest{Version: 1, Root: p.root, PID: os.Getpid(), Created: time.Now().UTC()}
	for i, f := range files {
		sf, err := saveCurrent(p.t, filepath.FromSlash(f.Path), p.dir, fmt.Sprintf("%04d.blob", i))
		if err != nil {
			return err
		}
		m.Files = append(m.Files, sf)
		if f.Base != nil {
			m.MadeDirs = append(m.MadeDirs, missingDirs(p.t, f.Path, m.MadeDirs)...)
		}
	}
	if err := durable.SyncDir(p.dir); err != nil {
		return err
	}
	if err := writeManifest(p.dir, m); err != nil {
		return err
	}
	p.m = m
	return nil
}

// missingDirs lists the parent folders of rel that do not exist yet.
func missingDirs(t *tree, rel string, known []string) []string {
	var out []string
	for d := filepath.Dir(filepath.FromSlash(rel)); d != "."; d = filepath.Dir(d) {
		if _, err := t.root.Lstat(d); err == nil {
			break
		}
		s := filepath.ToSlash(d)
		dup := false
		for _, k := range append(known, out...) {
			dup = dup || k == s
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}

// putBase writes the base versions into the tree.
func (p *save) putBase(files []File) error {
	for i, f := range files {
		rel := filepath.FromSlash(f.Path)
		if f.Base == nil {
			if err := removeFile(p.t, rel); err != nil {
				return err
			}
			continue
		}
		mode := permBits(f.Mode)
		if f.Mode == 0 {
			mode = 0o644
		}
		sf := p.m.Files[i]
		uid, gid := -1, -1
		if sf.Kind != kindAbsent {
			uid, gid = sf.UID, sf.GID
		}
		symlink := f.Mode&fs.ModeSymlink != 0
		if err := replaceFile(p.t, rel, bytes.NewReader(f.Base), mode, symlink, uid, gid, false); err != nil {
			return err
		}
	}
	return nil
}

// restore puts the saved versions back and removes the save; on failure
// the save stays for the watcher and Recover, and the error says where.
func (p *save) restore() error {
	defer p.lock.Close()
	defer p.t.close()
	if _, err := restoreSave(p.dir, p.m); err != nil {
		return fmt.Errorf("putback: restore changed files: %w (saved copies kept in %s)", err, p.dir)
	}
	if err := removeSave(p.dir); err != nil {
		return fmt.Errorf("putback: remove save %s: %w", p.dir, err)
	}
	return nil
}

// abandon drops a save whose manifest was never committed: the tree is as
// it was, so the folder holds nothing needed.
func (p *save) abandon() {
	_ = removeSave(p.dir)
	p.t.close()
	p.lock.Close()
}
