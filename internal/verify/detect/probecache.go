package detect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/durable"
)

// Asking an interpreter whether it has pytest costs a sandboxed start and
// the interpreter's own start-up: 22 ms of CPU for Debian's python3, 74 ms
// for pyenv's 3.11, on every verify and for every interpreter on PATH. The
// answer is kept in chanto's folder with what it depends on: the
// interpreter (its path, the file it resolves to, that file's identity and
// time stamps, a virtualenv's pyvenv.cfg), whether it ran sandboxed, and
// every folder the interpreter searched for pytest (its sys.path, its site
// folders, pytest's own folder) with the .pth files in them. Installing or
// removing a package changes the site folder it goes in, so the record no
// longer matches and the interpreter is asked again. Only a real program
// (an ELF file) is remembered: a script (a pyenv shim that could not be
// resolved, a wrapper) may run anything next time, so it is always asked.

// probeRecordVersion changes when the record's meaning does.
const probeRecordVersion = 2

// probeRecord is one interpreter's remembered answer.
type probeRecord struct {
	Key       string            `json:"key"`
	HasPytest bool              `json:"has_pytest"`
	Version   string            `json:"version,omitempty"`
	Paths     map[string]string `json:"paths"`
}

// probeRecordsPath is the file holding the records.
func probeRecordsPath() string { return filepath.Join(config.Home(), "cache", "python-probe.json") }

// interpKey describes the interpreter itself; "" when its answer must not
// be remembered (not a real program, or it cannot be examined).
func interpKey(interp string, sandboxed bool) string {
	real, err := filepath.EvalSymlinks(interp)
	if err != nil || !isELF(real) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "v%d sandboxed=%v interp=%s real=%s %s", probeRecordVersion, sandboxed, interp, real, fileStamp(real))
	if venv := filepath.Dir(filepath.Dir(interp)); venv != "" {
		fmt.Fprintf(&b, " pyvenv=%s", fileStamp(filepath.Join(venv, "pyvenv.cfg")))
	}
	return b.String()
}

// isELF reports whether p is a program the kernel runs itself.
func isELF(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 4)
	n, _ := f.Read(magic)
	return n == 4 && bytes.Equal(magic, []byte("\x7fELF"))
}

// fileStamp identifies a file's or folder's current state: device, inode,
// size, modification and change times; "-" when it is not there.
func fileStamp(p string) string {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		return "-"
	}
	return fmt.Sprintf("%d:%d:%d:%d.%d:%d.%d", st.Dev, st.Ino, st.Size,
		st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
}

// searchedStamps stamps the folders an interpreter searched, and the .pth
// files in its site folders (they add folders of their own).
func searchedStamps(paths []string) map[string]string {
	out := map[string]string{}
	for _, p := range paths {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		out[p] = fileStamp(p)
		if !strings.HasSuffix(p, "-packages") {
			continue
		}
		pth, _ := filepath.Glob(filepath.Join(p, "*.pth"))
		for _, f := range pth {
			out[f] = fileStamp(f)
		}
	}
	return out
}

// cachedProbe returns the remembered answer for the interpreter key
// describes, when everything it depends on is unchanged.
func cachedProbe(key string) (hasPytest bool, version string, ok bool) {
	if key == "" {
		return false, "", false
	}
	recs := readProbeRecords()
	rec, found := recs[key]
	if !found || len(rec.Paths) == 0 {
		return false, "", false
	}
	paths := make([]string, 0, len(rec.Paths))
	for p := range rec.Paths {
		if !strings.HasSuffix(p, ".pth") {
			paths = append(paths, p)
		}
	}
	now := searchedStamps(paths)
	if len(now) != len(rec.Paths) {
		return false, "", false // a .pth file came or went
	}
	for p, stamp := range rec.Paths {
		if now[p] != stamp {
			return false, "", false
		}
	}
	return rec.HasPytest, rec.Version, true
}

// rememberProbe records an interpreter's answer with the folders it
// searched (the probe's output: NUL-separated paths). Failing to write
// only costs the next run a probe.
func rememberProbe(key string, hasPytest bool, version string, searched []byte) {
	if key == "" {
		return
	}
	var paths []string
	for _, p := range bytes.Split(searched, []byte{0}) {
		if len(p) > 0 {
			paths = append(paths, string(p))
		}
	}
	if !slices.ContainsFunc(paths, filepath.IsAbs) {
		return // not the output the probe writes: ask again next time
	}
	recs := readProbeRecords()
	recs[key] = probeRecord{Key: key, HasPytest: hasPytest, Version: version, Paths: searchedStamps(paths)}
	writeProbeRecords(recs)
}

// maxProbeRecords bounds the file: interpreters come and go.
const maxProbeRecords = 64

func readProbeRecords() map[string]probeRecord {
	recs := map[string]probeRecord{}
	b, err := os.ReadFile(probeRecordsPath())
	if err != nil {
		return recs
	}
	var list []probeRecord
	if json.Unmarshal(b, &list) != nil {
		return recs
	}
	for _, r := range list {
		recs[r.Key] = r
	}
	return recs
}

func writeProbeRecords(recs map[string]probeRecord) {
	list := make([]probeRecord, 0, len(recs))
	for _, r := range recs {
		list = append(list, r)
	}
	slices.SortFunc(list, func(a, b probeRecord) int { return strings.Compare(a.Key, b.Key) })
	if len(list) > maxProbeRecords {
		list = list[len(list)-maxProbeRecords:]
	}
	b, err := json.Marshal(list)
	if err != nil {
		return
	}
	p := probeRecordsPath()
	if os.MkdirAll(filepath.Dir(p), 0o700) == nil {
		_ = durable.WriteFile(p, b, 0o600)
	}
}
