package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
)

// ErrMissing is what Objects.Read returns for a name git cannot resolve
// to an object it has: a path the revision does not hold, a submodule's
// commit, an unknown revision.
var ErrMissing = errors.New("no such object")

// Objects reads objects of one repository through a single
// `git cat-file --batch` process, started (sandboxed, like every git
// call) at the first read and kept until Close: any number of reads cost
// one start. Each read waits at most DefaultTimeout; a read that times
// out or finds the process gone ends it, and every later read fails.
// It is safe for concurrent use.
type Objects struct {
	ctx context.Context
	r   *run.Runner
	dir string

	mu      sync.Mutex
	started bool
	p       *run.Process
	out     *bufio.Reader
	err     error // set once the process cannot answer any more
}

// NewObjects returns a reader for the repository holding dir; nothing
// starts until the first read.
func NewObjects(ctx context.Context, r *run.Runner, dir string) *Objects {
	if ctx == nil {
		ctx = context.Background()
	}
	if r == nil {
		r = &run.Runner{}
	}
	return &Objects{ctx: ctx, r: r, dir: dir}
}

// Object is one object as cat-file prints it.
type Object struct {
	ID   string // hex object id
	Type string // blob, tree, commit or tag
	Data []byte
}

// Read returns the object name resolves to (any name cat-file takes:
// "HEAD:path/to/file", "HEAD:" for the root tree, "HEAD^{tree}"). A name
// git cannot find is ErrMissing; a name holding a newline is refused.
func (o *Objects) Read(name string) (Object, error) {
	if name == "" || strings.ContainsAny(name, "\n\r") {
		return Object{}, fmt.Errorf("git cat-file: object name %q cannot be asked for", name)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.start(); err != nil {
		return Object{}, err
	}
	timer := time.AfterFunc(DefaultTimeout, func() { o.p.Stop(0) })
	obj, err := o.ask(name)
	if !timer.Stop() && err != nil {
		err = &Error{Args: []string{"cat-file", "--batch"}, ExitCode: -1, TimedOut: true, Msg: "timed out after " + DefaultTimeout.String()}
	}
	if err != nil && !errors.Is(err, ErrMissing) {
		o.fail(err)
	}
	return obj, err
}

// start runs cat-file once; the caller holds mu.
func (o *Objects) start() error {
	if o.err != nil {
		return o.err
	}
	if o.started {
		return nil
	}
	o.started = true
	args, err := argv(o.ctx, o.r, Cmd{Dir: o.dir, Args: []string{"cat-file", "--batch"}})
	if err == nil {
		o.p, err = o.r.Start(o.ctx, run.Spec{Args: args, Dir: o.dir, Env: environment, OutputCap: 4096, Purpose: run.Git})
	}
	if err != nil {
		o.err = err
		return err
	}
	o.out = bufio.NewReaderSize(o.p.Stdout, 64<<10)
	return nil
}

// ask sends one name and reads its answer; the caller holds mu.
func (o *Objects) ask(name string) (Object, error) {
	if _, err := io.WriteString(o.p.Stdin, name+"\n"); err != nil {
		return Object{}, o.gone(err)
	}
	header, err := o.out.ReadString('\n')
	if err != nil {
		return Object{}, o.gone(err)
	}
	header = strings.TrimSuffix(header, "\n")
	if rest, ok := strings.CutPrefix(header, name+" "); ok && (rest == "missing" || rest == "ambiguous") {
		if rest == "ambiguous" {
			return Object{}, fmt.Errorf("git cat-file: %s is ambiguous", name)
		}
		return Object{}, ErrMissing
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return Object{}, fmt.Errorf("git cat-file: unexpected answer %q for %s", header, name)
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		return Object{}, fmt.Errorf("git cat-file: unexpected size in %q for %s", header, name)
	}
	data := make([]byte, size+1)
	if _, err := io.ReadFull(o.out, data); err != nil {
		return Object{}, o.gone(err)
	}
	if data[size] != '\n' {
		return Object{}, fmt.Errorf("git cat-file: %s's content does not end where its size says", name)
	}
	return Object{ID: f[0], Type: f[1], Data: data[:size:size]}, nil
}

// gone turns a broken pipe into an error naming git's last words.
func (o *Objects) gone(err error) error {
	if o.p != nil {
		if msg := strings.TrimSpace(string(o.p.Stderr())); msg != "" {
			return &Error{Args: []string{"cat-file", "--batch"}, ExitCode: o.p.ExitCode(), Msg: lastMessage(msg)}
		}
	}
	return fmt.Errorf("git cat-file --batch stopped answering: %w", err)
}

// fail ends the process after an error that leaves its output unknown;
// the caller holds mu.
func (o *Objects) fail(err error) {
	o.err = err
	if o.p != nil {
		o.p.Stop(0)
	}
}

// Close ends the process, if one started. Reads after Close fail.
func (o *Objects) Close() {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		o.err = errors.New("git objects: closed")
	}
	if o.p != nil {
		o.p.Stop(time.Second)
	}
}

