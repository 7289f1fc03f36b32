package tui

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/config"
)

func TestMCPCommand(t *testing.T) {
	fixture := filepath.Join(t.TempDir(), "fixture")
	if out, err := exec.Command("go", "build", "-o", fixture, "../mcp/testdata/fixture").CombinedOutput(); err != nil {
		t.Fatalf("build the fixture server: %v\n%s", err, out)
	}
	dir := project(t)
	m := newTestModel(t, dir, "say hi\n", func(c *config.Config) {
		c.Sandbox.Mode = "off"
		c.MCPServers = map[string]config.MCPServer{
			"fx":   {Command: fixture},
			"dies": {Command: fixture, Args: []string{"-exit"}},
		}
	})
	m.sess.MCPWait()
	m.printed = nil
	typeText(m, "/mcp")
	press(m, tea.KeyEnter, 0)
	out := strings.Join(m.printed, "\n")
	for _, want := range []string{"fx (user, stdio)  ready, 9 tools", "mcp__fx__echo", "dies (user, stdio)  failed: exited during startup (exit code 7"} {
		if !strings.Contains(out, want) {
			t.Errorf("/mcp lacks %q:\n%s", want, out)
		}
	}
}
