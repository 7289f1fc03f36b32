// Package git is chanto's own git: the one way chanto reads a repository
// (the change set, the turn snapshot, base revisions, file lists). Every
// call goes through internal/run with Purpose run.Git, which puts it in the
// runner's git sandbox: the whole machine read-only, the project and its
// git folders included, no network, a PID namespace of its own. Whatever a
// repository's configuration makes git start (filters, hooks, fsmonitor,
// pagers, ssh or proxy commands, remote helpers, lazy fetches) therefore
// runs confined, and on top of that this package turns those settings off
// on the command line and in the environment, so they normally do not run
// at all. Without a sandbox ([sandbox] mode = "off") only the second layer
// holds.
//
// chanto's view of a file is its bytes on disk: content filters (git-lfs),
// end-of-line conversion and ident expansion are off for chanto's git, so a
// file git stores in another form is compared by its raw bytes (see
// docs/security.md, "chanto's own git").
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
)

// DefaultTimeout bounds a git call that sets none: a transport that never
// answers, a lock held forever or a huge repository end in an error, not
// a hang.
const DefaultTimeout = 2 * time.Minute

// Cmd is one git call.
type Cmd struct {
	// Dir is the folder git starts in.
	Dir string
	// Args follow "git" and chanto's own settings: the subcommand first.
	Args []string
	// Stdin feeds git; nil means no input.
	Stdin io.Reader
	// Stdout receives git's output; nil keeps it for Output.
	Stdout io.Writer
	// Timeout ends the call; 0 means DefaultTimeout.
	Timeout time.Duration
}

// Error is a git call that exited non-zero or timed out.
type Error struct {
	Args     []string
	ExitCode int
	TimedOut bool
	// Msg is git's last "fatal:" line (prefix dropped), else its last line.
	Msg string
}

func (e *Error) Error() string {
	sub := "git"
	for _, a := range e.Args {
		if !strings.HasPrefix(a, "--") {
			sub = "git " + a
			break
		}
	}
	return sub + ": " + e.Msg
}

// settings are given to every call. Command-line settings override the
// repository's configuration (and the files it includes); each turns off a
// way for a read to start a program or to change what it reads.
var settings = []string{
	"--no-pager",
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.quotepath=off",
	"-c", "core.untrackedCache=false",
	"-c", "core.autocrlf=false",
	"-c", "core.safecrlf=false",
	"-c", "core.sshCommand=false",
	"-c", "core.gitProxy=",
	"-c", "core.askPass=false",
	"-c", "credential.helper=",
	"-c", "diff.external=",
	"-c", "submodule.recurse=false",
	"-c", "protocol.allow=never",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "uploadpack.packObjectsHook=",
}

// environment turns off what the settings cannot: lazy fetches of a
// partial clone (GIT_NO_LAZY_FETCH, git 2.45 and later; every transport is
// refused by GIT_ALLOW_PROTOCOL for older ones), the system-wide config,
// prompts, pagers and optional index writes.
var environment = []string{
	"GIT_NO_LAZY_FETCH=1",
	"GIT_ALLOW_PROTOCOL=",
	"GIT_PROTOCOL_FROM_USER=0",
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_TERMINAL_PROMPT=0",
	"GIT_OPTIONAL_LOCKS=0",
	"GIT_PAGER=cat",
	"GIT_EXTERNAL_DIFF=",
	"GIT_SSH=false",
	"GIT_SSH_COMMAND=false",
	"GIT_ASKPASS=false",
	"SSH_ASKPASS=false",
	"GIT_PROXY_COMMAND=",
}

// contentReaders are the subcommands that may hash work-tree files, which
// is where clean filters and conversions apply; they get the configured
// filters switched off and never look inside nested repositories.
var contentReaders = []string{"diff", "diff-files", "diff-index", "status"}

// Run executes c and waits for it.
func Run(ctx context.Context, r *run.Runner, c Cmd) error {
	_, err := run0(ctx, r, c)
	return err
}

// Output runs git in dir and returns its stdout.
func Output(ctx context.Context, r *run.Runner, dir string, args ...string) ([]byte, error) {
	return run0(ctx, r, Cmd{Dir: dir, Args: args})
}

