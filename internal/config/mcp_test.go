package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMCPServers(t *testing.T) {
	user := `[mcp_servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]
env = { MEMORY_FILE_PATH = "/tmp/m.json" }
startup_timeout_sec = 20
tool_timeout_sec = 1.5
network = "allowlist"
allow_domains = ["registry.npmjs.org"]

[mcp_servers.web]
url = "https://example.com/mcp"
bearer_token_env_var = "WEB_TOKEN"
enabled = false
[mcp_servers.web.http_headers]
X-Team = "core"
`
	_, proj := setup(t, user, "")
	l, err := Load(LoadOptions{ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	m := l.Config.MCPServers["memory"]
	if m.Command != "npx" || len(m.Args) != 2 || m.Env["MEMORY_FILE_PATH"] != "/tmp/m.json" || m.StartupTimeoutSec != 20 ||
		m.ToolTimeoutSec != 1.5 || m.Enabled != nil || m.Network != "allowlist" {
		t.Errorf("memory = %+v", m)
	}
	w := l.Config.MCPServers["web"]
	if w.URL != "https://example.com/mcp" || w.Enabled == nil || *w.Enabled || w.HTTPHeaders["X-Team"] != "core" {
		t.Errorf("web = %+v", w)
	}
	if s := source(l, "mcp_servers.web.http_headers.X-Team"); !strings.HasSuffix(s.From, "config.toml:15") {
		t.Errorf("header source = %q", s.From)
	}
	if len(l.Config.MCPProjectServers) != 0 {
		t.Errorf("user servers marked as the project's: %v", l.Config.MCPProjectServers)
	}
}

func TestMCPServerErrors(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"unknown key", "[mcp_servers.x]\ncommand = \"a\"\ncomand = \"b\"\n", `:3: unknown key "comand" in [mcp_servers.x]`},
		{"both", "[mcp_servers.x]\ncommand = \"a\"\nurl = \"http://h/mcp\"\n", `:1: [mcp_servers.x]: set command (a stdio server) or url (a streamable HTTP server), not both`},
		{"args type", "[mcp_servers.x]\ncommand = \"a\"\nargs = \"-y\"\n", `:3: mcp_servers.x.args: expected array of strings, got string`},
		{"timeout", "[mcp_servers.x]\ncommand = \"a\"\nstartup_timeout_sec = 0\n", `:3: mcp_servers.x.startup_timeout_sec: must be greater than 0, got 0`},
		{"timeout type", "[mcp_servers.x]\ncommand = \"a\"\ntool_timeout_sec = \"5\"\n", `:3: mcp_servers.x.tool_timeout_sec: expected number, got string`},
		{"url", "[mcp_servers.x]\nurl = \"localhost:3000\"\n", `:2: mcp_servers.x.url: expected an http:// or https:// URL`},
		{"network", "[mcp_servers.x]\ncommand = \"a\"\nnetwork = \"on\"\n", `:3: mcp_servers.x.network: expected "deny", "allow" or "allowlist", got "on"`},
		{"token var", "[mcp_servers.x]\nurl = \"http://h\"\nbearer_token_env_var = \"$TOKEN\"\n", `:3: mcp_servers.x.bearer_token_env_var: expected an environment variable name`},
		{"env type", "[mcp_servers.x]\ncommand = \"a\"\nenv = { A = 1 }\n", `:3: mcp_servers.x.env.A: expected string, got integer`},
		{"enabled type", "[mcp_servers.x]\ncommand = \"a\"\nenabled = \"no\"\n", `:3: mcp_servers.x.enabled: expected boolean, got string`},
		{"empty command", "[mcp_servers.x]\ncommand = \"\"\n", `:2: mcp_servers.x.command: must not be empty`},
	} {
		t.Run(c.name, func(t *testing.T) {
			home, proj := setup(t, c.file, "")
			_, err := Load(LoadOptions{ProjectDir: proj})
			want := filepath.Join(home, "config.toml") + c.want
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("got %v\nwant prefix %q", err, want)
			}
		})
	}
}

// TestProjectMCPServers: a project's servers wait for trust (one warning
// per server), are marked as the project's once trusted, and can never
// set their own sandbox network.
func TestProjectMCPServers(t *testing.T) {
	project := "[mcp_servers.evil]\ncommand = \"./run-me\"\nargs = [\"x\"]\nnetwork = \"allow\"\n\n[mcp_servers.other]\ncommand = \"b\"\n"
	_, proj := setup(t, "[mcp_servers.mine]\ncommand = \"m\"\n", project)
	l, err := Load(LoadOptions{ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Config.MCPServers["evil"]; ok {
		t.Errorf("untrusted project server kept: %+v", l.Config.MCPServers)
	}
	if _, ok := l.Config.MCPServers["mine"]; !ok {
		t.Errorf("user server lost")
	}
	want := []string{
		`.chanto/config.toml defines MCP server "evil"; not started because ` + proj + ` is not trusted (run: chanto trust ` + proj + `)`,
		`.chanto/config.toml sets mcp_servers.evil.network; ignored: only your own config (` + UserFile() + `) or a flag may set it`,
		`.chanto/config.toml defines MCP server "other"; not started because ` + proj + ` is not trusted (run: chanto trust ` + proj + `)`,
	}
	if !slices.Equal(l.Warnings, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(l.Warnings, "\n"), strings.Join(want, "\n"))
	}
	if _, err := Trust(proj); err != nil {
		t.Fatal(err)
	}
	l, err = Load(LoadOptions{ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	if e := l.Config.MCPServers["evil"]; e.Command != "./run-me" || e.Network != "" {
		t.Errorf("trusted project server = %+v", e)
	}
	if !slices.Equal(l.Config.MCPProjectServers, []string{"evil", "other"}) {
		t.Errorf("project servers = %v", l.Config.MCPProjectServers)
	}
}
