package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// A crate without a committed Cargo.lock gets one from its first cargo
// run. That file is new to git, and a new Cargo.lock is a change of the
// project's setup (the full suite runs), so every later verify of a
// one-line edit would run in full. A lock file chanto's own check wrote is
// no such change: its content is recorded (under chanto's home, out of the
// reach of the model's commands) when a check creates or rewrites it, and
// a new lock file with exactly that content is left out of the change set.
// Any other content (an edit, a lock from elsewhere) still counts.

// lockNames are the lock files a check may write on its own.
var lockNames = map[detect.Runner]string{detect.Cargo: "Cargo.lock"}

// producedFile is where the recorded lock files of a repository live.
func producedFile(root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(config.Home(), "produced", hex.EncodeToString(sum[:8])+".json")
}

func readProduced(root string) map[string]string {
	m := map[string]string{}
	if data, err := os.ReadFile(producedFile(root)); err == nil {
		_ = json.Unmarshal(data, &m)
	}
	return m
}

func fileSum(p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// lockCandidates are the lock files a run of c may write: its folder's and
// those of the folders above it up to the repository root (a workspace
// keeps one at its top), relative to the root.
func (e *engine) lockCandidates(c detect.Check) []string {
	name := lockNames[c.Runner]
	if name == "" || e.cs.Root == "" {
		return nil
	}
	var out []string
	for dir := c.Dir; ; dir = filepath.Dir(dir) {
		rel, err := filepath.Rel(e.cs.Root, dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			break
		}
		out = append(out, filepath.ToSlash(filepath.Join(rel, name)))
		if rel == "." {
			break
		}
	}
	return out
}

// lockSums reads the current content sums of paths ("" for a missing file).
func (e *engine) lockSums(paths []string) []string {
	sums := make([]string, len(paths))
	for i, p := range paths {
		sums[i] = fileSum(filepath.Join(e.cs.Root, filepath.FromSlash(p)))
	}
	return sums
}

// recordLocks notes the lock files that a check run created or rewrote
// (before are their sums from before the run).
func (e *engine) recordLocks(paths, before []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	after := e.lockSums(paths)
	var changed bool
	m := map[string]string(nil)
	for i, p := range paths {
		if after[i] == "" || after[i] == before[i] {
			continue
		}
		if m == nil {
			m = readProduced(e.cs.Root)
		}
		m[p], changed = after[i], true
	}
	if !changed {
		return
	}
	data, err := json.Marshal(m)
	if err != nil {
		return
	}
	f := producedFile(e.cs.Root)
	if os.MkdirAll(filepath.Dir(f), 0o700) != nil {
		return
	}
	tmp := f + ".tmp"
	if os.WriteFile(tmp, data, 0o600) == nil {
		_ = os.Rename(tmp, f)
	}
}

// dropProducedLocks leaves out of the change set the new lock files whose
// content a check of chanto's wrote.
func (e *engine) dropProducedLocks() {
	var produced map[string]string
	drop := map[string]bool{}
	for _, p := range e.cs.Added {
		if !isLockName(filepath.Base(p)) {
			continue
		}
		if produced == nil {
			produced = readProduced(e.cs.Root)
		}
		if sum, ok := produced[p]; ok && sum == fileSum(filepath.Join(e.cs.Root, filepath.FromSlash(p))) {
			drop[p] = true
		}
	}
	if len(drop) == 0 {
		return
	}
	keep := func(list []string) []string {
		out := list[:0:0]
		for _, p := range list {
			if !drop[p] {
				out = append(out, p)
			}
		}
		return out
	}
	e.cs.Changed, e.cs.Added = keep(e.cs.Changed), keep(e.cs.Added)
}

func isLockName(name string) bool {
	for _, n := range lockNames {
		if n == name {
			return true
		}
	}
	return false
}
