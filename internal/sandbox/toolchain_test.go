//go:build linux

package sandbox

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

// TestToolchainsRunSandboxed runs each language's test command in the
// default sandbox: the caches and the project must be writable enough.
func TestToolchainsRunSandboxed(t *testing.T) {
	requireSandbox(t)
	cases := []struct {
		name, tool, line string
		files            map[string]string
	}{
		{"go", "go", "go test ./...", map[string]string{
			"go.mod":    "module example.com/p\n\ngo 1.22\n",
			"a_test.go": "package p\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n"}},
		{"pytest", "/usr/bin/python3", "/usr/bin/python3 -m pytest -q", map[string]string{
			"test_a.py": "def test_a():\n    assert 1\n"}},
		{"node", "npm", "npm test", map[string]string{
			"package.json": `{"name":"p","scripts":{"test":"node --test"}}`,
			"a.test.js":    "require('node:test')('a', () => {})\n"}},
		{"cargo", "cargo", "cargo test -q --offline", map[string]string{
			"Cargo.toml": "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
			"src/lib.rs": "#[test]\nfn a() {}\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.tool); err != nil {
				t.Skipf("%s not installed", c.tool)
			}
			root := t.TempDir()
			for name, body := range c.files {
				p := filepath.Join(root, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sb, err := New(config.Sandbox{}, root)
			if err != nil {
				t.Fatal(err)
			}
			r := &run.Runner{Sandbox: sb}
			res, err := r.Run(context.Background(), run.Spec{Shell: c.line, Dir: root, Timeout: 120 * time.Second, Purpose: run.Check})
			if err != nil || res.ExitCode != 0 {
				t.Errorf("%s: err %v, exit %d:\n%s", c.line, err, res.ExitCode, res.Output)
			}
			if strings.Contains(string(res.Output), "Read-only file system") {
				t.Errorf("%s hit a read-only path:\n%s", c.line, res.Output)
			}
		})
	}
}
