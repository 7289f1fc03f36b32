package git

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
)

// Outputs runs several git commands in dir with one sandboxed start
// (each start costs about 12 ms of CPU and more of wall time on a loaded
// machine): /bin/sh runs them in turn inside the git sandbox, each with
// the same settings and environment as Output, and closes each one's
// stdout and stderr with a marker holding a random nonce and the
// command's exit status. The nonce is drawn per call, so no output of
// a command (a file name, say) can pass for a marker. Every command
// runs even when one before it failed; the first failure is returned,
// as Output would have returned it.
func Outputs(ctx context.Context, r *run.Runner, dir string, cmds ...[]string) ([][]byte, error) {
	if r == nil {
		r = &run.Runner{}
	}
	if r.GitSandbox == nil || len(cmds) < 2 {
		return outputsOneByOne(ctx, r, dir, cmds)
	}
	script, marker, err := markedScript(ctx, r, dir, cmds)
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	res, err := r.Run(ctx, run.Spec{Args: []string{"/bin/sh", "-c", script}, Dir: dir, Env: environment,
		Stdout: &stdout, Stderr: &stderr, Timeout: DefaultTimeout, OutputCap: 4096, Purpose: run.Git})
	if err != nil {
		return nil, err
	}
	if res.TimedOut {
		return nil, &Error{Args: cmds[0], ExitCode: -1, TimedOut: true, Msg: "timed out after " + DefaultTimeout.String()}
	}
	return splitOutputs(stdout.Bytes(), stderr.Bytes(), marker, cmds, res.ExitCode)
}

// markedScript is the /bin/sh script that runs cmds in turn, each closed
// on stdout and stderr by "\0<marker> <status>\0", the marker holding a
// nonce drawn for this call.
func markedScript(ctx context.Context, r *run.Runner, dir string, cmds [][]string) (script, marker string, err error) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return "", "", &run.NotFoundError{Name: "git"}
	}
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return "", "", err
	}
	marker = "chanto-" + hex.EncodeToString(nonce)
	var b strings.Builder
	for _, c := range cmds {
		if len(c) == 0 {
			return "", "", fmt.Errorf("git: no subcommand")
		}
		args, err := argv(ctx, r, Cmd{Dir: dir, Args: c})
		if err != nil {
			return "", "", err
		}
		args[0] = gitPath
		writeArgs(&b, args)
		// One marker on each stream: "\0<marker> <status>\0".
		fmt.Fprintf(&b, " </dev/null; s=$?; printf '\\000%s %%d\\000' $s; printf '\\000%s %%d\\000' $s >&2\n", marker, marker)
	}
	return b.String(), marker, nil
}

func writeArgs(b *strings.Builder, args []string) {
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shQuote(a))
	}
}

// splitOutputs cuts the marked streams into each command's output and
// returns the first failure as Output would have.
func splitOutputs(stdout, stderr []byte, marker string, cmds [][]string, exit int) ([][]byte, error) {
	outs, codes, ok := splitMarked(stdout, marker, len(cmds))
	errs, _, eok := splitMarked(stderr, marker, len(cmds))
	if !ok || !eok {
		return nil, &Error{Args: cmds[0], ExitCode: exit, Msg: "the batched git commands did not all finish: " + lastMessage(string(stderr))}
	}
	for i, code := range codes {
		if code != 0 {
			return nil, &Error{Args: cmds[i], ExitCode: code, Msg: lastMessage(string(errs[i]))}
		}
	}
	return outs, nil
}

// outputsOneByOne is Outputs without a sandbox to save starts of: the
// commands run as separate Output calls.
func outputsOneByOne(ctx context.Context, r *run.Runner, dir string, cmds [][]string) ([][]byte, error) {
	outs := make([][]byte, len(cmds))
	for i, c := range cmds {
		out, err := Output(ctx, r, dir, c...)
		if err != nil {
			return nil, err
		}
		outs[i] = out
	}
	return outs, nil
}

// splitMarked cuts b at its n markers ("\0<marker> <status>\0"); false
// when there are not exactly n, or a status is not a number.
func splitMarked(b []byte, marker string, n int) (parts [][]byte, codes []int, ok bool) {
	sep := []byte("\x00" + marker + " ")
	for len(parts) < n {
		i := bytes.Index(b, sep)
		if i < 0 {
			return nil, nil, false
		}
		parts = append(parts, b[:i])
		rest := b[i+len(sep):]
		j := bytes.IndexByte(rest, 0)
		if j < 0 {
			return nil, nil, false
		}
		code, err := strconv.Atoi(string(rest[:j]))
		if err != nil {
			return nil, nil, false
		}
		codes = append(codes, code)
		b = rest[j+1:]
	}
	return parts, codes, len(b) == 0
}

// shQuote quotes s for /bin/sh in single quotes; a quote inside ends
// the quoting, is escaped with a backslash, and opens it again.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
