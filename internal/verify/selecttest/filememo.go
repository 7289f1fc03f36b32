package selecttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// fileMemo remembers a value computed from a file's bytes, keyed by the
// file's size and modification time, so a session's later selections skip
// re-reading thousands of unchanged Go files. As git does with its index, an
// entry is only trusted when the file was last modified well before the
// value was computed: a write within the same clock tick could otherwise go
// unseen.
type fileMemo[V any] struct {
	mu     sync.Mutex
	m      map[string]memoEntry[V]
	loaded map[string]bool // disk files already read
	dirty  bool
}

type memoEntry[V any] struct {
	Size  int64 `json:"s"`
	Mtime int64 `json:"m"`
	V     V     `json:"v"`
}

// racyWindow is how old a modification must be before a memo entry for it
// is trusted.
const racyWindow = 2 * time.Second

// get returns the memoized value for file (with extra distinguishing the
// computation), or computes and remembers it.
func (fm *fileMemo[V]) get(file, extra string, compute func() V) V {
	fi, err := os.Stat(file)
	if err != nil {
		return compute()
	}
	key := file + "\x00" + extra
	size, mtime := fi.Size(), fi.ModTime().UnixNano()
	fm.mu.Lock()
	e, ok := fm.m[key]
	fm.mu.Unlock()
	if ok && e.Size == size && e.Mtime == mtime {
		return e.V
	}
	v := compute()
	if time.Since(fi.ModTime()) > racyWindow {
		fm.mu.Lock()
		if fm.m == nil {
			fm.m = map[string]memoEntry[V]{}
		}
		fm.m[key] = memoEntry[V]{Size: size, Mtime: mtime, V: v}
		fm.dirty = true
		fm.mu.Unlock()
	}
	return v
}

func (fm *fileMemo[V]) reset() {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	fm.m, fm.loaded, fm.dirty = nil, nil, false
}

// load merges the entries saved in file (once per process), so a new
// chanto process need not re-read every file either.
func (fm *fileMemo[V]) load(file string) {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	if fm.loaded[file] {
		return
	}
	if fm.loaded == nil {
		fm.loaded = map[string]bool{}
	}
	fm.loaded[file] = true
	data, err := os.ReadFile(file)
	if err != nil {
		return
	}
	var saved map[string]memoEntry[V]
	if json.Unmarshal(data, &saved) != nil {
		return
	}
	if fm.m == nil {
		fm.m = map[string]memoEntry[V]{}
	}
	for k, e := range saved {
		if _, ok := fm.m[k]; !ok {
			fm.m[k] = e
		}
	}
}

// save writes the entries to file when something was added since.
func (fm *fileMemo[V]) save(file string) {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	if !fm.dirty {
		return
	}
	data, err := json.Marshal(fm.m)
	if err != nil || os.MkdirAll(filepath.Dir(file), 0o755) != nil {
		return
	}
	tmp := file + ".tmp" + strconv.Itoa(os.Getpid())
	if os.WriteFile(tmp, data, 0o644) == nil && os.Rename(tmp, file) == nil {
		fm.dirty = false
	}
}

// testScan is what scanGoTestFile found in one file.
type testScan struct {
	reads    []string
	buildsGo bool
}

var (
	headerMemo fileMemo[string]
	scanMemo   fileMemo[testScan]
)
