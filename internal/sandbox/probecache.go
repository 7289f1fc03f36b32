package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/chanto-dev/chanto/internal/config"
)

// Every chanto process used to start a throwaway bubblewrap (/bin/true in
// the sandbox's namespaces) before its first command, to explain a machine
// without user namespaces before anything ran: 5 ms of CPU, 30 ms and more
// of wall on a loaded machine, on every verify and every hook. A success
// is now recorded in chanto's folder (which commands cannot see), for
// this boot, this bubblewrap binary and these namespace settings; a
// process that finds the same record skips the probe. The record is only
// a shortcut: were it stale, the first command would still fail closed,
// with bubblewrap's own message instead of the how-to-fix one.

// probeRecordPath is where a successful probe is recorded.
func probeRecordPath() string { return filepath.Join(config.Home(), "sandbox-probe") }

// probeKey describes what a probe's answer depends on; "" when it cannot
// be told (then the probe runs).
func probeKey(bwrap string) string {
	fi, err := os.Stat(bwrap)
	if err != nil {
		return ""
	}
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = uint64(st.Ino)
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "v1 uid=%d boot=%s bwrap=%s:%d:%d:%d.%d\n", os.Geteuid(), strings.TrimSpace(string(boot)),
		bwrap, ino, fi.Size(), fi.ModTime().Unix(), fi.ModTime().Nanosecond())
	for _, f := range []string{
		"/proc/sys/kernel/unprivileged_userns_clone",
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
		"/proc/sys/user/max_user_namespaces",
		"/proc/sys/user/max_pid_namespaces",
		"/proc/sys/user/max_net_namespaces",
		"/proc/sys/user/max_ipc_namespaces",
		"/proc/sys/user/max_mnt_namespaces",
	} {
		v, err := os.ReadFile(f)
		val := "-"
		if err == nil {
			val = strings.TrimSpace(string(v))
		}
		fmt.Fprintf(&b, "%s=%s\n", filepath.Base(f), val)
	}
	return b.String()
}

// probeRecorded reports whether a probe with this key succeeded before.
func probeRecorded(key string) bool {
	if key == "" {
		return false
	}
	b, err := os.ReadFile(probeRecordPath())
	return err == nil && string(b) == key
}

// recordProbe notes a successful probe; a failure to write only costs the
// next process a probe.
func recordProbe(key string) {
	if key == "" {
		return
	}
	p := probeRecordPath()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".sandbox-probe-")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(key)
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		_ = os.Remove(tmp.Name())
		return
	}
	if os.Rename(tmp.Name(), p) != nil {
		_ = os.Remove(tmp.Name())
	}
}
