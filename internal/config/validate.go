package config

import (
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// Error is a configuration mistake, located in a file (and line) or a flag.
type Error struct {
	// Where is the file path, or "flag --model" for a flag.
	Where string
	// Line is 1-based; 0 when unknown or for flags.
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Where, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Where, e.Msg)
}

// checker validates one decoded layer against the Config type.
type checker struct {
	where string
	lines map[string]int
}

func (c *checker) fail(path []string, format string, args ...any) error {
	return &Error{Where: c.where, Line: lineOf(c.lines, path), Msg: fmt.Sprintf(format, args...)}
}

// check walks v (as decoded from TOML) against type t.
func (c *checker) check(v any, t reflect.Type, path []string) error {
	key := strings.Join(path, ".")
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Interface:
		// Free-form values (a language server's settings) are the
		// server's to read.
		return nil
	case t.Kind() == reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return c.fail(path, "%s: expected table, got %s", key, typeName(v))
		}
		for _, k := range c.ordered(m, path) {
			f, ok := fieldByTag(t, k)
			if !ok {
				return c.fail(append(path, k), "unknown key %q%s", k, tableName(path))
			}
			if err := c.check(m[k], f.Type, append(slices.Clip(path), k)); err != nil {
				return err
			}
		}
		if len(path) == 2 && path[0] == "mcp_servers" {
			return c.checkMCPServer(m, path)
		}
		return nil
	case t.Kind() == reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return c.fail(path, "%s: expected table, got %s", key, typeName(v))
		}
		for _, k := range c.ordered(m, path) {
			if err := c.check(m[k], t.Elem(), append(slices.Clip(path), k)); err != nil {
				return err
			}
		}
		return nil
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		items, ok := tables(v)
		if !ok {
			return c.fail(path, "%s: expected array of tables, got %s", key, typeName(v))
		}
		for i, item := range items {
			if err := c.check(item, t.Elem(), append(slices.Clip(path), strconv.Itoa(i))); err != nil {
				return err
			}
		}
		return nil
	}
	if err := c.checkScalar(v, t, path); err != nil {
		return err
	}
	if msg := checkValue(path, v); msg != "" {
		return c.fail(path, "%s: %s", displayKey(path), msg)
	}
	return nil
}

func (c *checker) checkScalar(v any, t reflect.Type, path []string) error {
	want, ok := "", false
	switch t.Kind() {
	case reflect.String:
		_, ok = v.(string)
		want = "string"
	case reflect.Int:
		_, ok = v.(int64)
		want = "integer"
	case reflect.Bool:
		_, ok = v.(bool)
		want = "boolean"
	case reflect.Float64:
		_, isInt := v.(int64)
		_, isFloat := v.(float64)
		ok = isInt || isFloat
		want = "number"
	case reflect.Slice:
		want = "array of strings"
		items, isList := v.([]any)
		ok = isList
		for _, it := range items {
			if _, s := it.(string); !s {
				ok = false
			}
		}
	default:
		return fmt.Errorf("config: unsupported field type %s", t)
	}
	if !ok {
		got := typeName(v)
		if items, isList := v.([]any); isList && want == "array of strings" {
			for _, it := range items {
				if _, s := it.(string); !s {
					got = "array containing " + typeName(it)
					break
				}
			}
		}
		return c.fail(path, "%s: expected %s, got %s", displayKey(path), want, got)
	}
	return nil
}

// ordered returns m's keys in file order, so the first error reported is
// the first in the file.
func (c *checker) ordered(m map[string]any, path []string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	line := func(k string) int {
		if n, ok := c.lines[strings.Join(append(slices.Clip(path), k), ".")]; ok {
			return n
		}
		return 1 << 30
	}
	slices.SortFunc(keys, func(a, b string) int {
		if la, lb := line(a), line(b); la != lb {
			return la - lb
		}
		return strings.Compare(a, b)
	})
	return keys
}

func tables(v any) ([]map[string]any, bool) {
	switch x := v.(type) {
	case []map[string]any:
		return x, true
	case []any:
		out := make([]map[string]any, 0, len(x))
		for _, it := range x {
			m, ok := it.(map[string]any)
			if !ok {
				return nil, false
			}
			out = append(out, m)
		}
		return out, true
	}
	return nil, false
}

