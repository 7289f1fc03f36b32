package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// The helper bounds a command's processes with RLIMIT_NPROC, but the
// kernel never applies that limit to real root (uid 0 outside every user
// namespace), and a sandbox started by root maps its processes to uid 0.
// A fork bomb run by root would then grow until the timeout killed it,
// thousands of processes later. So when chanto runs as root, each command
// gets a pids cgroup of its own, whose pids.max the kernel enforces for
// everyone. bubblewrap is started inside it, so the command and all it
// starts count from their first instruction: with cgroup2 the kernel
// places the new process there (clone3 with CLONE_INTO_CGROUP); with
// cgroup v1, which has no such flag, the thread that forks moves into the
// cgroup for the fork and back out after it (v1 places threads, and a
// child starts in its parent thread's cgroup). Either way no process runs
// before bubblewrap: an earlier version had /bin/sh enter the cgroup and
// exec bubblewrap, which cost a process start per command.
// Where no pids hierarchy can be written (a container without cgroup
// access), a root command keeps only the rlimit, which docs/security.md
// states.

// pidsCgroups makes and removes the per-command cgroups of one Sandbox.
type pidsCgroups struct {
	mu   sync.Mutex
	base string   // the pids hierarchy's mount point; "" when unusable
	v2   bool     // base is a cgroup2 hierarchy
	made []string // every cgroup this sandbox made and has not removed
	free []string // made, and not held by a command
	cmds map[*exec.Cmd]string
}

var (
	pidsBaseOnce sync.Once
	pidsBase     string
	pidsBaseV2   bool
)

// pidsHierarchy finds a writable pids controller: cgroup v1's pids
// hierarchy, or the cgroup2 root with pids enabled for its children.
func pidsHierarchy() (string, bool) {
	pidsBaseOnce.Do(func() {
		if os.Geteuid() != 0 {
			return
		}
		v1, v2 := mountsOfCgroups()
		if v1 != "" && writableDir(v1) {
			pidsBase = v1
			removeStale(v1)
			return
		}
		if v2 != "" && enablePids(v2) && writableDir(v2) {
			pidsBase, pidsBaseV2 = v2, true
			removeStale(v2)
		}
	})
	return pidsBase, pidsBaseV2
}

// mountsOfCgroups reads /proc/self/mountinfo for the cgroup v1 pids
// mount and the cgroup2 mount.
func mountsOfCgroups() (v1, v2 string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if len(fields) < 5 || len(tail) < 3 {
			continue
		}
		switch tail[0] {
		case "cgroup":
			for _, o := range strings.Split(tail[2], ",") {
				if o == "pids" && v1 == "" {
					v1 = fields[4]
				}
			}
		case "cgroup2":
			if v2 == "" {
				v2 = fields[4]
			}
		}
	}
	return v1, v2
}

// enablePids makes sure the cgroup2 root hands the pids controller to
// its children.
func enablePids(root string) bool {
	has := func(file string) bool {
		b, err := os.ReadFile(filepath.Join(root, file))
		return err == nil && containsWord(string(b), "pids")
	}
	if !has("cgroup.controllers") {
		return false
	}
	if has("cgroup.subtree_control") {
		return true
	}
	_ = os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+pids"), 0)
	return has("cgroup.subtree_control")
}

func containsWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

func writableDir(dir string) bool {
	probe, err := os.MkdirTemp(dir, "chanto-probe-")
	if err != nil {
		return false
	}
	return os.Remove(probe) == nil
}

// removeStale removes the cgroups of chanto processes that are gone.
func removeStale(base string) {
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "chanto-")
		if !ok || !e.IsDir() {
			continue
		}
		pid, _, _ := strings.Cut(rest, "-")
		if n, err := strconv.Atoi(pid); err == nil && n != os.Getpid() {
			if _, err := os.Stat(filepath.Join("/proc", pid)); errors.Is(err, os.ErrNotExist) {
				_ = os.Remove(filepath.Join(base, e.Name()))
			}
		}
	}
}

// next hands out a cgroup bounded to limit processes for one command:
// an emptied one of an earlier command when there is one (making and
// removing a cgroup costs milliseconds), else a new one. It returns ""
// when no pids hierarchy is usable (not root, or no access).
func (c *pidsCgroups) next(limit int) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.base == "" {
		c.base, c.v2 = pidsHierarchy()
		if c.base == "" {
			return "", nil
		}
	}
	// A cgroup is reused once no process is left in it. The kernel
	// uncharges an exited process a little later than it leaves
	// cgroup.procs, so a few charges may linger; a cgroup still charged
	// with more than a quarter of its bound (after a fork bomb, say)
	// stays free for later and the command gets a new one.
	for i, dir := range c.free {
		if idle(dir, limit/4) {
			c.free = append(c.free[:i], c.free[i+1:]...)
			return dir, nil
		}
	}
	dir, err := os.MkdirTemp(c.base, fmt.Sprintf("chanto-%d-", os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("sandbox: process limit: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(limit)), 0); err != nil {
		_ = os.Remove(dir)
		return "", fmt.Errorf("sandbox: process limit: %w", err)
	}
	c.made = append(c.made, dir)
	return dir, nil
}

// idle reports whether a cgroup holds no process and at most slack
// lingering charges.
func idle(dir string, slack int) bool {
	procs, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil || len(strings.TrimSpace(string(procs))) > 0 {
		return false
	}
	b, err := os.ReadFile(filepath.Join(dir, "pids.current"))
	n, err2 := strconv.Atoi(strings.TrimSpace(string(b)))
	return err == nil && err2 == nil && n <= slack
}

// track remembers which cgroup a command was put in.
func (c *pidsCgroups) track(cmd *exec.Cmd, dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmds == nil {
		c.cmds = map[*exec.Cmd]string{}
	}
	c.cmds[cmd] = dir
}

// held is the cgroup a command was put in, "" for none.
func (c *pidsCgroups) held(cmd *exec.Cmd) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cmds[cmd]
}

// start starts cmd inside the cgroup it was given, if any.
func (c *pidsCgroups) start(cmd *exec.Cmd) error {
	dir := c.held(cmd)
	switch {
	case dir == "":
		return cmd.Start()
	case c.v2:
		return startIntoCgroup(cmd, dir)
	default:
		return startFromThreadIn(cmd, c.base, dir)
	}
}

// threadCgroup is the folder of thread tid's cgroup in the v1 pids
// hierarchy mounted at base.
func threadCgroup(base string, tid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/cgroup", tid))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) == 3 && containsWord(strings.ReplaceAll(parts[1], ",", " "), "pids") {
			return filepath.Join(base, parts[2]), nil
		}
	}
	return "", errors.New("no pids cgroup in /proc/self/task/" + strconv.Itoa(tid) + "/cgroup")
}

// release hands the cgroup of a command that has ended back for reuse.
func (c *pidsCgroups) release(cmd *exec.Cmd) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if dir, ok := c.cmds[cmd]; ok {
		delete(c.cmds, cmd)
		c.free = append(c.free, dir)
	}
}

// close removes every cgroup of this sandbox that no command holds (rmdir
// of a cgroup fails while it has members; those go at the next start).
func (c *pidsCgroups) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := c.made[:0]
	for _, d := range c.made {
		if err := os.Remove(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			kept = append(kept, d)
		}
	}
	c.made, c.free = kept, nil
}
