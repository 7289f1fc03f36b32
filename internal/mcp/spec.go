// Package mcp is chanto's Model Context Protocol client, on the official
// Go SDK. It reads the servers users already configured — [mcp_servers]
// tables in chanto's TOML (Codex's keys) and the project's .mcp.json
// (Claude Code's format) — decides which may start (project servers only
// in trusted folders, once the user approved each), starts stdio servers
// through internal/run (scrubbed environment, the sandbox) and connects
// to streamable HTTP ones, and offers their tools to the model as
// mcp__SERVER__TOOL. A server that fails, hangs or crashes costs a
// one-line warning; the session goes on.
package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
)

// Default timeouts. Codex waits 10 s for a start; a server launched by
// npx or uvx asks its registry first (through the sandbox's proxy), and
// that alone took 9 s here, so chanto waits 30 s, as Claude Code does.
const (
	DefaultStartupTimeout = 30 * time.Second
	DefaultToolTimeout    = 60 * time.Second
)

// Origins of a server definition.
const (
	FromUser    = "user"    // ~/.chanto/config.toml
	FromProject = "project" // .chanto/config.toml of the project
	FromMCPJSON = ".mcp.json"
)

// Spec is one server as configured, its variables expanded.
type Spec struct {
	Name string
	// Origin is FromUser, FromProject or FromMCPJSON; Where names the
	// file.
	Origin, Where string
	// Transport is "stdio", "http" or "sse".
	Transport string
	Command   string
	Args      []string
	// Env holds the variables the configuration sets; EnvVars names
	// variables passed from chanto's own environment. Only these may
	// carry secret-named variables into the server.
	Env     map[string]string
	EnvVars []string
	Cwd     string
	URL     string
	// Headers are sent with every HTTP request; EnvHeaders name a header's
	// environment variable; BearerTokenEnvVar the Authorization token's.
	Headers           map[string]string
	EnvHeaders        map[string]string
	BearerTokenEnvVar string
	Enabled           bool
	EnabledTools      []string
	DisabledTools     []string
	StartupTimeout    time.Duration
	ToolTimeout       time.Duration
	// Network and AllowDomains are the sandbox network a stdio server
	// declared (user file only); "" is the session's.
	Network      string
	AllowDomains []string
	// Fingerprint identifies what the server runs, before expansion: an
	// approval holds for this fingerprint only.
	Fingerprint string
}

// Project reports whether the project defined the server: it needs trust
// and approval.
func (s Spec) Project() bool { return s.Origin != FromUser }

// CommandLine is the stdio command with its arguments, or the URL.
func (s Spec) CommandLine() string {
	if s.Transport != "stdio" {
		return s.URL
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

// launcherDomains are the registries a package launcher downloads its
// server from: a server started as "npx -y PACKAGE" cannot start in a
// sandbox without them.
var launcherDomains = map[string][]string{
	"npx":  {"registry.npmjs.org"},
	"bunx": {"registry.npmjs.org"},
	"pnpx": {"registry.npmjs.org"},
	"uvx":  {"pypi.org", "files.pythonhosted.org"},
}

// Network is the sandbox network the server needs: what it declared, or
// for a package launcher (npx, uvx, ...) the allowlist proxy to its
// registry; "" means the session's.
func (s Spec) NetworkNeeds() (network string, domains []string) {
	if s.Network != "" || len(s.AllowDomains) > 0 {
		return s.Network, s.AllowDomains
	}
	if d, ok := launcherDomains[filepath.Base(s.Command)]; ok && s.Transport == "stdio" {
		return "allowlist", d
	}
	return "", nil
}

// ToolAllowed applies enabled_tools and disabled_tools.
func (s Spec) ToolAllowed(name string) bool {
	if len(s.EnabledTools) > 0 && !slices.Contains(s.EnabledTools, name) {
		return false
	}
	return !slices.Contains(s.DisabledTools, name)
}

// Specs gathers the configured servers of a session in cwd: the TOML
// tables (user file, and the project file's, marked by config.Load),
// then .mcp.json at the project root, where a name the TOML has already
// is skipped. Problems with .mcp.json (bad JSON, a variable not set)
// are warnings naming file and line; that file's servers, or the one
// server, are skipped.
func Specs(cfg config.Config, root string, getenv func(string) string) ([]Spec, []string) {
	var specs []Spec
	var warns []string
	names := make([]string, 0, len(cfg.MCPServers))
	for n := range cfg.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s, err := fromTOML(n, cfg.MCPServers[n], slices.Contains(cfg.MCPProjectServers, n), root)
		if err != nil {
			warns = append(warns, err.Error())
			continue
		}
		specs = append(specs, s)
	}
	file := filepath.Join(root, ".mcp.json")
	js, jw := readMCPJSON(file, getenv)
	warns = append(warns, jw...)
	for _, s := range js {
		if slices.ContainsFunc(specs, func(t Spec) bool { return t.Name == s.Name }) {
			warns = append(warns, fmt.Sprintf("%s: server %q is also in [mcp_servers]; that one is used", file, s.Name))
			continue
		}
		specs = append(specs, s)
	}
	return specs, warns
}

func fromTOML(name string, c config.MCPServer, project bool, root string) (Spec, error) {
	s := Spec{
		Name: name, Origin: FromUser, Where: config.UserFile(),
		Command: c.Command, Args: c.Args, Env: c.Env, EnvVars: c.EnvVars, Cwd: c.Cwd,
		URL: c.URL, Headers: c.HTTPHeaders, EnvHeaders: c.EnvHTTPHeaders, BearerTokenEnvVar: c.BearerTokenEnvVar,
		Enabled: c.Enabled == nil || *c.Enabled, EnabledTools: c.EnabledTools, DisabledTools: c.DisabledTools,
		StartupTimeout: seconds(c.StartupTimeoutSec, DefaultStartupTimeout),
		ToolTimeout:    seconds(c.ToolTimeoutSec, DefaultToolTimeout),
		Network:        c.Network, AllowDomains: c.AllowDomains,
	}
	if project {
		s.Origin, s.Where = FromProject, config.ProjectFile(root)
	}
	switch {
	case c.Command != "":
		s.Transport = "stdio"
	case c.URL != "":
		s.Transport = "http"
	default:
		return s, fmt.Errorf("[mcp_servers.%s] sets neither command nor url; skipped", name)
	}
	if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
		s.Cwd = filepath.Join(root, s.Cwd)
	}
	s.Fingerprint = fingerprint(c.Command, c.Args, c.Env, c.EnvVars, c.Cwd, c.URL, c.HTTPHeaders)
	return s, nil
}

func seconds(v float64, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}
	return time.Duration(v * float64(time.Second))
}

// fingerprint hashes what a server runs, so an approval does not carry
// over to a changed command.
func fingerprint(parts ...any) string {
	b, _ := json.Marshal(parts)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
