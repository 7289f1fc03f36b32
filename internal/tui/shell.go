package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/policy"
	"github.com/chanto-dev/chanto/internal/run"
)

// shellTimeout bounds a !cmd.
const shellTimeout = 10 * time.Minute

// shell is !cmd: the user's command, run through internal/run with the
// session's sandbox and scrubbed environment. The permission rules apply
// as to a bash call, except that what they would ask about runs: the user
// typed it. Its output goes with the next prompt.
func (m *model) shell(cmd string) tea.Cmd {
	if cmd == "" {
		return nil
	}
	if m.sess == nil {
		m.notice = "the session is still starting"
		return nil
	}
	perms := m.sess.Settings().Permissions
	pa, err := agent.NewPolicyApprover(perms, m.opts.App.Cwd)
	if err != nil {
		return m.print(m.st.bad.Render("!" + cmd + ": " + err.Error()))
	}
	in, _ := json.Marshal(map[string]string{"command": cmd})
	if d := pa.Decide("bash", in); d.Verdict == policy.Deny && !strings.HasPrefix(d.Rule, "mode:") {
		return m.print(m.st.warn.Render("! " + d.Reason))
	}
	r, root := m.sess.Runner(), m.opts.App.Cwd
	head := m.print(m.st.user.Render("! ") + cmd)
	return tea.Sequence(head, func() tea.Msg {
		res, err := r.Run(context.Background(), run.Spec{Shell: cmd, Dir: root, Purpose: run.Model, Combined: true, Timeout: shellTimeout})
		if err != nil {
			return shellMsg{cmd: cmd, err: err}
		}
		text := strings.TrimRight(string(res.Output), "\n")
		if res.TimedOut {
			text += fmt.Sprintf("\n[killed after %s]", shellTimeout)
		}
		if res.ExitCode != 0 {
			text += fmt.Sprintf("\n[exit code %d]", res.ExitCode)
		}
		return shellMsg{cmd: cmd, output: text}
	})
}

func (m *model) onShell(msg shellMsg) tea.Cmd {
	if msg.err != nil {
		return m.print(m.st.bad.Render("! " + msg.cmd + ": " + msg.err.Error()))
	}
	m.context = append(m.context, fmt.Sprintf("I ran `%s` myself; its output:\n```\n%s\n```", msg.cmd, msg.output))
	lines := tail(msg.output, 20)
	for i, l := range lines {
		lines[i] = "  " + m.st.dim.Render("│ ") + truncate(l, m.width-4)
	}
	if len(lines) == 0 {
		lines = []string{"  " + m.st.dim.Render("(no output)")}
	}
	return m.print(strings.Join(lines, "\n"))
}

// trustStatus says whether the folder is trusted.
func (m *model) trustStatus() string {
	root := config.FindProjectRoot(m.opts.App.Cwd)
	ok, err := config.IsTrusted(root)
	switch {
	case err != nil:
		return "unknown (" + err.Error() + ")"
	case ok:
		return "trusted (" + root + ")"
	}
	return "not trusted (" + root + "; chanto trust to change)"
}

// compactedHistory is the conversation a /compact continues from.
func compactedHistory(summary string) []llm.Message {
	return []llm.Message{
		{Role: llm.User, Parts: []llm.Part{{Type: llm.Text, Text: "Here is a summary of our conversation so far; continue from it.\n\n" + summary}}},
		{Role: llm.Assistant, Parts: []llm.Part{{Type: llm.Text, Text: "Understood. I have the summary and will continue from it."}}},
	}
}
