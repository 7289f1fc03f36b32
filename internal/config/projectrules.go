package config

import (
	"fmt"
	"slices"
	"strings"
)

// What a project file may set. A project is someone else's code until the
// user trusts it: keys that make chanto run commands, or widen what
// commands may do, wait for trust; keys that point chanto's credentials or
// sandbox elsewhere are the user's alone.

// projectNever lists keys no project file may set, trusted or not; a key
// ending in "." stands for its whole table. The model and the providers
// decide where the user's keys go and how they are sent (a project that
// swapped a built-in provider's wire sent the Anthropic key as a Bearer
// token to OPENAI_BASE_URL), and a scripted model would make a project
// file the model.
var projectNever = []string{
	"model", "oracle_model", "providers.",
	"secrets.pass_env",
	"sandbox.network", "sandbox.writable", "sandbox.allow_domains",
}

// projectNeedsTrust lists keys (or whole tables, ending in ".") honoured
// only in trusted folders.
var projectNeedsTrust = []string{"guardrails.", "hooks.", "permissions.allow", "team_checks", "mcp_servers."}

// widening orders modes from narrowest to widest.
var widening = map[string][]string{
	"sandbox.mode":     {"read-only", "workspace-write", "off"},
	"permissions.mode": {"plan", "default", "accept-edits", "bypass"},
}

// ProjectRules describes the rules for docs and `chanto config`.
func ProjectRules() (never, needTrust []string) {
	return append(slices.Clip(projectNever), "sandbox.mode (when widening)", "mcp_servers.*.network", "mcp_servers.*.allow_domains"),
		append(slices.Clip(projectNeedsTrust), "permissions.mode (when widening)", "permissions.lockdown = false",
			"formatters.tools.*.command", "lsp.servers.*.command")
}

// filterProject removes from tree the keys the project may not set and
// records a warning for each.
func (l *Loaded) filterProject(merged, tree map[string]any, lines map[string]int, dir string) {
	type leaf struct {
		path []string
		line int
	}
	var leaves []leaf
	walkLeaves(tree, nil, func(p []string, _ any) {
		leaves = append(leaves, leaf{p, lineOf(lines, p)})
	})
	slices.SortStableFunc(leaves, func(a, b leaf) int { return a.line - b.line })
	const name = ".chanto/config.toml"
	servers := map[string]bool{} // MCP servers warned about: one line each
	for _, lf := range leaves {
		key := strings.Join(lf.path, ".")
		v := lookup(tree, lf.path)
		switch {
		case neverFromProject(lf.path, v, merged):
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s sets %s; ignored: only your own config (%s) or a flag may set it", name, key, UserFile()))
		case !l.Trusted && needsTrust(lf.path, v, merged):
			if lf.path[0] == "mcp_servers" && len(lf.path) > 1 {
				if !servers[lf.path[1]] {
					servers[lf.path[1]] = true
					l.Warnings = append(l.Warnings, fmt.Sprintf("%s defines MCP server %q; not started because %s is not trusted (run: chanto trust %s)", name, lf.path[1], dir, dir))
				}
				break
			}
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s sets %s; ignored because %s is not trusted (run: chanto trust %s)", name, key, dir, dir))
		default:
			continue
		}
		remove(tree, lf.path)
	}
	// A server whose every key was dropped is no server at all.
	if servers, ok := tree["mcp_servers"].(map[string]any); ok {
		for n, v := range servers {
			if m, ok := v.(map[string]any); ok && emptyTable(m) {
				delete(servers, n)
			}
		}
	}
}

// emptyTable reports whether m holds no value, only empty tables.
func emptyTable(m map[string]any) bool {
	for _, v := range m {
		sub, ok := v.(map[string]any)
		if !ok || !emptyTable(sub) {
			return false
		}
	}
	return true
}

func neverFromProject(path []string, v any, merged map[string]any) bool {
	key := strings.Join(path, ".")
	for _, k := range projectNever {
		if key == k || (strings.HasSuffix(k, ".") && strings.HasPrefix(key, k)) {
			return true
		}
	}
	// An MCP server's sandbox network is the user's to grant.
	if len(path) >= 3 && path[0] == "mcp_servers" && (path[2] == "network" || path[2] == "allow_domains") {
		return true
	}
	return key == "sandbox.mode" && widens(key, v, merged)
}

func needsTrust(path []string, v any, merged map[string]any) bool {
	key := strings.Join(path, ".")
	for _, k := range projectNeedsTrust {
		if key == k || (strings.HasSuffix(k, ".") && strings.HasPrefix(key, k)) {
			return true
		}
	}
	// A formatter's or language server's command runs project-chosen
	// programs; turning one off or passing settings does not.
	if len(path) == 4 && path[3] == "command" && (path[0] == "formatters" || path[0] == "lsp") {
		return true
	}
	switch key {
	case "permissions.mode":
		return widens(key, v, merged)
	case "permissions.lockdown":
		return v == false
	}
	return false
}

// widens reports whether v is a wider mode than the one in effect.
func widens(key string, v any, merged map[string]any) bool {
	order := widening[key]
	path := strings.Split(key, ".")
	current, _ := lookup(merged, path).(string)
	if current == "" {
		d := Default()
		current = map[string]string{"sandbox.mode": d.Sandbox.Mode, "permissions.mode": d.Permissions.Mode}[key]
	}
	s, _ := v.(string)
	return slices.Index(order, s) > slices.Index(order, current)
}

// walkLeaves calls fn for every non-table value, depth first.
func walkLeaves(tree map[string]any, path []string, fn func([]string, any)) {
	for k, v := range tree {
		p := append(slices.Clip(path), k)
		if sub, ok := v.(map[string]any); ok {
			walkLeaves(sub, p, fn)
			continue
		}
		fn(p, v)
	}
}

func lookup(tree map[string]any, path []string) any {
	var cur any = tree
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

func remove(tree map[string]any, path []string) {
	m := tree
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	delete(m, path[len(path)-1])
}