func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if strings.Split(f.Tag.Get("toml"), ",")[0] == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func tableName(path []string) string {
	if len(path) == 0 {
		return ""
	}
	if _, err := strconv.Atoi(path[len(path)-1]); err == nil {
		return " in [[" + strings.Join(path[:len(path)-1], ".") + "]]"
	}
	return " in [" + strings.Join(path, ".") + "]"
}

// displayKey drops array indexes: hooks.stop.0.command → hooks.stop.command.
func displayKey(path []string) string {
	var parts []string
	for _, p := range path {
		if _, err := strconv.Atoi(p); err != nil {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ".")
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case time.Time:
		return "datetime"
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "table"
	}
	if strings.Contains(fmt.Sprintf("%T", v), "Local") {
		return "datetime"
	}
	return fmt.Sprintf("%T", v)
}

// Allowed values of the enumerated keys.
var (
	Scopes          = []string{"related", "full"}
	Wires           = []string{"anthropic", "openai-chat", "openai-responses"}
	SandboxModes    = []string{"read-only", "workspace-write", "off"}
	NetworkModes    = []string{"deny", "allow", "allowlist"}
	PermissionModes = []string{"default", "accept-edits", "plan", "bypass"}
)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkValue applies the rules beyond the type; "" means fine.
func checkValue(path []string, v any) string {
	key := displayKey(path)
	if len(path) == 3 && path[0] == "providers" {
		key = "providers.*." + path[2]
	}
	if len(path) == 4 && path[0] == "hooks" {
		key = "hooks.*." + path[3]
	}
	if len(path) == 3 && path[0] == "team_checks" {
		key = "team_checks.*." + path[2]
	}
	if len(path) == 3 && path[0] == "mcp_servers" {
		key = "mcp_servers.*." + path[2]
	}
	if len(path) == 4 && path[0] == "mcp_servers" && path[2] == "env_http_headers" {
		key = "mcp_servers.*.env_http_headers.*"
	}
	if len(path) == 4 && (path[0] == "formatters" && path[1] == "tools" || path[0] == "lsp" && path[1] == "servers") {
		key = path[0] + "." + path[1] + ".*." + path[3]
	}
	s, _ := v.(string)
	n, _ := v.(int64)
	switch key {
	case "model":
		return CheckModelSpec(s)
	case "oracle_model":
		if s != "" {
			return CheckModelSpec(s)
		}
	case "providers.*.wire":
		return oneOf(s, Wires)
	case "providers.*.base_url":
		if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Sprintf("expected an http:// or https:// URL, got %q", s)
		}
	case "providers.*.api_key_env":
		if !envName.MatchString(s) {
			return fmt.Sprintf("expected an environment variable name, got %q", s)
		}
	case "providers.*.context_window":
		if n < 0 {
			return fmt.Sprintf("must not be negative, got %d", n)
		}
	case "guardrails.scope":
		return oneOf(s, Scopes)
	case "guardrails.max_attempts":
		if n < 1 {
			return fmt.Sprintf("must be at least 1, got %d", n)
		}
	case "team_checks.*.name":
		if strings.TrimSpace(s) == "" {
			return "must not be empty"
		}
	case "team_checks.*.command":
		if strings.TrimSpace(s) == "" {
			return "must not be empty"
		}
	case "team_checks.*.paths":
		for _, it := range v.([]any) {
			if !doublestar.ValidatePattern(it.(string)) || it.(string) == "" {
				return fmt.Sprintf("%q is not a valid glob", it)
			}
		}
	case "guardrails.timeout_secs", "hooks.*.timeout_secs", "team_checks.*.timeout_secs":
		if n <= 0 {
			return fmt.Sprintf("must be greater than 0, got %d", n)
		}
	case "sandbox.mode":
		return oneOf(s, SandboxModes)
	case "sandbox.network":
		return oneOf(s, NetworkModes)
	case "permissions.mode":
		return oneOf(s, PermissionModes)
	case "hooks.*.command":
		if strings.TrimSpace(s) == "" {
			return "must not be empty"
		}
	case "lsp.wait_ms":
		if n <= 0 {
			return fmt.Sprintf("must be greater than 0, got %d", n)
		}
	case "formatters.tools.*.extensions", "lsp.servers.*.extensions":
		for _, it := range v.([]any) {
			if e := it.(string); !strings.HasPrefix(e, ".") || len(e) < 2 {
				return fmt.Sprintf("expected extensions with their dot (\".go\"), got %q", e)
			}
		}
	case "mcp_servers.*.startup_timeout_sec", "mcp_servers.*.tool_timeout_sec":
		if f := number(v); f <= 0 {
			return fmt.Sprintf("must be greater than 0, got %v", v)
		}
	case "mcp_servers.*.network":
		return oneOf(s, NetworkModes)
	case "mcp_servers.*.url":
		if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Sprintf("expected an http:// or https:// URL, got %q", s)
		}
	case "mcp_servers.*.bearer_token_env_var", "mcp_servers.*.env_http_headers.*":
		if !envName.MatchString(s) {
			return fmt.Sprintf("expected an environment variable name, got %q", s)
		}
	case "mcp_servers.*.env_vars", "secrets.pass_env":
		for _, it := range v.([]any) {
			if !envName.MatchString(it.(string)) {
				return fmt.Sprintf("expected environment variable names, got %q", it)
			}
		}
	}
	return ""
}

