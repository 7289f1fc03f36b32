package policy

import (
	"fmt"
	"strings"
)

// MCPPrefix starts the name of every MCP server's tool: mcp__SERVER__TOOL.
const MCPPrefix = "mcp__"

// mcpTool is the rule tool name of MCP tools; the rule's pattern holds
// the name it matches.
const mcpTool = "MCP"

// parseMCPRule parses an MCP rule as Claude Code writes them:
// "mcp__github" (every tool of the server), "mcp__github__*" and
// "mcp__github__create_issue"; "*" stands for any run of characters.
func parseMCPRule(text, s string) (rule, error) {
	r := rule{text: text, tool: mcpTool, pattern: s}
	if strings.ContainsAny(s, "() \t") {
		return r, fmt.Errorf("rule %q: an MCP rule is a tool name (mcp__SERVER, mcp__SERVER__TOOL or mcp__SERVER__*), without parentheses", text)
	}
	if s == MCPPrefix {
		return r, fmt.Errorf("rule %q: name a server (mcp__SERVER) or a tool (mcp__SERVER__TOOL)", text)
	}
	return r, nil
}

// matchMCP reports whether an MCP rule covers the tool called name.
func (r rule) matchMCP(name string) bool {
	p := r.pattern
	if strings.Contains(p, "*") {
		return wildcard(p, name)
	}
	return name == p || strings.HasPrefix(name, p+"__") && !strings.Contains(strings.TrimPrefix(p, MCPPrefix), "__")
}

// decideMCP rules on a call of an MCP server's tool. The server ran
// because the user configured it, or approved the project's, so its
// tools run unless a rule asks or denies; plan mode and lockdown run
// only tools an allow rule names.
func (p *Policy) decideMCP(name string) outcome {
	match := func(r rule) bool { return r.matchMCP(name) }
	if r, ok := firstMatch(p.deny, mcpTool, match); ok {
		return outcome{verdict: Deny, reason: name + " refused by deny rule " + r.text, rule: r.text, subject: name}
	}
	if r, ok := firstMatch(p.ask, mcpTool, match); ok {
		return outcome{verdict: Ask, reason: name + " needs approval (rule " + r.text + ")", rule: r.text, subject: name, suggest: name}
	}
	if r, ok := firstMatch(p.allow, mcpTool, match); ok {
		return outcome{verdict: Allow, reason: "allowed by " + r.text, rule: r.text, explicit: true, subject: name}
	}
	switch p.mode {
	case ModePlan:
		return outcome{verdict: Deny, reason: "plan mode: an MCP tool runs only when an allow rule names it (" + name + ")", rule: "mode:" + p.mode, subject: name, suggest: name}
	}
	return outcome{verdict: Allow, reason: "MCP tools of a configured or approved server run", rule: "mode:" + p.mode, subject: name, suggest: name}
}
