package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// startIntoCgroup has the kernel create the process inside the cgroup2
// folder dir (clone3 with CLONE_INTO_CGROUP).
func startIntoCgroup(cmd *exec.Cmd, dir string) error {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox: process limit: %w", err)
	}
	defer unix.Close(fd)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w (in cgroup %s)", err, dir)
	}
	return nil
}

// startFromThreadIn starts cmd from an OS thread that is, for the fork,
// a member of the cgroup v1 folder dir (under the hierarchy base): the
// child starts there. The thread goes back to its own cgroup afterwards.
// It fails closed: a command that was to be bounded never starts unbounded.
func startFromThreadIn(cmd *exec.Cmd, base, dir string) error {
	errc := make(chan error, 1)
	go func() {
		// Locked, the thread runs nothing else meanwhile, and the runtime
		// creates no new thread from it (it asks its template thread).
		runtime.LockOSThread()
		tid := unix.Gettid()
		home, err := threadCgroup(base, tid)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "tasks"), []byte(strconv.Itoa(tid)), 0)
		}
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("sandbox: process limit: cannot enter %s: %w", dir, err)
			return
		}
		err = cmd.Start()
		if back := os.WriteFile(filepath.Join(home, "tasks"), []byte(strconv.Itoa(tid)), 0); back != nil {
			// The thread must stay: bubblewrap dies with the thread that
			// started it (--die-with-parent), and no other goroutine may
			// run in the command's cgroup. The cgroup, never empty now,
			// is not reused.
			errc <- err
			select {}
		}
		runtime.UnlockOSThread()
		errc <- err
	}()
	return <-errc
}
