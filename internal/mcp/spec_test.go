package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
)

func writeMCPJSON(t *testing.T, text string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestMCPJSONAsClaudeCodeWritesIt reads a .mcp.json of the shape Claude
// Code's `claude mcp add --scope project` writes, with ${VAR} expansion.
func TestMCPJSONAsClaudeCodeWritesIt(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	root := writeMCPJSON(t, `{
  "mcpServers": {
    "filesystem": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "${PROJECT_DIR:-.}"],
      "env": {}
    },
    "memory": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-memory"],
      "env": {"MEMORY_FILE_PATH": "${HOME}/memory.json"}
    },
    "api": {
      "type": "http",
      "url": "${API_BASE}/mcp",
      "headers": {"Authorization": "Bearer ${API_TOKEN}"}
    }
  }
}`)
	specs, warns := Specs(config.Config{}, root, env(map[string]string{"HOME": "/home/u", "API_BASE": "https://api.example.com", "API_TOKEN": "t0k"}))
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
		if s.Origin != FromMCPJSON || !s.Project() || s.StartupTimeout != DefaultStartupTimeout || !s.Enabled {
			t.Errorf("%s: %+v", s.Name, s)
		}
	}
	if !slices.Equal(names, []string{"api", "filesystem", "memory"}) {
		t.Fatalf("names = %v", names)
	}
	if a := specs[0]; a.Transport != "http" || a.URL != "https://api.example.com/mcp" || a.Headers["Authorization"] != "Bearer t0k" {
		t.Errorf("api = %+v", a)
	}
	if f := specs[1]; f.Transport != "stdio" || f.Args[2] != "." {
		t.Errorf("filesystem = %+v", f)
	}
	if m := specs[2]; m.Env["MEMORY_FILE_PATH"] != "/home/u/memory.json" {
		t.Errorf("memory = %+v", m)
	}
}

func TestMCPJSONProblems(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	for _, c := range []struct{ name, text, want string }{
		{"syntax", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n", `.mcp.json:3: invalid character '}' looking for beginning of object key string; its MCP servers are skipped`},
		{"unknown key", "{\n  \"mcpServers\": {\n    \"a\": {\n      \"comand\": \"x\"\n    }\n  }\n}\n", `.mcp.json:4: unknown field "comand"; its MCP servers are skipped`},
		{"wrong type", "{\"mcpServers\": {\n \"a\": {\"command\": \"x\", \"args\": \"-y\"}}}", `.mcp.json:2: mcpServers.args: expected a list of strings, got string; its MCP servers are skipped`},
		{"truncated", "{\"mcpServers\": {\n", `.mcp.json:2: unexpected EOF; its MCP servers are skipped`},
		{"missing var", "{\"mcpServers\": {\n\"ok\": {\"command\": \"x\"},\n\"a\": {\"command\": \"x\", \"env\": {\"T\": \"${NOPE}\"}}}}", `.mcp.json:3: server "a": ${NOPE} not set; skipped`},
		{"no command", "{\"mcpServers\": {\n\"a\": {\"args\": [\"x\"]}}}", `.mcp.json:2: server "a": "command" is missing; skipped`},
		{"url without type", "{\"mcpServers\": {\n\"a\": {\"url\": \"http://h\"}}}", `.mcp.json:2: server "a": a url needs "type": "http" (or "sse"); skipped`},
		{"bad type", "{\"mcpServers\": {\n\"a\": {\"type\": \"ws\", \"url\": \"http://h\"}}}", `.mcp.json:2: server "a": unknown "type" "ws" (want "stdio", "http" or "sse"); skipped`},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := writeMCPJSON(t, c.text)
			_, warns := Specs(config.Config{}, root, env(nil))
			want := filepath.Join(root, c.want)
			if len(warns) != 1 || warns[0] != want {
				t.Errorf("warnings = %q\nwant %q", warns, want)
			}
		})
	}
}

func TestTOMLServersAndNameClash(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	root := writeMCPJSON(t, `{"mcpServers": {"memory": {"command": "other"}}}`)
	off := false
	cfg := config.Config{MCPServers: map[string]config.MCPServer{
		"memory": {Command: "npx", Args: []string{"-y", "m"}, ToolTimeoutSec: 2.5, Cwd: "sub"},
		"web":    {URL: "http://h/mcp", Enabled: &off},
		"proj":   {Command: "p"},
	}, MCPProjectServers: []string{"proj"}}
	specs, warns := Specs(cfg, root, env(nil))
	if len(warns) != 1 || !strings.Contains(warns[0], `server "memory" is also in [mcp_servers]; that one is used`) {
		t.Errorf("warnings = %q", warns)
	}
	if len(specs) != 3 || specs[0].Name != "memory" || specs[0].Command != "npx" || specs[0].ToolTimeout != 2500*time.Millisecond ||
		specs[0].Cwd != filepath.Join(root, "sub") || specs[0].Project() {
		t.Errorf("memory = %+v", specs[0])
	}
	if p := specs[1]; p.Name != "proj" || p.Origin != FromProject || !p.Project() {
		t.Errorf("proj = %+v", p)
	}
	if w := specs[2]; w.Enabled || w.Transport != "http" {
		t.Errorf("web = %+v", w)
	}
}

