package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/app"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm/scripted"
	"github.com/chanto-dev/chanto/internal/sandbox"
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

// TestMCPApprovalQuestion: in a trusted folder a project server not yet
// approved is asked about; "always" starts it and records the approval.
func TestMCPApprovalQuestion(t *testing.T) {
	fixture := filepath.Join(t.TempDir(), "fixture")
	if out, err := exec.Command("go", "build", "-o", fixture, "../mcp/testdata/fixture").CombinedOutput(); err != nil {
		t.Fatalf("build the fixture server: %v\n%s", err, out)
	}
	dir := project(t)
	marker := filepath.Join(dir, "marker.txt")
	mcpJSON := `{"mcpServers": {"fx": {"command": "` + fixture + `", "args": ["-marker", "` + marker + `"]}}}`
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(mcpJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv("CHANTO_HOME", home)
	if _, err := config.Trust(dir); err != nil {
		t.Fatal(err)
	}
	sc, _ := scripted.Parse("test.script", "say hi\n")
	tr, err := app.OpenTranscript(app.Reopen{}, dir, "scripted:test")
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Model, cfg.Sandbox.Mode = "scripted:test", sandbox.ModeOff
	m := newModel(Options{App: app.Options{Config: cfg, Cwd: dir, Provider: scripted.New(sc), Model: "test", Transcript: tr}, NoColor: true})
	m.record = true
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	m.Update(m.build(m.opts.App)().(builtMsg))
	t.Cleanup(func() { m.sess.Close() })
	pump(t, m, isQuestion)
	if box := m.questionBox(100); !strings.Contains(box, "Allow mcp server?") || !strings.Contains(box, "fx: "+fixture) || !strings.Contains(box, "[a] always approve fx") {
		t.Fatalf("question box:\n%s", box)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the server started before the answer")
	}
	typeText(m, "a")
	if out := strings.Join(m.printed, "\n"); !strings.Contains(out, "approve fx: approved in this folder (saved in "+filepath.Join(home, "mcp-approved.json")+")") {
		t.Errorf("answer line:\n%s", out)
	}
	m.sess.MCPWait()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("approved, but the server did not start")
	}
	data, _ := os.ReadFile(filepath.Join(home, "mcp-approved.json"))
	if !strings.Contains(string(data), `"fx"`) {
		t.Errorf("approval not recorded: %s", data)
	}
}