// TreeEntry is one entry of a tree object.
type TreeEntry struct {
	Mode uint32 // 0o100644, 0o100755, 0o120000 (symlink), 0o40000 (tree), 0o160000 (submodule)
	Name string
}

// ParseTree reads a tree object's raw content; id is the tree's own hex
// id, whose length gives the hash size (SHA-1 or SHA-256).
func ParseTree(id string, data []byte) ([]TreeEntry, error) {
	hashLen := len(id) / 2
	if hashLen != 20 && hashLen != 32 {
		return nil, fmt.Errorf("git tree %s: not an object id", id)
	}
	var out []TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("git tree %s: entry without a mode", id)
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("git tree %s: mode %q", id, data[:sp])
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+1+hashLen {
			return nil, fmt.Errorf("git tree %s: truncated entry", id)
		}
		out = append(out, TreeEntry{Mode: uint32(mode), Name: string(data[:nul])})
		data = data[nul+1+hashLen:]
	}
	return out, nil
}

// OutputsThenObjects is Outputs whose one sandboxed start then stays as
// the cat-file process of the Objects it returns: the commands' outputs
// and every later object read cost one start between them. The caller
// closes the Objects. Without a git sandbox there is no start to save:
// it is Outputs and NewObjects.
func OutputsThenObjects(ctx context.Context, r *run.Runner, dir string, cmds ...[]string) ([][]byte, *Objects, error) {
	if r == nil {
		r = &run.Runner{}
	}
	if r.GitSandbox == nil || len(cmds) == 0 {
		outs, err := Outputs(ctx, r, dir, cmds...)
		if err != nil {
			return nil, nil, err
		}
		return outs, NewObjects(ctx, r, dir), nil
	}
	script, marker, err := markedScript(ctx, r, dir, cmds)
	if err != nil {
		return nil, nil, err
	}
	args, err := argv(ctx, r, Cmd{Dir: dir, Args: []string{"cat-file", "--batch"}})
	if err != nil {
		return nil, nil, err
	}
	if gitPath, err := exec.LookPath("git"); err == nil {
		args[0] = gitPath // as markedScript does: no search of PATH by the shell
	}
	var b strings.Builder
	b.WriteString(script)
	b.WriteString("exec ")
	writeArgs(&b, args)
	stderr := &markedStream{marker: "\x00" + marker + " ", want: len(cmds), done: make(chan struct{})}
	p, err := r.Start(ctx, run.Spec{Args: []string{"/bin/sh", "-c", b.String()}, Dir: dir, Env: environment,
		Stderr: stderr, OutputCap: 4096, Purpose: run.Git})
	if err != nil {
		return nil, nil, err
	}
	o := &Objects{ctx: ctx, r: r, dir: dir, started: true, p: p, out: bufio.NewReaderSize(p.Stdout, 64<<10)}
	timer := time.AfterFunc(DefaultTimeout, func() { p.Stop(0) })
	defer timer.Stop()
	// Read stdout up to the last command's marker; what follows is
	// cat-file's, and it says nothing until asked.
	var stdout []byte
	for seen := 0; seen < len(cmds); {
		chunk, err := o.out.ReadBytes(0)
		stdout = append(stdout, chunk...)
		if err != nil {
			break
		}
		if rest, ok := bytes.CutPrefix(chunk, []byte(marker+" ")); ok && isStatus(rest) {
			seen++
		}
	}
	select {
	case <-stderr.done:
	case <-p.Done():
	case <-ctx.Done():
	}
	outs, err := splitOutputs(stdout, stderr.bytes(), marker, cmds, p.ExitCode())
	if err != nil {
		o.Close()
		if !timer.Stop() {
			return nil, nil, &Error{Args: cmds[0], ExitCode: -1, TimedOut: true, Msg: "timed out after " + DefaultTimeout.String()}
		}
		return nil, nil, err
	}
	return outs, o, nil
}

// isStatus reports whether b is a marker's tail: digits, then NUL.
func isStatus(b []byte) bool {
	if len(b) < 2 || b[len(b)-1] != 0 {
		return false
	}
	for _, c := range b[:len(b)-1] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// markedStream keeps a command's stderr until want markers went by
// (closing done), and only a bounded tail after that.
type markedStream struct {
	marker string
	want   int
	done   chan struct{}

	mu   sync.Mutex
	buf  []byte
	scan int // buf[:scan] holds the markers counted so far
	seen int
}

func (m *markedStream) Write(b []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen >= m.want {
		return len(b), nil // cat-file's own stderr: the Process keeps its tail
	}
	m.buf = append(m.buf, b...)
	for m.seen < m.want {
		i := bytes.Index(m.buf[m.scan:], []byte(m.marker))
		if i < 0 {
			break
		}
		// A marker counts once its status has ended.
		start := m.scan + i + len(m.marker)
		j := bytes.IndexByte(m.buf[start:], 0)
		if j < 0 {
			break
		}
		m.scan = start + j + 1
		m.seen++
	}
	if m.seen == m.want {
		m.buf = m.buf[:m.scan]
		close(m.done)
	}
	return len(b), nil
}

func (m *markedStream) bytes() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return bytes.Clone(m.buf)
}
