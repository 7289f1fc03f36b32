package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/sandbox"
	"github.com/chanto-dev/chanto/internal/tool"
)

// When the sandbox cannot be set up, the model's commands and the gate's
// checks are refused with the how-to-fix message; nothing runs unconfined.
func TestSandboxUnavailableRefusesCommands(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	sandboxOptions = []sandbox.Option{sandbox.WithBwrapPath("/nonexistent/bwrap")}
	defer func() { sandboxOptions = nil }()
	dir := t.TempDir()
	cfg := config.Default()
	r, err := newRunner(cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "ran")
	in, _ := json.Marshal(map[string]string{"command": "touch " + marker})
	_, err = tool.Bash{}.Run(context.Background(), &tool.Env{Root: dir, Runner: r}, in)
	if err == nil || !strings.Contains(err.Error(), "install bubblewrap") {
		t.Fatalf("bash: err = %v, want the sandbox's how-to-fix message", err)
	}
	_, err = r.Run(context.Background(), run.Spec{Shell: "touch " + marker, Dir: dir, Purpose: run.Check})
	if err == nil || !strings.Contains(err.Error(), "sandbox unavailable") {
		t.Fatalf("check: err = %v, want sandbox unavailable", err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a command ran without the sandbox: %v", err)
	}
	// --sandbox off is the explicit way out.
	cfg.Sandbox.Mode = sandbox.ModeOff
	if r, err = newRunner(cfg, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), run.Spec{Shell: "touch " + marker, Dir: dir, Purpose: run.Check}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("with the sandbox off the command should run: %v", err)
	}
}

// Print mode still runs without a sandbox: the file tools work, bash says
// how to fix it, and a gate that cannot run its check ends not verified.
func TestPrintModeWithoutSandbox(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	sandboxOptions = []sandbox.Option{sandbox.WithBwrapPath("/nonexistent/bwrap")}
	defer func() { sandboxOptions = nil }()
	dir := t.TempDir()
	t.Chdir(dir)
	script := `call read {"path":"notes.txt"}
---
expect hello
call bash {"command":"touch ran"}
---
expect install bubblewrap
say done
---
say still done
`
	for name, body := range map[string]string{"notes.txt": "hello\n", "model.script": script} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"-p", "go", "--model", "scripted:model.script",
		"--permission-mode", "bypass", "--verify", "--verify-check", "true"}, strings.NewReader(""), &stdout, &stderr)
	if code != ExitNotVerified || !strings.Contains(stdout.String(), "Not verified") {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, ExitNotVerified, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("bash ran without the sandbox: %v", err)
	}
}

// chanto verify runs the user's own checks at the user's request: when no
// configuration asked for the sandbox and it cannot be set up here (a fresh
// machine without bubblewrap), it says so and runs them anyway. Once the
// configuration asks for it, it is required.
func TestVerifyWithoutBubblewrap(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CHANTO_HOME", home)
	sandboxOptions = []sandbox.Option{sandbox.WithBwrapPath("/nonexistent/bwrap")}
	sandboxProbe = func() error { return errors.New("sandbox unavailable: /nonexistent/bwrap not found") }
	defer func() { sandboxOptions, sandboxProbe = nil, sandbox.Probe }()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitInit(t, dir)
	t.Chdir(dir)

	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"verify", "--check", "true"}, strings.NewReader(""), &stdout, &stderr)
	if code != ExitOK || !strings.Contains(stderr.String(), "running the checks without the sandbox") {
		t.Fatalf("default sandbox: exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}

	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[sandbox]\nmode = \"workspace-write\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	code = Main(context.Background(), []string{"verify", "--check", "true"}, strings.NewReader(""), &stdout, &stderr)
	// chanto's own git is refused first: it runs in the sandbox too.
	if code != ExitError || !strings.Contains(stderr.String(), "sandbox unavailable") {
		t.Fatalf("configured sandbox: exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
}

func TestRegistryDomains(t *testing.T) {
	got := registryDomains("https://goproxy.example.com/mod,direct", "sum.example.com+abc https://sum.example.com:8443")
	want := []string{"proxy.golang.org", "sum.golang.org", "index.crates.io", "static.crates.io", "crates.io", "goproxy.example.com", "sum.example.com:8443"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("registryDomains = %q, want %q", got, want)
	}
}