// checkMCPServer refuses a table with both command (stdio) and url
// (HTTP). One with neither may only adjust a server another file
// defines (enabled = false); the MCP client names it if none does.
func (c *checker) checkMCPServer(m map[string]any, path []string) error {
	cmd, _ := m["command"].(string)
	u, _ := m["url"].(string)
	if cmd != "" && u != "" {
		return c.fail(path, "[%s]: set command (a stdio server) or url (a streamable HTTP server), not both", strings.Join(path, "."))
	}
	if _, ok := m["command"]; ok && strings.TrimSpace(cmd) == "" {
		return c.fail(append(slices.Clip(path), "command"), "%s.command: must not be empty", strings.Join(path, "."))
	}
	return nil
}

// number is an integer or float TOML value as a float.
func number(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// CheckModelSpec returns "" for a well-formed "provider/model" or
// "scripted:PATH", else what is wrong.
func CheckModelSpec(s string) string {
	if p, ok := strings.CutPrefix(s, "scripted:"); ok {
		if p == "" {
			return `"scripted:" needs a file path`
		}
		return ""
	}
	prov, model, ok := strings.Cut(s, "/")
	if !ok || prov == "" || model == "" || strings.ContainsAny(prov, " \t") {
		return fmt.Sprintf(`expected "provider/model" or "scripted:PATH", got %q`, s)
	}
	return ""
}

func oneOf(s string, allowed []string) string {
	if slices.Contains(allowed, s) {
		return ""
	}
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = strconv.Quote(a)
	}
	list := strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
	return fmt.Sprintf("expected %s, got %q", list, s)
}

// checkTeamChecks reports a [[team_checks]] entry without a name or a
// command, and two entries with the same name (the evidence names them).
func (c *checker) checkTeamChecks(tree map[string]any) error {
	items, _ := tables(tree["team_checks"])
	seen := map[string]bool{}
	for i, it := range items {
		at := []string{"team_checks", strconv.Itoa(i)}
		for _, k := range []string{"name", "command"} {
			if _, ok := it[k]; !ok {
				line := 0
				for key := range it {
					if n := lineOf(c.lines, append(slices.Clip(at), key)); n > 0 && (line == 0 || n < line) {
						line = n
					}
				}
				return &Error{Where: c.where, Line: line, Msg: fmt.Sprintf("[[team_checks]] entry %d has no %s", i+1, k)}
			}
		}
		name, _ := it["name"].(string)
		if seen[name] {
			return c.fail(append(at, "name"), "team_checks: two checks are named %q", name)
		}
		seen[name] = true
	}
	return nil
}