func TestAdmission(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	root := t.TempDir()
	user := Spec{Name: "mine", Origin: FromUser, Enabled: true, Fingerprint: "u"}
	proj := Spec{Name: "proj", Origin: FromMCPJSON, Where: ".mcp.json", Enabled: true, Fingerprint: "p1"}
	off := Spec{Name: "off", Origin: FromUser, Enabled: false}
	names := func(specs []Spec) []string {
		var n []string
		for _, s := range specs {
			n = append(n, s.Name)
		}
		return n
	}
	start, held, warns := Admission{Root: root}.Admit(t.Context(), []Spec{user, proj, off})
	if !slices.Equal(names(start), []string{"mine"}) || len(held) != 2 || len(warns) != 1 ||
		warns[0] != `MCP server "proj" (.mcp.json) not started: `+root+` is not trusted (run: chanto trust `+root+`)` {
		t.Fatalf("untrusted: start %v held %+v warns %q", names(start), held, warns)
	}
	start, _, warns = Admission{Root: root, Trusted: true}.Admit(t.Context(), []Spec{proj})
	if len(start) != 0 || len(warns) != 1 || !strings.Contains(warns[0], "not approved yet (approve it once with --mcp-approve proj") {
		t.Fatalf("unapproved: %v %q", names(start), warns)
	}
	start, _, _ = Admission{Root: root, Trusted: true, Approve: []string{"proj"}}.Admit(t.Context(), []Spec{proj})
	if len(start) != 1 {
		t.Fatal("--mcp-approve did not start it")
	}
	// Recorded: the next session starts it without the flag...
	if start, _, _ = (Admission{Root: root, Trusted: true}).Admit(t.Context(), []Spec{proj}); len(start) != 1 {
		t.Fatal("approval not remembered")
	}
	// ...but not once its command changed.
	changed := proj
	changed.Fingerprint = "p2"
	if start, _, _ = (Admission{Root: root, Trusted: true}).Admit(t.Context(), []Spec{changed}); len(start) != 0 {
		t.Fatal("approval carried over to a changed server")
	}
	asked := 0
	ask := func(_ context.Context, s Spec) (bool, bool) { asked++; return true, false }
	a := Admission{Root: root, Trusted: true, Ask: ask}
	if start, _, _ = a.Admit(t.Context(), []Spec{changed}); len(start) != 1 || asked != 1 {
		t.Fatal("the question was not asked")
	}
	if ok, _ := Approved(root, changed); ok {
		t.Error("a once-only answer was recorded")
	}
}

func TestNetworkNeeds(t *testing.T) {
	for _, c := range []struct {
		spec    Spec
		network string
		domains []string
	}{
		{Spec{Transport: "stdio", Command: "npx"}, "allowlist", []string{"registry.npmjs.org"}},
		{Spec{Transport: "stdio", Command: "/usr/bin/uvx"}, "allowlist", []string{"pypi.org", "files.pythonhosted.org"}},
		{Spec{Transport: "stdio", Command: "node"}, "", nil},
		{Spec{Transport: "stdio", Command: "npx", Network: "deny"}, "deny", nil},
		{Spec{Transport: "stdio", Command: "x", Network: "allow"}, "allow", nil},
	} {
		n, d := c.spec.NetworkNeeds()
		if n != c.network || !slices.Equal(d, c.domains) {
			t.Errorf("%s network %q: got %q %v, want %q %v", c.spec.Command, c.spec.Network, n, d, c.network, c.domains)
		}
	}
}

func TestMCPJSONTimeoutsFromClaudeCodeVariables(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	root := writeMCPJSON(t, `{"mcpServers": {"a": {"command": "x"}}}`)
	specs, _ := Specs(config.Config{}, root, env(map[string]string{"MCP_TIMEOUT": "45000", "MCP_TOOL_TIMEOUT": "1500"}))
	if specs[0].StartupTimeout != 45*time.Second || specs[0].ToolTimeout != 1500*time.Millisecond {
		t.Errorf("timeouts = %v %v", specs[0].StartupTimeout, specs[0].ToolTimeout)
	}
}
