package baseline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Restored is what a recovery put back from one interrupted putback.
type Restored struct {
	// Root is the project the files belong to.
	Root string
	// PID is the chanto process that was interrupted.
	PID int
	// Files are the paths (relative to Root) whose content was restored.
	Files []string
	// Dir is the save folder it came from (now removed).
	Dir string
}

// Message is the line the CLI prints (after "chanto: ").
func (r Restored) Message() string {
	noun := "files"
	if len(r.Files) == 1 {
		noun = "file"
	}
	return fmt.Sprintf("restored %d %s left put back by an interrupted run (pid %d): %s",
		len(r.Files), noun, r.PID, strings.Join(r.Files, ", "))
}

// Recover restores every putback save under historyDir/putback/ whose owner
// is gone and which no watcher is restoring: it checks each saved copy's
// sha256 first and restores nothing from a damaged save (the error names
// it; the copies stay). It returns only saves that changed the tree; saves
// that changed nothing (the owner died before touching the tree) are just
// removed. Safe to run at any time, alongside watchers and other chantos:
// a save folder is only ever handled under its lock.
func Recover(historyDir string) ([]Restored, error) {
	parent := filepath.Join(historyDir, "putback")
	entries, err := os.ReadDir(parent)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("recover putback: %w", err)
	}
	var out []Restored
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if pid := ownerPID(e.Name()); pid == os.Getpid() || alive(pid) {
			// A live owner holds the lock from before the manifest exists;
			// the one window without it (mkdir, then flock) is covered here.
			if _, err := os.Stat(filepath.Join(dir, manifestName)); errors.Is(err, fs.ErrNotExist) {
				continue
			}
		}
		r, err := restoreDir(dir, false)
		if err != nil {
			errs = append(errs, fmt.Errorf("recover putback: %w", err))
			continue
		}
		if r != nil && len(r.Files) > 0 {
			out = append(out, *r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, errors.Join(errs...)
}
