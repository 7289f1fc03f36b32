//go:build linux && (amd64 || arm64)

package helper

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// Supported is true where the helper is implemented.
const Supported = true

// The common case (no allowlist proxy) is handled here, in this package's
// init, which the Go runtime runs before the rest of chanto's (see doc.go).
// With a proxy the command runs as a child next to the bridge, which needs
// package net; package bridge takes that case in its own init, later.
func init() {
	if len(os.Args) < 2 || os.Args[1] != Arg {
		return
	}
	h, err := ParseArgs(os.Args[2:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "chanto sandbox helper: %v\n", err)
		os.Exit(126)
	}
	if h.Proxy != "" {
		return
	}
	os.Exit(execMain(h))
}

// Spec is what the sandbox's bwrapArgs hands the helper on its command line.
type Spec struct {
	Net   string   // deny, allow or allowlist
	NProc int      // RLIMIT_NPROC, 0 for none
	Proxy string   // the allowlist proxy's socket, "" for none
	RW    []string // writable roots for Landlock
	Path  string   // the command
	Argv  []string
}

// ParseArgs reads the helper's arguments (those after Arg).
func ParseArgs(args []string) (Spec, error) {
	var h Spec
	for i := 0; i < len(args); i++ {
		if args[i] == "--" {
			if len(args) < i+3 {
				return h, errors.New("no command")
			}
			h.Path, h.Argv = args[i+1], args[i+2:]
			return h, nil
		}
		if i+1 >= len(args) {
			return h, fmt.Errorf("flag %s without value", args[i])
		}
		v := args[i+1]
		i++
		switch args[i-1] {
		case "--net":
			h.Net = v
		case "--nproc":
			n, err := strconv.Atoi(v)
			if err != nil {
				return h, fmt.Errorf("--nproc %q", v)
			}
			h.NProc = n
		case "--proxy":
			h.Proxy = v
		case "--rw":
			h.RW = append(h.RW, v)
		default:
			return h, fmt.Errorf("unknown flag %s", args[i-1])
		}
	}
	return h, errors.New("no command")
}

// execMain confines the helper and then becomes the command.
func execMain(h Spec) int {
	if err := Restrict(h); err != nil {
		fmt.Fprintf(os.Stderr, "chanto sandbox helper: %v\n", err)
		return 126
	}
	if err := Seccomp(h); err != nil {
		fmt.Fprintf(os.Stderr, "chanto sandbox helper: %v\n", err)
		return 126
	}
	err := syscall.Exec(h.Path, h.Argv, os.Environ())
	fmt.Fprintf(os.Stderr, "chanto sandbox helper: exec %s: %v\n", h.Path, err)
	return 127
}

// Restrict applies the process limit and Landlock to the helper (every
// thread of it, so a child started from any thread inherits them).
func Restrict(h Spec) error {
	runtime.LockOSThread()
	if h.NProc > 0 {
		lim := &unix.Rlimit{Cur: uint64(h.NProc), Max: uint64(h.NProc)}
		if err := unix.Setrlimit(unix.RLIMIT_NPROC, lim); err != nil {
			return fmt.Errorf("process limit: %w", err)
		}
	}
	if err := restrictFiles(h.RW); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

// Seccomp installs the system-call filter (on every thread); with
// network deny it also refuses sockets other than Unix ones.
func Seccomp(h Spec) error { return installSeccomp(h.Net == "deny") }

// restrictFiles applies Landlock: everything readable and executable,
// writes only under the writable roots, temp dirs and devices. It is best
// effort: an old kernel without Landlock keeps the bubblewrap layer only.
func restrictFiles(rw []string) error {
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWDirs("/tmp", "/var/tmp", "/proc").IgnoreIfMissing().WithRefer(),
		landlock.RWDirs("/dev").IgnoreIfMissing().WithIoctlDev(),
	}
	if len(rw) > 0 {
		rules = append(rules, landlock.RWDirs(rw...).IgnoreIfMissing().WithRefer())
	}
	// One ruleset for files and scoping (abstract Unix sockets and signals
	// outside the sandbox, ABI 6): a second, scope-only layer makes the
	// kernel refuse renames across folders with EXDEV. TCP is left to the
	// network namespace.
	cfg := landlock.V6
	cfg.HandledAccessNet = 0
	return cfg.BestEffort().Restrict(rules...)
}
