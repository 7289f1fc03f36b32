package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// mcpJSON is Claude Code's project file: {"mcpServers": {NAME: {...}}}.
type mcpJSON struct {
	MCPServers map[string]mcpJSONServer `json:"mcpServers"`
}

type mcpJSONServer struct {
	Type    string            `json:"type"` // stdio (default with command), http, sse
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// readMCPJSON reads a .mcp.json; a missing file is no servers.
func readMCPJSON(file string, getenv func(string) string) ([]Spec, []string) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: %v; its MCP servers are skipped", file, err)}
	}
	var doc mcpJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, []string{fmt.Sprintf("%s:%d: %s; its MCP servers are skipped", file, jsonErrorLine(data, err), jsonErrorText(err))}
	}
	names := make([]string, 0, len(doc.MCPServers))
	for n := range doc.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	var specs []Spec
	var warns []string
	for _, n := range names {
		s, err := fromMCPJSON(n, doc.MCPServers[n], file, getenv)
		if err != nil {
			warns = append(warns, fmt.Sprintf("%s:%d: server %q: %v; skipped", file, lineOfKey(data, n), n, err))
			continue
		}
		specs = append(specs, s)
	}
	return specs, warns
}

func fromMCPJSON(name string, c mcpJSONServer, file string, getenv func(string) string) (Spec, error) {
	s := Spec{Name: name, Origin: FromMCPJSON, Where: file, Enabled: true,
		StartupTimeout: envMillis(getenv, "MCP_TIMEOUT", DefaultStartupTimeout),
		ToolTimeout:    envMillis(getenv, "MCP_TOOL_TIMEOUT", DefaultToolTimeout)}
	s.Fingerprint = fingerprint(c.Type, c.Command, c.Args, c.Env, c.URL, c.Headers)
	switch c.Type {
	case "", "stdio":
		if c.Command == "" {
			if c.URL != "" && c.Type == "" {
				return s, errors.New(`a url needs "type": "http" (or "sse")`)
			}
			return s, errors.New(`"command" is missing`)
		}
		s.Transport = "stdio"
	case "http", "sse":
		if c.URL == "" {
			return s, errors.New(`"url" is missing`)
		}
		s.Transport = c.Type
	default:
		return s, fmt.Errorf(`unknown "type" %q (want "stdio", "http" or "sse")`, c.Type)
	}
	x := expander{getenv: getenv}
	s.Command = x.expand(c.Command)
	for _, a := range c.Args {
		s.Args = append(s.Args, x.expand(a))
	}
	s.Env = x.expandMap(c.Env)
	s.URL = x.expand(c.URL)
	s.Headers = x.expandMap(c.Headers)
	if len(x.missing) > 0 {
		return s, fmt.Errorf("%s not set", strings.Join(x.missing, ", "))
	}
	return s, nil
}

// expander replaces ${VAR} and ${VAR:-default} as Claude Code does,
// collecting the variables that are unset and have no default.
type expander struct {
	getenv  func(string) string
	missing []string
}

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

func (x *expander) expand(s string) string {
	return varRef.ReplaceAllStringFunc(s, func(m string) string {
		g := varRef.FindStringSubmatch(m)
		if v := x.getenv(g[1]); v != "" {
			return v
		}
		if g[2] != "" {
			return g[3]
		}
		if !contains(x.missing, "${"+g[1]+"}") {
			x.missing = append(x.missing, "${"+g[1]+"}")
		}
		return ""
	})
}

func (x *expander) expandMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = x.expand(v)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// jsonErrorLine is the line of a decoding error: the offset of a syntax
// or type error, or where an unknown field is first written.
func jsonErrorLine(data []byte, err error) int {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return lineAt(data, se.Offset)
	case errors.As(err, &te):
		return lineAt(data, te.Offset)
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return lineOfKey(data, strings.Trim(f, `"`))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return lineAt(data, int64(len(data)))
	}
	return 1
}

// jsonErrorText words a decoding error for the user.
func jsonErrorText(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := map[string]string{"[]string": "a list of strings", "string": "a string", "map[string]string": "an object of strings"}[te.Type.String()]
		if want == "" {
			want = "an object"
		}
		return fmt.Sprintf("%s: expected %s, got %s", te.Field, want, te.Value)
	}
	if err.Error() == "EOF" {
		return "empty file"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func lineAt(data []byte, off int64) int {
	off = min(off, int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// lineOfKey is the line where "key": is first written, else 1.
func lineOfKey(data []byte, key string) int {
	k, _ := json.Marshal(key)
	if i := bytes.Index(data, append(k, ':')); i >= 0 {
		return lineAt(data, int64(i))
	}
	if i := bytes.Index(data, k); i >= 0 {
		return lineAt(data, int64(i))
	}
	return 1
}

// envMillis reads a timeout in milliseconds from the variable Claude Code
// uses for .mcp.json servers (MCP_TIMEOUT, MCP_TOOL_TIMEOUT).
func envMillis(getenv func(string) string, name string, def time.Duration) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(getenv(name)))
	if err != nil || n <= 0 {
		return def
	}
	return time.Duration(n) * time.Millisecond
}
