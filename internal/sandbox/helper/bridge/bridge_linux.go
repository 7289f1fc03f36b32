//go:build linux && (amd64 || arm64)

package bridge

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/chanto-dev/chanto/internal/sandbox/helper"
)

func init() {
	if len(os.Args) < 2 || os.Args[1] != helper.Arg {
		return
	}
	h, err := helper.ParseArgs(os.Args[2:])
	if err != nil || h.Proxy == "" {
		// package helper has handled (and exited on) every other case.
		fmt.Fprintf(os.Stderr, "chanto sandbox helper: unexpected arguments\n")
		os.Exit(126)
	}
	os.Exit(bridgeMain(h))
}

// bridgeMain confines the helper, opens the bridge, and runs the command.
func bridgeMain(h helper.Spec) int {
	if err := helper.Restrict(h); err != nil {
		fmt.Fprintf(os.Stderr, "chanto sandbox helper: %v\n", err)
		return 126
	}
	l, err := net.Listen("tcp", helper.BridgeAddr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "chanto sandbox helper: proxy bridge: %v\n", err)
		return 126
	}
	if err := helper.Seccomp(h); err != nil {
		fmt.Fprintf(os.Stderr, "chanto sandbox helper: %v\n", err)
		return 126
	}
	go serveBridge(l, h.Proxy)
	return runChild(h)
}

// runChild runs the command as a child so the bridge can keep serving,
// forwards signals, and returns its exit status.
func runChild(h helper.Spec) int {
	cmd := &exec.Cmd{Path: h.Path, Args: h.Argv, Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "chanto sandbox helper: start %s: %v\n", h.Path, err)
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
