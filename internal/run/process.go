package run

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"sync"
	"time"
)

// Process is a long-running command started by Runner.Start: a server
// that chanto talks to over its stdin and stdout (an MCP server). It has
// the same environment, process group and sandbox as a command Run runs;
// what differs is that the caller holds the pipes and decides when it
// ends.
type Process struct {
	// Stdin is the command's standard input; closing it asks a well-
	// behaved server to exit.
	Stdin io.WriteCloser
	// Stdout is the command's standard output.
	Stdout io.ReadCloser

	cmd    *exec.Cmd
	stderr *Capped
	done   chan struct{}
	err    error
	once   sync.Once
}

// Start starts spec and returns at once with its pipes. spec.Stdin,
// Stdout, Combined and Timeout must be unset (the pipes are the caller's;
// ending the command is the caller's too, by Stop or by cancelling ctx,
// which kills the whole group). Stderr keeps its tail (OutputCap bytes,
// DefaultOutputCap when 0) for the caller to show when the command dies;
// spec.Stderr, if set, receives it as well.
func (r *Runner) Start(ctx context.Context, spec Spec) (*Process, error) {
	if spec.Stdin != nil || spec.Stdout != nil || spec.Combined || spec.Timeout != 0 {
		return nil, errors.New("run: Start takes no Stdin, Stdout, Combined or Timeout")
	}
	p := &Process{stderr: NewCapped(outputCap(spec)), done: make(chan struct{})}
	prep, err := r.prepare(ctx, spec, func(cmd *exec.Cmd) error {
		var stderr io.Writer = p.stderr
		if spec.Stderr != nil {
			stderr = io.MultiWriter(stderr, spec.Stderr)
		}
		if spec.Live != nil {
			stderr = io.MultiWriter(stderr, spec.Live)
		}
		cmd.Stderr = stderr
		var err error
		if p.Stdin, err = cmd.StdinPipe(); err != nil {
			return err
		}
		p.Stdout, err = cmd.StdoutPipe()
		return err
	})
	if err != nil {
		return nil, err
	}
	cmd := prep.cmd
	p.cmd = cmd
	if err := prep.start(); err != nil {
		prep.release()
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		_ = killGroup(cmd)
		prep.release()
		close(p.done)
	}()
	return p, nil
}

// Pid is the process id of the command (the sandbox's, when sandboxed).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the command has exited and its group was killed.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the command has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// ExitCode is the exit status once Done is closed; -1 when killed by a
// signal or still running.
func (p *Process) ExitCode() int {
	if !p.Exited() {
		return -1
	}
	return exitCode(p.cmd, p.err)
}

// Stderr is what the command wrote to its standard error so far, capped
// to its head and tail.
func (p *Process) Stderr() []byte { return p.stderr.Bytes() }

// Stop ends the command: its stdin is closed, and after grace the whole
// group is killed if it has not exited by then. It waits for the exit.
func (p *Process) Stop(grace time.Duration) {
	p.once.Do(func() {
		_ = p.Stdin.Close()
		select {
		case <-p.done:
		case <-time.After(grace):
			_ = killGroup(p.cmd)
			<-p.done
		}
	})
	<-p.done
}
