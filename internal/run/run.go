// Package run is the single way chanto executes a command: the model's bash
// calls, gate checks, hooks and formatters all come through Runner.Run. It
// builds the environment from scratch (secret-named variables removed), puts
// the command in its own process group, enforces the timeout by killing the
// whole group, caps the captured output keeping head and tail, and hands the
// command to the sandbox when one is configured.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/chanto-dev/chanto/internal/shell"
)

// Purpose says who asked for a command; it decides which extra variables
// the environment may carry (pass_env reaches checks only).
type Purpose int

const (
	// Model is a command the model asked for (the bash tool).
	Model Purpose = iota
	// Check is a gate check or a baseline run.
	Check
	// Hook is a user hook.
	Hook
	// Internal is a command chanto itself needs (go list, probes).
	Internal
	// Download is a package manager fetching a project's dependencies
	// for its checks (go mod download, cargo fetch). It runs in
	// Runner.DownloadSandbox when one is set.
	Download
	// Git is chanto's own git plumbing (internal/git builds it): it runs
	// in Runner.GitSandbox, never in the workspace sandbox, so nothing the
	// model or a check can write changes what it may do.
	Git
	// Server is a long-running server the model's tools talk to (an MCP
	// server, Runner.Start): the model's environment and temp folder;
	// variables its configuration names come in through Spec.Env.
	Server
)

// DefaultOutputCap is the captured-output limit when Spec.OutputCap is 0.
const DefaultOutputCap = 64 << 10

// Spec describes one command.
type Spec struct {
	// Args is the argv. Exactly one of Args and Shell is set.
	Args []string
	// Shell is a command line run by "bash -c" (the bash tool, configured checks).
	Shell string
	// Dir is the working directory.
	Dir string
	// Env adds KEY=VALUE pairs after scrubbing; they are the caller's own
	// and are not scrubbed.
	Env []string
	// Stdin feeds the command; nil means no input.
	Stdin io.Reader
	// Timeout kills the process group when it expires; 0 means none.
	Timeout time.Duration
	// OutputCap bounds Result.Output; head and tail are kept.
	OutputCap int
	// Purpose selects the environment policy.
	Purpose Purpose
	// Stdout, if set, also receives the command's stdout, uncapped (for
	// parsers of structured output such as go test -json).
	Stdout io.Writer
	// Live, if set, also receives stdout and stderr as they are produced.
	Live io.Writer
	// Stderr, if set, also receives the command's stderr, uncapped (hooks
	// read their refusal reason from it).
	Stderr io.Writer
	// Combined gives stderr the stdout pipe, as "2>&1" does: Stdout then
	// receives both streams in the order the command wrote them, and
	// Result.Output keeps that order too. (Two pipes are read by two
	// goroutines, which may reorder lines written a moment apart: cargo's
	// "Running <binary>" line on stderr and that binary's results on
	// stdout.) Stderr must be nil.
	Combined bool
	// Approve, if set, is the command line Runner.ApproveCheck rules on
	// instead of Args: the check as the project or user wrote it, without
	// the report arguments chanto adds (a JUnit or JSON file in chanto's
	// own temp folder, which the .chanto guard would refuse).
	Approve string
}

// Result is what a finished command left.
type Result struct {
	// Output is stdout and stderr interleaved, capped to head and tail.
	Output []byte
	// ExitCode is the exit status; -1 when killed by a signal.
	ExitCode int
	// TimedOut is set when Spec.Timeout expired and the group was killed.
	TimedOut bool
	// Truncated is set when Output lost its middle to the cap.
	Truncated bool
	// Duration is the wall time.
	Duration time.Duration
}

// NotFoundError reports a program that is not installed.
type NotFoundError struct{ Name string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("%s: command not found", e.Name) }

// Wrapper turns a prepared command into its sandboxed form (bubblewrap and
// friends). It may rewrite Path, Args and ExtraFiles; it must not start it.
type Wrapper interface {
	Wrap(cmd *exec.Cmd, spec Spec) error
}

// Releaser is a Wrapper that holds something per command (the sandbox's
// process-limit cgroup): Release is called once the command and its
// process group are gone, whether it ran or failed to start.
type Releaser interface {
	Release(cmd *exec.Cmd)
}

