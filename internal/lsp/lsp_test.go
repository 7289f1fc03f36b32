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
