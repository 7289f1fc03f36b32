package tool

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/shell"
)

//go:embed bash.md
var bashDoc string

const (
	bashDefaultTimeout = 2 * time.Minute
	bashMaxTimeout     = 10 * time.Minute
	// BashOutputCap bounds what the model sees of one command's output.
	BashOutputCap = 30000
)

// Bash runs a shell command in a working directory that persists across
// calls.
type Bash struct{}

var _ Tool = Bash{}

type bashInput struct {
	Command     string `json:"command"`
	TimeoutMS   int    `json:"timeout_ms,omitempty"`
	Description string `json:"description,omitempty"`
}

func (Bash) Name() string        { return "bash" }
func (Bash) Description() string { return bashDoc }
func (Bash) ReadOnly() bool      { return false }
func (Bash) Schema() json.RawMessage {
	return schema(`{
"command":{"type":"string","description":"The shell command to run (bash)."},
"timeout_ms":{"type":"integer","description":"Time limit in milliseconds (default 120000, at most 600000)."},
"description":{"type":"string","description":"A few words saying what the command does."}}`, "command")
}

// Run executes the command through the runner in the persistent working
// directory and learns the directory the command ended in.
func (Bash) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	var in bashInput
	if r := decode("bash", input, &in); r != nil {
		return *r, nil
	}
	if strings.TrimSpace(in.Command) == "" {
		return errorf("command is empty"), nil
	}
	timeout := bashDefaultTimeout
	if in.TimeoutMS < 0 {
		return errorf("timeout_ms must be positive"), nil
	}
	if in.TimeoutMS > 0 {
		timeout = min(time.Duration(in.TimeoutMS)*time.Millisecond, bashMaxTimeout)
	}
	if env.Runner == nil {
		return Result{}, fmt.Errorf("bash: no runner")
	}
	nonce := newNonce()
	var notes []string
	dir := env.Cwd()
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		notes = append(notes, fmt.Sprintf("[working directory %s no longer exists; back at the project root]", dir))
		dir = env.Root
		env.SetCwd("")
	}
	res, err := env.Runner.Run(ctx, run.Spec{
		Shell:     bashScript(in.Command, nonce),
		Dir:       dir,
		Timeout:   timeout,
		OutputCap: BashOutputCap,
		Purpose:   run.Model,
	})
	if err != nil {
		return Result{}, err
	}
	var endDir string
	res.Output, endDir = cutCwdMarker(res.Output, nonce)
	notes = append(notes, learnCwd(env, endDir)...)
	return Result{Output: formatBash(res, timeout, notes), IsError: res.TimedOut, ExitCode: res.ExitCode, TimedOut: res.TimedOut, Dir: dir, Duration: res.Duration}, nil
}

// bashScript wraps the command so that, however it ends (normally, exit,
// set -e), an EXIT trap prints a marker line with the final working
// directory. The marker goes to a copy of the original stdout on an
// out-of-the-way descriptor, so it reaches us even when the command
// redirected its own stdout, and it travels in the output stream itself,
// which works inside a sandbox with a private /tmp. (A fixed number rather
// than bash 4's {var} form keeps macOS's bash 3.2 working.) The command
// goes on its own lines so heredocs and trailing comments work.
func bashScript(command, nonce string) string {
	trap := `printf '\n%s%s\n' ` + nonce + ` "$PWD" >&87 2>/dev/null`
	return "exec 87>&1\ntrap " + shell.Quote(trap) + " EXIT\n" + command + "\n"
}

// newNonce makes the marker unguessable, so no output can fake it.
func newNonce() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "__chanto_cwd_" + hex.EncodeToString(b) + "="
}

// cutCwdMarker removes the last marker line from out and returns the
// directory it names ("" when the command never reached its EXIT trap).
func cutCwdMarker(out []byte, nonce string) ([]byte, string) {
	i := bytes.LastIndex(out, []byte("\n"+nonce))
	if i < 0 {
		return out, ""
	}
	rest := out[i+1+len(nonce):]
	end := bytes.IndexByte(rest, '\n')
	if end < 0 {
		return out, ""
	}
	dir := string(rest[:end])
	clean := append(out[:i:i], rest[end+1:]...)
	return clean, dir
}

// learnCwd moves the persistent directory to where the command ended and
// returns a note when that is outside the project.
func learnCwd(env *Env, dir string) []string {
	if dir == "" {
		return nil
	}
	if logical := underRoot(env.Root, dir); env.inside(logical) {
		env.SetCwd(logical)
		return nil
	}
	env.SetCwd(dir)
	return []string{fmt.Sprintf("[working directory is now %s, outside the project root %s]", dir, env.Root)}
}

// underRoot maps dir (a physical path from pwd -P) back under root when
// root itself is reached through a symlink, so paths keep the root's form.
func underRoot(root, dir string) string {
	rr, err := filepath.EvalSymlinks(root)
	if err != nil {
		return dir
	}
	if dir == rr {
		return root
	}
	if strings.HasPrefix(dir, rr+"/") {
		return root + dir[len(rr):]
	}
	return dir
}

func formatBash(res run.Result, timeout time.Duration, notes []string) string {
	var b strings.Builder
	out := strings.ToValidUTF8(string(res.Output), "\uFFFD")
	b.WriteString(out)
	if out != "" && !strings.HasSuffix(out, "\n") {
		b.WriteByte('\n')
	}
	switch {
	case res.TimedOut:
		fmt.Fprintf(&b, "[timed out after %s; process group killed]\n", formatDuration(timeout))
	case res.ExitCode == -1:
		b.WriteString("[killed by a signal]\n")
	case res.ExitCode != 0:
		fmt.Fprintf(&b, "[exit code %d]\n", res.ExitCode)
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	if b.Len() == 0 {
		return "(no output)"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func formatDuration(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", int(d/time.Second))
	}
	return d.String()
}