func run0(ctx context.Context, r *run.Runner, c Cmd) ([]byte, error) {
	if len(c.Args) == 0 {
		return nil, errors.New("git: no subcommand")
	}
	if r == nil {
		r = &run.Runner{}
	}
	args, err := argv(ctx, r, c)
	if err != nil {
		return nil, err
	}
	return call(ctx, r, c, args)
}

func call(ctx context.Context, r *run.Runner, c Cmd, args []string) ([]byte, error) {
	var out bytes.Buffer
	stdout := c.Stdout
	if stdout == nil {
		stdout = &out
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var stderr bytes.Buffer
	res, err := r.Run(ctx, run.Spec{Args: args, Dir: c.Dir, Env: environment, Stdin: c.Stdin,
		Stdout: stdout, Stderr: &stderr, Timeout: timeout, OutputCap: 4096, Purpose: run.Git})
	if err != nil {
		return nil, err
	}
	if res.TimedOut {
		return nil, &Error{Args: c.Args, ExitCode: -1, TimedOut: true, Msg: "timed out after " + timeout.String()}
	}
	if res.ExitCode != 0 {
		return nil, &Error{Args: c.Args, ExitCode: res.ExitCode, Msg: lastMessage(stderr.String())}
	}
	return out.Bytes(), nil
}

// argv is the whole command line of c.
func argv(ctx context.Context, r *run.Runner, c Cmd) ([]string, error) {
	args := slices.Concat([]string{"git"}, settings)
	rest := c.Args
	for len(rest) > 1 && strings.HasPrefix(rest[0], "--") {
		args = append(args, rest[0]) // a global option such as --literal-pathspecs
		rest = rest[1:]
	}
	sub := rest[0]
	c.Args = rest
	if slices.Contains(contentReaders, sub) {
		off, err := filtersOff(ctx, r, c.Dir)
		if err != nil {
			return nil, err
		}
		args = append(args, off...)
		args = append(args, sub)
		if sub != "status" {
			args = append(args, "--no-ext-diff", "--no-textconv")
		}
		args = append(args, "--ignore-submodules=dirty")
		return append(args, c.Args[1:]...), nil
	}
	return append(args, c.Args...), nil
}

// filtersOff lists settings that empty every content filter the
// configuration defines (in any file, included ones too), so no clean or
// process command runs and a file is hashed as its bytes. When the
// configuration files certainly define none, git is not asked.
func filtersOff(ctx context.Context, r *run.Runner, dir string) ([]string, error) {
	if noFilters(r, dir) {
		return nil, nil
	}
	out, err := call(ctx, r, Cmd{Dir: dir, Args: []string{"config"}},
		slices.Concat([]string{"git"}, settings, []string{"config", "-z", "--name-only", "--get-regexp", `^filter\.`}))
	var ge *Error
	if errors.As(err, &ge) && ge.ExitCode == 1 {
		return nil, nil // no filter is configured
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, key := range strings.FieldsFunc(string(out), func(r rune) bool { return r == 0 || r == '\n' }) {
		i, j := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
		if i < 0 || j <= i {
			continue
		}
		if name := key[i+1 : j]; !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	var off []string
	for _, n := range names {
		for _, k := range []string{"clean", "smudge", "process"} {
			off = append(off, "-c", "filter."+n+"."+k+"=")
		}
		off = append(off, "-c", "filter."+n+".required=false")
	}
	return off, nil
}

// lastMessage is git's "fatal:" line without the prefix, else its last line.
func lastMessage(stderr string) string {
	msg := strings.TrimSpace(stderr)
	lines := strings.Split(msg, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if m, ok := strings.CutPrefix(lines[i], "fatal: "); ok {
			return m
		}
	}
	if len(lines) > 0 {
		msg = lines[len(lines)-1]
	}
	if msg == "" {
		return "failed with no message"
	}
	return strings.TrimPrefix(msg, "error: ")
}

// Top is the top of the work tree holding dir: found by reading files
// when Discover is sure of it, else asked of git.
func Top(ctx context.Context, r *run.Runner, dir string) (string, error) {
	if repo, ok := Discover(r, dir); ok {
		return repo.Top, nil
	}
	out, err := Output(ctx, r, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	top := strings.TrimSpace(string(out))
	if top == "" {
		return "", fmt.Errorf("git rev-parse: %s is not in a work tree", dir)
	}
	return top, nil
}

// Split0 splits NUL-terminated output (the -z form) into its fields.
func Split0(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}