// Starter is a Wrapper that starts the commands it wrapped itself (the
// sandbox starts a command inside its process-limit cgroup, so that it
// counts from its first instruction). Start is called instead of
// cmd.Start.
type Starter interface {
	Start(cmd *exec.Cmd) error
}

// TempDirer is a Wrapper whose commands see a temp folder of their own
// (the sandbox hides the host's temp folder): TempDir names it for
// commands of purpose p, "" when there is none.
type TempDirer interface {
	TempDir(p Purpose) string
}

// TempDir is a folder where chanto may put files for commands of purpose p
// to use (a copy of the tree for a baseline, report files a runner
// writes), and read what they left: the sandbox's per-project temp folder,
// or the host's temporary folder when commands are not sandboxed. "" means
// the sandbox offers none, and files put anywhere outside the project are
// out of the commands' sight.
func (r *Runner) TempDir(p Purpose) string {
	if r.Sandbox == nil {
		return os.TempDir()
	}
	if t, ok := r.Sandbox.(TempDirer); ok {
		return t.TempDir(p)
	}
	return ""
}

// Runner executes commands. The zero value runs unsandboxed with the
// process environment, scrubbed.
type Runner struct {
	// BaseEnv is the environment to start from; nil means os.Environ().
	BaseEnv []string
	// PassEnv names variables handed to Check commands even when their
	// names look secret.
	PassEnv []string
	// ScrubExtra names more variables to remove (api_key_env of providers).
	ScrubExtra []string
	// Sandbox wraps each command; nil runs it directly.
	Sandbox Wrapper
	// DownloadSandbox wraps Download commands instead of Sandbox: the same
	// confinement with the package registries reachable, for a sandbox
	// whose network is otherwise denied. nil: Download commands run in
	// Sandbox like any other.
	DownloadSandbox Wrapper
	// GitSandbox wraps Git commands: read-only everywhere, no network.
	// nil runs them directly (the sandbox is off).
	GitSandbox Wrapper
	// ApproveCheck, if set, is asked before each Check command starts,
	// with its command line (Shell, or Args shell-quoted). A refusal makes
	// Run return a *RefusedError without starting anything: gate checks
	// pass the same permission policy and hooks as the model's commands.
	ApproveCheck func(ctx context.Context, command string) (ok bool, reason string)
}

// RefusedError reports a check that Runner.ApproveCheck refused.
type RefusedError struct {
	Command string
	Reason  string
}

func (e *RefusedError) Error() string { return e.Reason }

// Run executes spec and waits for it. A non-zero exit is not an error; an
// error means the command could not be started or the context was cancelled.
func (r *Runner) Run(ctx context.Context, spec Spec) (Result, error) {
	var res Result
	if spec.Combined && spec.Stderr != nil {
		return res, errors.New("run: both Combined and Stderr set")
	}
	if spec.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, spec.Timeout)
		defer cancel()
	}
	out := NewCapped(outputCap(spec))
	p, err := r.prepare(ctx, spec, func(cmd *exec.Cmd) error {
		var stdout, stderr io.Writer = out, out
		if spec.Stdout != nil {
			stdout = io.MultiWriter(stdout, spec.Stdout)
		}
		if spec.Stderr != nil {
			stderr = io.MultiWriter(stderr, spec.Stderr)
		}
		if spec.Live != nil {
			stdout = io.MultiWriter(stdout, spec.Live)
			stderr = io.MultiWriter(stderr, spec.Live)
		}
		if spec.Combined || spec.Stdout == nil && spec.Stderr == nil {
			// os/exec hands the child one pipe for both when the two
			// writers are the same value; nobody asked to tell them apart.
			stderr = stdout
		}
		cmd.Stdout, cmd.Stderr = stdout, stderr
		return nil
	})
	if err != nil {
		return res, err
	}
	defer p.release()
	cmd := p.cmd
	start := time.Now()
	if err := p.start(); err != nil {
		return res, err
	}
	waitErr := cmd.Wait()
	// Whatever the command left running in its group goes with it.
	_ = killGroup(cmd)
	res.Duration = time.Since(start)
	res.Output, res.Truncated = out.Bytes(), out.Truncated()
	res.ExitCode = exitCode(cmd, waitErr)
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && spec.Timeout > 0 {
			res.TimedOut = true
			return res, nil
		}
		return res, ctx.Err()
	}
	return res, nil
}

