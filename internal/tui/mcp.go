package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/mcp"
	"github.com/chanto-dev/chanto/internal/safetext"
)

func init() {
	registerCommand(command{"/mcp", "", "the MCP servers: state, tools, why one is not running", (*model).cmdMCP})
}

// cmdMCP shows each configured MCP server: running with its tools,
// failed with the reason, or held back (not trusted, not approved,
// disabled).
func (m *model) cmdMCP(string) tea.Cmd {
	list := m.sess.MCP()
	if len(list) == 0 {
		return m.print(m.st.dim.Render("no MCP servers configured (chanto mcp add NAME -- COMMAND, or the project's .mcp.json)"))
	}
	var lines []string
	for _, s := range list {
		lines = append(lines, m.mcpLine(s))
	}
	return m.print(strings.Join(lines, "\n"))
}

func (m *model) mcpLine(s mcp.Status) string {
	from := "user"
	if s.Origin != mcp.FromUser {
		from = "project " + s.Origin
	}
	head := fmt.Sprintf("%s (%s, %s)", s.Name, from, s.Transport)
	var state string
	switch s.State {
	case mcp.StateReady:
		state = m.st.ok.Render(fmt.Sprintf("ready, %d tools", len(s.Tools)))
		if s.Restarts > 0 {
			state += m.st.dim.Render(fmt.Sprintf(" (restarted %d time after a crash)", s.Restarts))
		}
	case mcp.StateStarting:
		state = m.st.dim.Render("starting")
	case mcp.StateFailed:
		state = m.st.bad.Render("failed: " + safetext.Line(s.Error))
	case mcp.StateDisabled:
		state = m.st.dim.Render("disabled")
	default:
		state = m.st.warn.Render("not started: " + safetext.Line(s.Error))
	}
	line := head + "  " + state
	if s.State == mcp.StateReady && len(s.Tools) > 0 {
		line += "\n  " + m.st.dim.Render(strings.Join(s.Tools, " "))
	}
	return line
}
