//go:build linux && (amd64 || arm64)

package helper

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// Supported is true where the helper is implemented.
const Supported = true

func init() {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		os.Exit(helperMain(os.Args[2:]))
	}
}

// helperSpec is what the sandbox's bwrapArgs hands the helper on its command line.
type helperSpec struct {
	net      string
	nproc    int
	proxy    string
	rw       []string
	path     string
	argv     []string
	dropArgs bool
}

func parseHelperArgs(args []string) (helperSpec, error) {
	var h helperSpec
	for i := 0; i < len(args); i++ {
		if args[i] == "--" {
			if len(args) < i+3 {
				return h, errors.New("no command")
			}
			h.path, h.argv = args[i+1], args[i+2:]
			return h, nil
		}
		if i+1 >= len(args) {
			return h, fmt.Errorf("flag %s without value", args[i])
		}
		v := args[i+1]
		i++
		switch args[i-1] {
		case "--net":
			h.net = v
		case "--nproc":
			n, err := strconv.Atoi(v)
			if err != nil {
				return h, fmt.Errorf("--nproc %q", v)
			}
			h.nproc = n
		case "--proxy":
			h.proxy = v
		case "--rw":
			h.rw = append(h.rw, v)
		default:
			return h, fmt.Errorf("unknown flag %s", args[i-1])
		}
	}
	return h, errors.New("no command")
}

// helperMain confines itself further and then becomes the command (or,
// with the allowlist bridge, runs it as a child and relays).
func helperMain(args []string) int {
	h, err := parseHelperArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "chanto sandbox helper: %v\n", err)
		return 126
	}
	runtime.LockOSThread()
	if h.nproc > 0 {
		lim := &unix.Rlimit{Cur: uint64(h.nproc), Max: uint64(h.nproc)}
		if err := unix.Setrlimit(unix.RLIMIT_NPROC, lim); err != nil {
			fmt.Fprintf(os.Stderr, "chanto sandbox helper: process limit: %v\n", err)
			return 126
		}
	}
	if err := restrictFiles(h.rw); err != nil {
		fmt.Fprintf(os.Stderr, "chanto sandbox helper: landlock: %v\n", err)
		return 126
	}
	var bridge net.Listener
	if h.proxy != "" {
		if bridge, err = net.Listen("tcp", BridgeAddr); err != nil {
			fmt.Fprintf(os.Stderr, "chanto sandbox helper: proxy bridge: %v\n", err)
			return 126
		}
	}
	if err := installSeccomp(h.net == "deny"); err != nil {
		fmt.Fprintf(os.Stderr, "chanto sandbox helper: %v\n", err)
		return 126
	}
	if bridge == nil {
		err := syscall.Exec(h.path, h.argv, os.Environ())
		fmt.Fprintf(os.Stderr, "chanto sandbox helper: exec %s: %v\n", h.path, err)
		return 127
	}
	go serveBridge(bridge, h.proxy)
	return runChild(h)
}

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

// runChild runs the command as a child so the bridge can keep serving,
// forwards signals, and returns its exit status.
func runChild(h helperSpec) int {
	cmd := &exec.Cmd{Path: h.path, Args: h.argv, Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "chanto sandbox helper: start %s: %v\n", h.path, err)
		return 127
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	if cmd.ProcessState != nil {
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return cmd.ProcessState.ExitCode()
	}
	if err != nil {
		return 127
	}
	return 0
}

// serveBridge relays each TCP connection on the in-sandbox loopback to the
// proxy's Unix socket; the proxy does all the checking.
func serveBridge(l net.Listener, sock string) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			u, err := net.Dial("unix", sock)
			if err != nil {
				return
			}
			defer u.Close()
			go func() { _, _ = io.Copy(u, c); closeWriteConn(u) }()
			_, _ = io.Copy(c, u)
		}()
	}
}

// closeWriteConn half-closes c when it can, so the far side sees EOF.
func closeWriteConn(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}