// prepare is the set-up every command chanto starts goes through, Run's
// and Start's alike: a check is approved first (a refusal is a
// *RefusedError), the environment is built from scratch for its purpose,
// the command gets its own process group, which cancelling ctx kills
// whole, wire connects its standard streams, and the sandbox of its
// purpose wraps it. The prepared command is started by its start method.
func (r *Runner) prepare(ctx context.Context, spec Spec, wire func(*exec.Cmd) error) (*prepared, error) {
	if spec.Purpose == Check && r.ApproveCheck != nil {
		line := CommandLine(spec)
		if spec.Approve != "" {
			line = spec.Approve
		}
		if ok, reason := r.ApproveCheck(ctx, line); !ok {
			return nil, &RefusedError{Command: line, Reason: reason}
		}
	}
	sandbox := r.Sandbox
	if spec.Purpose == Download && r.DownloadSandbox != nil {
		sandbox = r.DownloadSandbox
	}
	if spec.Purpose == Git {
		sandbox = r.GitSandbox
	}
	cmd, err := r.command(ctx, spec)
	if err != nil {
		return nil, err
	}
	if err := wire(cmd); err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	// A daemon that keeps our pipes open must not hang the call.
	cmd.WaitDelay = 2 * time.Second
	p := &prepared{cmd: cmd, spec: spec, sandbox: sandbox}
	if sandbox != nil {
		if err := sandbox.Wrap(cmd, spec); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// prepared is a command ready to start, with the sandbox that wrapped it.
type prepared struct {
	cmd     *exec.Cmd
	spec    Spec
	sandbox Wrapper
}

// start starts the command, through the sandbox when it starts its own
// (a Starter); a program that is not there is a *NotFoundError.
func (p *prepared) start() error {
	var err error
	if s, ok := p.sandbox.(Starter); ok {
		err = s.Start(p.cmd)
	} else {
		err = p.cmd.Start()
	}
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return &NotFoundError{Name: firstArg(p.spec)}
		}
		return fmt.Errorf("start %s: %w", firstArg(p.spec), err)
	}
	return nil
}

// release ends the sandbox's per-command hold (a Releaser's), once the
// command and its group are gone or it failed to start.
func (p *prepared) release() {
	if r, ok := p.sandbox.(Releaser); ok {
		r.Release(p.cmd)
	}
}

// outputCap is the spec's cap on kept output, DefaultOutputCap when unset.
func outputCap(spec Spec) int {
	if spec.OutputCap <= 0 {
		return DefaultOutputCap
	}
	return spec.OutputCap
}

func (r *Runner) command(ctx context.Context, spec Spec) (*exec.Cmd, error) {
	var argv []string
	switch {
	case spec.Shell != "" && len(spec.Args) > 0:
		return nil, errors.New("run: both Shell and Args set")
	case spec.Shell != "":
		argv = []string{"bash", "-c", spec.Shell}
	case len(spec.Args) > 0:
		argv = spec.Args
	default:
		return nil, errors.New("run: empty command")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if cmd.Err != nil {
		if errors.Is(cmd.Err, exec.ErrNotFound) {
			return nil, &NotFoundError{Name: argv[0]}
		}
		return nil, cmd.Err
	}
	cmd.Dir = spec.Dir
	cmd.Stdin = spec.Stdin
	cmd.Env = r.Environ(spec.Purpose, spec.Env)
	return cmd, nil
}

// CommandLine is spec as one shell line: Shell, or Args quoted.
func CommandLine(spec Spec) string {
	if spec.Shell != "" {
		return spec.Shell
	}
	q := make([]string, len(spec.Args))
	for i, a := range spec.Args {
		q[i] = shell.Quote(a)
	}
	return strings.Join(q, " ")
}

func firstArg(spec Spec) string {
	if len(spec.Args) > 0 {
		return spec.Args[0]
	}
	return "bash"
}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

func exitCode(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState != nil {
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -1
		}
		return cmd.ProcessState.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
