package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
)

// need fails the test when a server the suite installs is missing:
// scripts/test installs them, and no language is skipped silently.
func need(t *testing.T, bin, install string) {
	t.Helper()
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("%s is not on PATH (scripts/test installs it: %s)", bin, install)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// manager has a generous bound: the wait ends as soon as diagnostics
// arrive, and a loaded machine must not turn a slow start into a failure.
func manager(t *testing.T, root string, mod func(*config.LSP)) *Manager {
	t.Helper()
	cfg := config.Default().LSP
	cfg.WaitMS = 120_000
	if mod != nil {
		mod(&cfg)
	}
	m := New(Options{Config: cfg, Root: root, Runner: &run.Runner{}})
	t.Cleanup(m.Close)
	return m
}

// edit writes content to name and touches it, as the edit tool does.
func edit(t *testing.T, m *Manager, root, name, content string) Report {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return m.Touch(context.Background(), p, []byte(content))
}

func TestServersReportTypeErrorsAtTheirLine(t *testing.T) {
	cases := []struct {
		name, bin, install string
		files              map[string]string
		file, broken, fine string
		line               string // "file:line:" expected in the text
		message            string
	}{
		{
			name: "gopls", bin: "gopls", install: "go install golang.org/x/tools/gopls@v0.23.0",
			files:  map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n"},
			file:   "m.go",
			broken: "package m\n\n// N is a number.\nfunc N() int {\n\treturn \"x\"\n}\n",
			fine:   "package m\n\n// N is a number.\nfunc N() int {\n\treturn 1\n}\n",
			line:   "m.go:5:", message: "cannot use",
		},
		{
			name: "pyright", bin: "pyright-langserver", install: "npm install -g pyright",
			files:  map[string]string{"pyproject.toml": "[project]\nname = \"m\"\nversion = \"0\"\n"},
			file:   "m.py",
			broken: "def n() -> int:\n    return 1\n\n\nx: str = n()\n",
			fine:   "def n() -> int:\n    return 1\n\n\nx: int = n()\n",
			line:   "m.py:5:", message: "\"int\" is not assignable to declared type \"str\"",
		},
		{
			name: "typescript", bin: "typescript-language-server", install: "npm install -g typescript-language-server typescript",
			files:  map[string]string{"tsconfig.json": "{\"compilerOptions\": {\"strict\": true}}\n"},
			file:   "m.ts",
			broken: "export function n(): number {\n  return 1;\n}\n\nexport const s: string = n();\n",
			fine:   "export function n(): number {\n  return 1;\n}\n\nexport const s: number = n();\n",
			line:   "m.ts:5:", message: "not assignable to type 'string'",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			need(t, c.bin, c.install)
			root := t.TempDir()
			writeFiles(t, root, c.files)
			m := manager(t, root, nil)
			r := edit(t, m, root, c.file, c.broken)
			text := r.Text(m.Display)
			if !strings.Contains(text, c.line) || !strings.Contains(text, c.message) {
				t.Fatalf("broken edit: want %q and %q in:\n%s", c.line, c.message, text)
			}
			if e, _, _ := r.Counts(); e != 1 {
				t.Errorf("errors = %d, want 1:\n%s", e, text)
			}
			r = edit(t, m, root, c.file, c.fine)
			text = r.Text(m.Display)
			if !r.Checked || len(r.File) != 0 || !strings.Contains(text, "no errors in "+c.file) {
				t.Fatalf("fixed edit: want no errors, got:\n%s", text)
			}
		})
	}
}

func TestNoServerStartsWithoutAnEdit(t *testing.T) {
	m := manager(t, t.TempDir(), nil)
	if n := m.Started(); n != 0 {
		t.Fatalf("started %d servers before any edit", n)
	}
}

// fakeServer configures a "server" that is a shell command.
func fakeServer(script string) func(*config.LSP) {
	return func(c *config.LSP) {
		c.Servers = map[string]config.Server{"gopls": {Disabled: true},
			"fake": {Command: []string{"sh", "-c", script}, Extensions: []string{".go"}, RootMarkers: []string{"go.mod"}}}
	}
}

func TestBrokenServersCostANoteNotTheEdit(t *testing.T) {
	cases := []struct {
		name, script, want string
		start              time.Duration
	}{
		{"crashes", "echo boom >&2; exit 3", "fake exited at start (exit 3: boom)", 0},
		{"hangs", "exec sleep 600", "fake did not answer initialize within 1s", time.Second},
		{"missing", "", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, map[string]string{"go.mod": "module m\n"})
			mod := fakeServer(c.script)
			if c.name == "missing" {
				mod = func(cfg *config.LSP) {
					cfg.Servers = map[string]config.Server{"gopls": {Command: []string{"no-such-gopls-here"}}}
				}
				c.want = "no no-such-gopls-here on PATH, so no go diagnostics"
			}
			m := manager(t, root, mod)
			if c.start > 0 {
				m.opts.StartTimeout = c.start
			}
			r := edit(t, m, root, "m.go", "package m\n")
			if !strings.Contains(r.Note, c.want) || strings.Contains(r.Note, "\n") {
				t.Fatalf("note = %q, want one line containing %q", r.Note, c.want)
			}
			if r2 := edit(t, m, root, "m.go", "package m\n\n"); r2.Note != "" {
				t.Errorf("second edit repeats the note: %q", r2.Note)
			}
		})
	}
}

