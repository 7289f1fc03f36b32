package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/durable"
)

// What `chanto mcp add` and `remove` write: a [mcp_servers.NAME] table
// appended to the user's config.toml (the rest of the file, comments
// included, left as it was), or an entry of the project's .mcp.json.

var serverName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// CheckName returns an error for a server name that cannot be a tool
// name part or a bare TOML key.
func CheckName(name string) error {
	if !serverName.MatchString(name) {
		return fmt.Errorf("server name %q: use letters, digits, '_' and '-'", name)
	}
	return nil
}

// AddTOML appends the server to the TOML file; it refuses a name the
// file already defines. The result is loaded before it is written, so a
// mistake never leaves a broken config.
func AddTOML(file, name string, s config.MCPServer) error {
	if err := CheckName(name); err != nil {
		return err
	}
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if header(name).Match(old) {
		return fmt.Errorf("%s already defines MCP server %q (chanto mcp remove %s first)", file, name, name)
	}
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(map[string]any{"mcp_servers": map[string]any{name: tomlTable(s)}}); err != nil {
		return err
	}
	// The encoder writes an empty [mcp_servers] first; the file may hold
	// one already.
	table := strings.TrimPrefix(buf.String(), "[mcp_servers]\n")
	text := string(old)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	return writeChecked(file, text+strings.TrimLeft(table, "\n"), name, true)
}

// tomlTable is the server without its empty keys.
func tomlTable(s config.MCPServer) map[string]any {
	m := map[string]any{}
	put := func(k string, v any, empty bool) {
		if !empty {
			m[k] = v
		}
	}
	put("command", s.Command, s.Command == "")
	put("args", s.Args, len(s.Args) == 0)
	put("env", s.Env, len(s.Env) == 0)
	put("env_vars", s.EnvVars, len(s.EnvVars) == 0)
	put("cwd", s.Cwd, s.Cwd == "")
	put("url", s.URL, s.URL == "")
	put("http_headers", s.HTTPHeaders, len(s.HTTPHeaders) == 0)
	put("bearer_token_env_var", s.BearerTokenEnvVar, s.BearerTokenEnvVar == "")
	put("startup_timeout_sec", s.StartupTimeoutSec, s.StartupTimeoutSec == 0)
	put("tool_timeout_sec", s.ToolTimeoutSec, s.ToolTimeoutSec == 0)
	return m
}

// header matches the table header of the server or of one of its
// sub-tables ([mcp_servers.NAME], [mcp_servers.NAME.env], quoted or not).
func header(name string) *regexp.Regexp {
	q := regexp.QuoteMeta(name)
	return regexp.MustCompile(`(?m)^\s*\[\s*mcp_servers\s*\.\s*("` + q + `"|'` + q + `'|` + q + `)\s*(\.[^\]]*)?\]\s*(#.*)?$`)
}

var anyHeader = regexp.MustCompile(`^\s*\[`)

// RemoveTOML deletes the server's tables from the file. It reports false
// when the file does not define the server as tables of its own (a
// server written as an inline table must be removed by hand: the error
// says so).
func RemoveTOML(file, name string) (bool, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	h := header(name)
	lines := strings.SplitAfter(string(data), "\n")
	var out []string
	inside, found := false, false
	for _, l := range lines {
		switch {
		case h.MatchString(strings.TrimRight(l, "\r\n")):
			inside, found = true, true
			continue
		case anyHeader.MatchString(l):
			inside = false
		}
		if !inside {
			out = append(out, l)
		}
	}
	if !found {
		l, err := config.Load(config.LoadOptions{UserFile: file})
		if err == nil {
			if _, ok := l.Config.MCPServers[name]; ok {
				return false, fmt.Errorf("%s defines MCP server %q in a form chanto does not rewrite; remove it by hand", file, name)
			}
		}
		return false, nil
	}
	text := strings.TrimRight(strings.Join(out, ""), "\n") + "\n"
	if strings.TrimSpace(text) == "" {
		text = ""
	}
	return true, writeChecked(file, text, name, false)
}

// writeChecked writes text to file once it loads as a config in which
// the server is (want) or is not defined.
func writeChecked(file, text, name string, want bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), ".config-check-*.toml")
	if err != nil {
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return err
		}
		if tmp, err = os.CreateTemp(filepath.Dir(file), ".config-check-*.toml"); err != nil {
			return err
		}
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return err
	}
	tmp.Close()
	l, err := config.Load(config.LoadOptions{UserFile: tmp.Name()})
	if err != nil {
		return fmt.Errorf("%s would not load afterwards, left unchanged: %s", file, strings.ReplaceAll(err.Error(), tmp.Name(), file))
	}
	if _, ok := l.Config.MCPServers[name]; ok != want {
		return fmt.Errorf("%s: the edit did not take (MCP server %q); left unchanged", file, name)
	}
	return durable.WriteFile(file, []byte(text), 0o600)
}

// AddMCPJSON adds the server to a .mcp.json in Claude Code's format,
// keeping the file's other entries.
func AddMCPJSON(file, name string, s config.MCPServer) error {
	if err := CheckName(name); err != nil {
		return err
	}
	doc, servers, err := readJSONDoc(file)
	if err != nil {
		return err
	}
	if _, ok := servers[name]; ok {
		return fmt.Errorf("%s already defines MCP server %q", file, name)
	}
	entry := map[string]any{}
	if s.URL != "" {
		entry["type"], entry["url"] = "http", s.URL
		if len(s.HTTPHeaders) > 0 {
			entry["headers"] = s.HTTPHeaders
		}
	} else {
		entry["type"], entry["command"] = "stdio", s.Command
		entry["args"] = append([]string{}, s.Args...)
		entry["env"] = map[string]string{}
		if len(s.Env) > 0 {
			entry["env"] = s.Env
		}
	}
	servers[name] = entry
	return writeJSONDoc(file, doc, servers)
}

// RemoveMCPJSON deletes the server from a .mcp.json; false when absent.
func RemoveMCPJSON(file, name string) (bool, error) {
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	doc, servers, err := readJSONDoc(file)
	if err != nil {
		return false, err
	}
	if _, ok := servers[name]; !ok {
		return false, nil
	}
	delete(servers, name)
	return true, writeJSONDoc(file, doc, servers)
}

func readJSONDoc(file string) (map[string]any, map[string]any, error) {
	doc := map[string]any{}
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %s; fix it first", file, jsonErrorLine(data, err), jsonErrorText(err))
		}
	}
	servers, _ := doc["mcpServers"].(map[string]any)
	if servers == nil {
		servers = map[string]any{}
	}
	return doc, servers, nil
}

func writeJSONDoc(file string, doc, servers map[string]any) error {
	doc["mcpServers"] = servers
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return durable.WriteFile(file, append(data, '\n'), 0o644)
}
