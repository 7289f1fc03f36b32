package baseline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/chanto-dev/chanto/internal/durable"
)

// The save directory of one putback holds one blob per changed file and,
// written last, manifest.json. The manifest is the commit point: the tree is
// touched only after it is durable, so a save directory without one is
// leftover from an interrupted save and holds nothing the user needs.
const manifestName = "manifest.json"

// Kinds of a saved entry.
const (
	kindFile    = "file"
	kindSymlink = "symlink"
	kindAbsent  = "absent"
)

type manifest struct {
	Version int         `json:"version"`
	Root    string      `json:"root"`
	PID     int         `json:"pid"`
	Created time.Time   `json:"created"`
	Files   []savedFile `json:"files"`
	// MadeDirs are folders the putback had to create for base files; the
	// restore removes them again when they are empty, deepest first.
	MadeDirs []string `json:"made_dirs,omitempty"`
}

type savedFile struct {
	Path   string `json:"path"` // slash-separated, relative to Root
	Kind   string `json:"kind"`
	Mode   uint32 `json:"mode,omitempty"` // fs.FileMode permission and special bits
	UID    int    `json:"uid,omitempty"`
	GID    int    `json:"gid,omitempty"`
	Size   int64  `json:"size,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	Blob   string `json:"blob,omitempty"` // file name inside the save directory
}

// permBits keeps what chmod can set: permissions, setuid, setgid, sticky.
func permBits(m fs.FileMode) fs.FileMode {
	return m & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// saveCurrent copies the current state of rel into dir as blob name,
// fsyncing it, and describes it. A path through a symlinked folder is
// refused: what is there is not the project's file.
func saveCurrent(t *tree, rel, dir, blob string) (savedFile, error) {
	sf := savedFile{Path: rel, Kind: kindAbsent}
	if err := t.checkFolders(rel); err != nil {
		return sf, err
	}
	fi, err := t.root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return sf, nil
	}
	if err != nil {
		return sf, err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		sf.UID, sf.GID = int(st.Uid), int(st.Gid)
	}
	sf.Mode = uint32(permBits(fi.Mode()))
	var content io.Reader
	switch {
	case fi.Mode().IsRegular():
		f, err := t.root.OpenFile(rel, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
		if err != nil {
			return sf, err
		}
		defer f.Close()
		sf.Kind, content = kindFile, f
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := t.root.Readlink(rel)
		if err != nil {
			return sf, err
		}
		sf.Kind, content = kindSymlink, strings.NewReader(target)
	default:
		return sf, fmt.Errorf("%s: not a regular file (%s)", rel, fi.Mode().Type())
	}
	sf.Blob = blob
	sum, n, err := durable.Write(filepath.Join(dir, blob), content, 0o600)
	if err != nil {
		return sf, err
	}
	sf.SHA256, sf.Size = sum, n
	return sf, nil
}

// writeManifest commits m into dir atomically.
func writeManifest(dir string, m *manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, manifestName+".tmp")
	if _, _, err := durable.Write(tmp, bytes.NewReader(data), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, manifestName)); err != nil {
		return err
	}
	return durable.SyncDir(dir)
}

// readManifest loads dir's manifest; fs.ErrNotExist means there is none.
func readManifest(dir string) (*manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, manifestName), err)
	}
	if m.Version != 1 || !filepath.IsAbs(m.Root) {
		return nil, fmt.Errorf("%s: unknown manifest version or relative root", filepath.Join(dir, manifestName))
	}
	for _, f := range m.Files {
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) || (f.Blob != "" && !filepath.IsLocal(f.Blob)) {
			return nil, fmt.Errorf("%s: bad path %q", filepath.Join(dir, manifestName), f.Path)
		}
	}
	return &m, nil
}

// verifySave checks every blob against its recorded sha256, so a damaged
// save is never written over the user's files.
func verifySave(dir string, m *manifest) error {
	for _, f := range m.Files {
		if f.Kind == kindAbsent {
			continue
		}
		sum, n, err := hashFile(filepath.Join(dir, f.Blob))
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		if sum != f.SHA256 || n != f.Size {
			return fmt.Errorf("%s: saved copy does not match its checksum", f.Path)
		}
	}
	return nil
}

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// tempName is the side file used to replace rel atomically. It is derived
// from the name, so a restore can clean up one left by an interrupted write.
func tempName(rel string) string {
	sum := sha256.Sum256([]byte(filepath.Base(rel)))
	return filepath.Join(filepath.Dir(rel), ".chanto-putback-"+hex.EncodeToString(sum[:6])+".tmp")
}

// replaceFile atomically puts content with mode (a regular file, or a
// symlink whose target is content) at rel. fsync flushes the file first.
// The file gets a fresh mtime on purpose: build outputs made from the base
// versions during the baseline run must look older than the restored
// sources, or make and friends would keep them.
func replaceFile(t *tree, rel string, content io.Reader, mode fs.FileMode, symlink bool, uid, gid int, fsync bool) error {
	if err := t.mkdirs(rel); err != nil {
		return err
	}
	tmp := tempName(rel)
	_ = t.root.Remove(tmp)
	if symlink {
		target, err := io.ReadAll(content)
		if err != nil {
			return err
		}
		if err := t.root.Symlink(string(target), tmp); err != nil {
			return err
		}
	} else if err := writeNew(t, tmp, content, mode, fsync); err != nil {
		_ = t.root.Remove(tmp)
		return err
	}
	if uid >= 0 {
		// Keep the owner when running as root on someone else's file;
		// without the privilege this fails and the file is ours anyway.
		_ = t.root.Lchown(tmp, uid, gid)
		if !symlink {
			_ = t.root.Chmod(tmp, mode) // chown clears setuid/setgid
		}
	}
	if err := t.checkFolders(rel); err != nil {
		_ = t.root.Remove(tmp)
		return err
	}
	if err := t.root.Rename(tmp, rel); err != nil {
		_ = t.root.Remove(tmp)
		return err
	}
	return nil
}

// writeNew creates the side file tmp (never through an existing entry).
func writeNew(t *tree, tmp string, content io.Reader, mode fs.FileMode, fsync bool) error {
	f, err := t.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, content)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil && fsync {
		err = durable.Sync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeFast(path string, content io.Reader, mode fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, content)
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeFile deletes rel when it is not a directory; a folder the test run
// created under that name is left alone rather than deleted with its content.
func removeFile(t *tree, rel string) error {
	if err := t.checkFolders(rel); err != nil {
		return err
	}
	fi, err := t.root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%s: is a folder now; left in place", rel)
	}
	return t.root.Remove(rel)
}

// restoreSave writes every saved entry of m back into the tree (the saved
// version wins over whatever is there now), removes folders the putback
// made, and returns the paths whose state actually changed. It is
// idempotent: running it twice leaves the same tree. A path whose folder
// became a symlink or a file is not restored: it is reported, and its
// saved copy stays.
func restoreSave(dir string, m *manifest) ([]string, error) {
	if err := verifySave(dir, m); err != nil {
		return nil, err
	}
	t, err := openTree(m.Root)
	if err != nil {
		return nil, err
	}
	defer t.close()
	var changed []string
	dirs := map[string]bool{}
	var errs []error
	for _, f := range m.Files {
		rel := filepath.FromSlash(f.Path)
		differs, err := restoreOne(t, dir, rel, f)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.Path, err))
			continue
		}
		if differs {
			changed = append(changed, f.Path)
		}
		dirs[filepath.Dir(rel)] = true
	}
	for d := range dirs {
		if err := t.syncDir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	made := append([]string(nil), m.MadeDirs...)
	sort.Slice(made, func(i, j int) bool { return len(made[i]) > len(made[j]) })
	for _, d := range made {
		rel := filepath.FromSlash(d)
		if t.checkFolders(filepath.Join(rel, "x")) == nil {
			_ = t.root.Remove(rel) // only succeeds when empty
		}
	}
	return changed, errors.Join(errs...)
}

// restoreOne puts one saved entry back and says whether the tree differed.
func restoreOne(t *tree, dir, rel string, f savedFile) (bool, error) {
	if err := t.checkFolders(rel); err != nil {
		return true, fmt.Errorf("%w; saved copy kept in %s", err, dir)
	}
	_ = t.root.Remove(tempName(rel))
	if f.Kind == kindAbsent {
		_, err := t.root.Lstat(rel)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return true, removeFile(t, rel)
	}
	blob := filepath.Join(dir, f.Blob)
	if same, _ := sameAsSaved(t, rel, blob, f); same {
		return false, nil
	}
	src, err := os.Open(blob)
	if err != nil {
		return true, err
	}
	defer src.Close()
	if fi, err := t.root.Lstat(rel); err == nil && fi.IsDir() {
		return true, fmt.Errorf("is a folder now; saved copy kept in %s", blob)
	}
	err = replaceFile(t, rel, src, fs.FileMode(f.Mode), f.Kind == kindSymlink, f.UID, f.GID, true)
	return true, err
}

// sameAsSaved reports whether rel already holds exactly the saved entry.
func sameAsSaved(t *tree, rel, blob string, f savedFile) (bool, error) {
	fi, err := t.root.Lstat(rel)
	if err != nil {
		return false, err
	}
	switch f.Kind {
	case kindSymlink:
		if fi.Mode()&fs.ModeSymlink == 0 {
			return false, nil
		}
		target, err := t.root.Readlink(rel)
		if err != nil {
			return false, err
		}
		saved, err := os.ReadFile(blob)
		return err == nil && string(saved) == target, err
	default:
		if !fi.Mode().IsRegular() || permBits(fi.Mode()) != fs.FileMode(f.Mode) || fi.Size() != f.Size {
			return false, nil
		}
		g, err := t.root.OpenFile(rel, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
		if err != nil {
			return false, err
		}
		defer g.Close()
		h := sha256.New()
		if _, err := io.Copy(h, g); err != nil {
			return false, err
		}
		return hex.EncodeToString(h.Sum(nil)) == f.SHA256, nil
	}
}

// removeSave deletes a finished save: manifest first, so a crash half way
// leaves a folder that recovery knows to be garbage.
func removeSave(dir string) error {
	if err := os.Remove(filepath.Join(dir, manifestName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := durable.SyncDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.RemoveAll(dir)
}

// lockDir takes an exclusive flock on dir. Whoever holds it owns the save:
// chanto for the whole putback, then the watcher or a recovering start.
// The kernel drops it when the holder dies, however it dies.
func lockDir(dir string, wait bool) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ownerPID reads the pid chanto put at the front of a save folder's name.
func ownerPID(name string) int {
	i := strings.IndexByte(name, '-')
	if i <= 0 {
		return 0
	}
	pid, _ := strconv.Atoi(name[:i])
	return pid
}

// alive reports whether pid names a running process.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