// The server's environment is built by internal/run: secret-named
// variables never reach it. Read from the running gopls itself.
func TestServerEnvironmentHasNoSecrets(t *testing.T) {
	need(t, "gopls", "go install golang.org/x/tools/gopls@v0.23.0")
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"go.mod": "module m\n\ngo 1.22\n"})
	marker := "CHANTO_LSP_TEST_MARKER=" + filepath.Base(root)
	base := append(os.Environ(), marker, "SERVICE_TOKEN=tok-123", "MY_API_KEY=key-456", "DB_URL=postgres://u:pw@db/x")
	cfg := config.Default().LSP
	cfg.WaitMS = 120_000
	m := New(Options{Config: cfg, Root: root, Runner: &run.Runner{BaseEnv: base}})
	defer m.Close()
	if r := edit(t, m, root, "m.go", "package m\n"); !r.Checked {
		t.Fatalf("gopls did not answer: %+v", r)
	}
	env := serverEnviron(t, marker, "gopls")
	for _, secret := range []string{"SERVICE_TOKEN=", "MY_API_KEY=", "DB_URL="} {
		if strings.Contains(env, "\x00"+secret) {
			t.Errorf("gopls sees %s", secret)
		}
	}
	if !strings.Contains(env, "\x00PATH=") {
		t.Errorf("gopls has no PATH: the environment was not read")
	}
}

// serverEnviron finds the process named name carrying marker and returns
// its /proc/PID/environ (NUL-separated, with a leading NUL).
func serverEnviron(t *testing.T, marker, name string) string {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cmd, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !strings.Contains(filepath.Base(strings.Split(string(cmd), "\x00")[0]), name) {
			continue
		}
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err == nil && strings.Contains(string(env), marker) {
			return "\x00" + string(env)
		}
	}
	t.Fatalf("no %s process with %s found in /proc", name, marker)
	return ""
}

// A server that dies is started again once; dying again gives it up for
// the session, each time with a one-line note and the edit unharmed.
func TestDeadServerIsRestartedOnce(t *testing.T) {
	need(t, "gopls", "go install golang.org/x/tools/gopls@v0.23.0")
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"go.mod": "module m\n\ngo 1.22\n"})
	marker := "CHANTO_LSP_TEST_MARKER=restart-" + filepath.Base(root)
	cfg := config.Default().LSP
	cfg.WaitMS = 120_000
	m := New(Options{Config: cfg, Root: root, Runner: &run.Runner{BaseEnv: append(os.Environ(), marker)}})
	defer m.Close()
	kill := func() {
		m.mu.Lock()
		var srv *server
		for _, sl := range m.slots {
			srv = sl.srv
		}
		m.mu.Unlock()
		for _, pid := range serverPids(t, marker, "gopls") {
			_ = exec.Command("kill", "-9", pid).Run()
		}
		<-srv.exited // the test's own timeout bounds this
	}
	if r := edit(t, m, root, "m.go", "package m\n"); !r.Checked {
		t.Fatalf("first edit: %+v", r)
	}
	kill()
	r := edit(t, m, root, "m.go", "package m\n\n")
	if !strings.Contains(r.Note, "gopls exited") || !strings.Contains(r.Note, "restarted it") {
		t.Fatalf("after the first death: %q", r.Note)
	}
	if r := edit(t, m, root, "m.go", "package m\n\nvar x int = \"s\"\n"); !r.Checked || len(r.File) != 1 {
		t.Fatalf("restarted gopls did not answer: %+v", r)
	}
	kill()
	r = edit(t, m, root, "m.go", "package m\n")
	if !strings.Contains(r.Note, "gopls exited again") || strings.Contains(r.Note, "\n") {
		t.Fatalf("after the second death: %q", r.Note)
	}
	if r := edit(t, m, root, "m.go", "package m\n\n"); r.Note != "" || r.Checked {
		t.Fatalf("a given-up server is quiet: %+v", r)
	}
}

func serverPids(t *testing.T, marker, name string) []string {
	var pids []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cmd, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !strings.Contains(filepath.Base(strings.Split(string(cmd), "\x00")[0]), name) {
			continue
		}
		if env, err := os.ReadFile(filepath.Join(d, "environ")); err == nil && strings.Contains(string(env), marker) {
			pids = append(pids, filepath.Base(d))
		}
	}
	return pids
}
