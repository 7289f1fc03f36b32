package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/git"
	"github.com/chanto-dev/chanto/internal/verify/baseline"
)

// A baseline result depends only on the base tree and the check, so it is
// kept: per base (git's tree id plus a stamp of the installed dependencies
// the check reads, node_modules and the virtualenv, which no tree holds)
// and check (folder, runner, command), which failure IDs failed at the base
// and which passed. A second verify on the same HEAD with the same failure
// runs no baseline at all. Under git the record lives in
// ~/.chanto/cache/baseline/; for an agent turn's snapshot, in memory for
// the turn.

// recordVersion is part of every key: records written before a fix to
// how the baseline decides are not read again (version 1 kept doctests of
// text files as passing at the base without running them; version 2 took
// a test that failed when run alone at the base for one that failed
// there, though it passed among the others; version 3 could record a
// base whose tree a check had written into, as a test file emptied by
// the change's run).
const recordVersion = "4"

// wholeCheck is the record's ID for a check that names no failures.
const wholeCheck = "\x00whole check"

// baselineMemo holds the records of bases that are not git trees.
var baselineMemo = struct {
	sync.Mutex
	m map[string]map[string]bool
}{m: map[string]map[string]bool{}}

// baselineKey is the record's name, "" when the base cannot be named.
func (e *engine) baselineKey(ctx context.Context, last *CheckRun) (key string, onDisk bool) {
	var base string
	switch src := e.src.(type) {
	case GitSource:
		if src.Rev == "" {
			return "", false
		}
		if obj, found, ok := src.object(src.Rev + "^{tree}"); ok {
			if !found {
				return "", false
			}
			base, onDisk = "tree "+obj.ID, true
			break
		}
		out, err := git.Output(ctx, e.r, e.cs.Root, "rev-parse", "--verify", "--quiet", src.Rev+"^{tree}")
		if err != nil {
			return "", false
		}
		base, onDisk = "tree "+strings.TrimSpace(string(out)), true
	default:
		if v := reflect.ValueOf(src); v.Kind() != reflect.Pointer || v.IsNil() {
			return "", false
		}
		base = fmt.Sprintf("snapshot %T %p", src, src)
	}
	h := sha256.New()
	for _, s := range []string{recordVersion, base, e.relDir(last.check.Dir), string(last.check.Runner), last.check.Command, installedStamp(e.cs.Root)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), onDisk
}

// installedStamp stamps the dependency folders a base copy would borrow
// (node_modules, .venv): a reinstall changes the base the tests see.
func installedStamp(root string) string {
	var b strings.Builder
	for _, d := range baseline.DefaultShare(root) {
		if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(d))); err == nil {
			fmt.Fprintf(&b, "%s %d\n", d, fi.ModTime().UnixNano())
		}
	}
	return b.String()
}

func baselineCacheFile(key string) string {
	return filepath.Join(config.Home(), "cache", "baseline", key+".json")
}

// loadBaseline returns the record under key: failure ID → failed at the base.
func loadBaseline(key string, onDisk bool) map[string]bool {
	if !onDisk {
		baselineMemo.Lock()
		defer baselineMemo.Unlock()
		out := map[string]bool{}
		for k, v := range baselineMemo.m[key] {
			out[k] = v
		}
		return out
	}
	out := map[string]bool{}
	data, err := os.ReadFile(baselineCacheFile(key))
	if err == nil && json.Unmarshal(data, &out) != nil {
		out = map[string]bool{}
	}
	return out
}

// saveBaseline writes the record; a cache that cannot be written costs a
// baseline run next time, nothing more.
func saveBaseline(key string, onDisk bool, known map[string]bool) {
	if !onDisk {
		baselineMemo.Lock()
		defer baselineMemo.Unlock()
		baselineMemo.m[key] = known
		return
	}
	data, err := json.Marshal(known)
	if err != nil {
		return
	}
	file := baselineCacheFile(key)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), file) != nil {
		os.Remove(tmp.Name())
	}
}

// recordUnchanged keeps what a check found on a tree where nothing
// changed: that tree is the base, so each test it named passing or
// failing passed or failed at the base, in the check's own order and
// company (a failure that needs an earlier test to have run is seen as
// the whole suite sees it). A later verify on the same base whose
// failures are all among them runs no baseline. Only runners that name
// their tests count, and only a run that finished.
func (e *engine) recordUnchanged(ctx context.Context, cr *CheckRun) {
	if len(e.cs.Changed) != 0 || e.cs.Unknown || e.cs.Base == "" || e.opts.BaseSource != nil || e.opts.NoBaseline {
		return
	}
	if cr.TimedOut || cr.NotFound != "" || cr.CouldNotRun != "" || cr.NoTests || cr.FromModelRun {
		return
	}
	if len(cr.passed) == 0 && len(cr.Failures) == 0 || !cr.Passed && len(cr.Failures) == 0 {
		return // nothing named, or a failure that names no test
	}
	key, onDisk := e.baselineKey(ctx, cr)
	if key == "" {
		return
	}
	known := loadBaseline(key, onDisk)
	for _, f := range cr.passed {
		known[f.ID] = false
	}
	for _, f := range cr.Failures {
		known[f.ID] = true
	}
	saveBaseline(key, onDisk, known)
}
