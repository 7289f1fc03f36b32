package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/app"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/session"
)

// command is one slash command.
type command struct {
	name, args, help string
	run              func(m *model, arg string) tea.Cmd
}

// commands, in the order /help lists them: the built-in ones, then those
// other files add with registerCommand. Filled in init: the handlers
// refer to the list (/help), which Go cannot do in the declaration.
var commands []command

// registerCommand adds a slash command; call it from the init of the
// command's own file (one file per command: goal.go, mcp.go). The popup,
// /help and the unknown-command suggestion pick it up. A name already
// taken panics at start, so a clash cannot ship.
func registerCommand(c command) {
	for _, o := range commands {
		if o.name == c.name {
			panic("tui: slash command " + c.name + " registered twice")
		}
	}
	commands = append(commands, c)
}

func init() {
	registered := commands // files whose init ran before this one
	commands = nil
	for _, c := range []command{
		{"/help", "", "the keys and commands", (*model).cmdHelp},
		{"/verify", "[on|off|full|related]", "show or change verified mode for the rest of the session", (*model).cmdVerify},
		{"/allow-test-edit", "PATH", "let the model change the tests at PATH (only you can)", (*model).cmdAllowTestEdit},
		{"/goal", "[TEXT|criteria C1 ;; C2|file NAME|clear]", "show or set the goal and its outcome criteria", (*model).cmdGoal},
		{"/status", "", "model, modes, sandbox, verify, team checks, goal, trust, session id", (*model).cmdStatus},
		{"/cost", "", "tokens per turn and in all", (*model).cmdCost},
		{"/diff", "", "the change in the working tree", (*model).cmdDiff},
		{"/model", "[PROVIDER/MODEL]", "show or switch the model", (*model).cmdModel},
		{"/permissions", "", "the permission rules in force", (*model).cmdPermissions},
		{"/resume", "", "pick an earlier session of this folder", (*model).cmdResume},
		{"/clear", "", "start a new session", (*model).cmdClear},
		{"/compact", "", "summarize the conversation and continue from the summary", (*model).cmdCompact},
		{"/init", "", "write a starting AGENTS.md for this project", (*model).cmdInit},
		{"/quit", "", "leave chanto", func(m *model, _ string) tea.Cmd { return m.quit() }},
	} {
		registerCommand(c)
	}
	for _, c := range registered {
		registerCommand(c)
	}
}

// command runs a slash command line.
func (m *model) command(line string) tea.Cmd {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	for _, c := range commands {
		if c.name == name {
			if m.sess == nil && name != "/help" && name != "/quit" {
				m.notice = "the session is still starting"
				return nil
			}
			return c.run(m, arg)
		}
	}
	msg := fmt.Sprintf("unknown command %s", name)
	if s := suggestCommand(name); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", s)
	}
	return m.print(m.st.warn.Render(msg + " (/help lists them)"))
}

// suggestCommand is the known command nearest to name.
func suggestCommand(name string) string {
	best, bestD := "", 4
	for _, c := range commands {
		if strings.HasPrefix(c.name, name) {
			return c.name
		}
		if d := editDistance(name, c.name); d < bestD {
			best, bestD = c.name, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func (m *model) cmdHelp(string) tea.Cmd {
	var b strings.Builder
	b.WriteString(m.st.bold.Render("Keys") + "\n")
	for _, k := range keyHelp {
		fmt.Fprintf(&b, "  %-14s %s\n", k[0], k[1])
	}
	b.WriteString(m.st.bold.Render("Commands") + "\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-30s %s\n", strings.TrimSpace(c.name+" "+c.args), c.help)
	}
	return m.print(strings.TrimRight(b.String(), "\n"))
}

// keyHelp is what ? and /help show; docs/tui.md has the same table.
var keyHelp = [][2]string{
	{"Enter", "send (queued while the model works)"},
	{"Shift+Enter", "new line (Ctrl+J always works)"},
	{"Esc", "interrupt the model"},
	{"Ctrl+C", "clear the input; twice within 2 s quits"},
	{"Ctrl+D", "quit (on an empty input)"},
	{"Shift+Tab", "permission mode: default → accept-edits → plan"},
	{"↑ / ↓", "prompt history"},
	{"Ctrl+R", "search the prompt history"},
	{"Ctrl+G", "edit the prompt in $EDITOR"},
	{"Ctrl+O", "the full transcript: whole tool outputs and diffs"},
	{"Tab", "complete a /command or @file"},
	{"@path", "attach a file to the prompt"},
	{"!cmd", "run a shell command; its output goes with the next prompt"},
	{"?", "show the keys (on an empty input)"},
}

func (m *model) cmdVerify(arg string) tea.Cmd {
	switch arg {
	case "":
	case "on":
		m.sess.SetVerify(true)
	case "off":
		m.sess.SetVerify(false)
	case "full":
		m.sess.SetVerify(true)
		m.sess.SetFull(true, "/verify full")
	case "related":
		m.sess.SetVerify(true)
		m.sess.SetFull(false, "")
	default:
		return m.print(m.st.warn.Render("/verify " + arg + ": want on, off, full or related"))
	}
	return m.print(m.verifyStatus())
}

func (m *model) verifyStatus() string {
	st := m.sess.Settings()
	if !st.Gated {
		return "verify: no gate in this session (--output-schema)"
	}
	g := st.Gate
	line := "verify: off (test protection and the failed-run rule still apply)"
	if g.Verify {
		scope := "related tests"
		if g.Full {
			scope = "full suite (" + g.FullReason + ")"
		}
		line = "verify: on, " + scope
	}
	if len(g.AllowTestEdits) > 0 {
		line += "; test edits allowed: " + strings.Join(g.AllowTestEdits, ", ")
	}
	return line
}

func (m *model) cmdAllowTestEdit(arg string) tea.Cmd {
	if arg == "" {
		return m.print(m.st.warn.Render("/allow-test-edit PATH: name the test file or glob"))
	}
	path := arg
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.opts.App.Cwd, arg)
	}
	m.sess.AllowTestEdit(path)
	return m.print(m.st.dim.Render("you allowed test edits in " + arg + " for this session"))
}

func (m *model) cmdStatus(string) tea.Cmd {
	st := m.sess.Settings()
	cfg := m.opts.App.Config
	mode := st.Permissions.Mode
	if mode == "" {
		mode = agent.ModeDefault
	}
	lines := []string{
		"model:       " + m.opts.App.Model + " (" + cfg.Model + ")",
		"permissions: " + mode + lockdown(st.Permissions.Lockdown),
		"sandbox:     " + cfg.Sandbox.Mode + ", network " + cfg.Sandbox.Network,
		m.verifyStatus(),
		m.teamStatus(),
		m.goalStatus(),
		"trust:       " + m.trustStatus(),
		"session:     " + m.sess.ID(),
		"folder:      " + m.opts.App.Cwd,
	}
	return m.print(strings.Join(lines, "\n"))
}

func lockdown(on bool) string {
	if on {
		return ", lockdown"
	}
	return ""
}

func (m *model) cmdCost(string) tea.Cmd {
	if len(m.usage) == 0 {
		return m.print("no tokens used yet in this session")
	}
	price, priced := llm.KnownPrice(m.opts.App.Model)
	var b strings.Builder
	var all llm.Usage
	line := func(label string, u llm.Usage) {
		fmt.Fprintf(&b, "%-8s %s in, %s out", label, tokens(u.TotalInput()), tokens(u.OutputTokens))
		if u.CacheReadTokens > 0 {
			fmt.Fprintf(&b, " (%s from the cache)", tokens(u.CacheReadTokens))
		}
		if priced {
			fmt.Fprintf(&b, ", %s", dollars(price.Cost(u)))
		}
		b.WriteByte('\n')
	}
	for i, u := range m.usage {
		line(fmt.Sprintf("turn %d:", i+1), llm.Usage(u))
		addUsage(&all, u)
	}
	line("all:", all)
	if !priced {
		fmt.Fprintf(&b, "no price known for %s: tokens only", m.opts.App.Model)
	} else {
		b.WriteString("at the list prices chanto knows (internal/llm/price.go)")
	}
	return m.print(b.String())
}

func (m *model) cmdDiff(string) tea.Cmd {
	r, root := m.sess.Runner(), m.opts.App.Cwd
	return func() tea.Msg {
		var out strings.Builder
		res, err := r.Run(context.Background(), run.Spec{Args: []string{"git", "diff", "--stat", "--patch", "HEAD"}, Dir: root, Purpose: run.Internal, Stdout: &out, OutputCap: 1 << 20})
		if err != nil {
			return diffMsg{err: err}
		}
		if res.ExitCode != 0 {
			return diffMsg{err: fmt.Errorf("git diff: exit %d (is this a git repository with a commit?)", res.ExitCode)}
		}
		if strings.TrimSpace(out.String()) == "" {
			return diffMsg{text: "no change against HEAD"}
		}
		return diffMsg{text: strings.TrimRight(out.String(), "\n")}
	}
}

func (m *model) cmdModel(arg string) tea.Cmd {
	if arg == "" {
		return m.print("model: " + m.opts.App.Config.Model)
	}
	if m.turn.busy {
		m.notice = "wait for the turn to end (or Esc) before switching the model"
		return nil
	}
	p, name, err := app.OpenProvider(arg, m.opts.App.Config)
	if err != nil {
		return m.print(m.st.bad.Render("/model: " + err.Error()))
	}
	m.opts.App.Config.Model, m.opts.App.Provider, m.opts.App.Model = arg, p, name
	return m.rebuild(m.opts.App.Transcript, "model: "+arg)
}

func (m *model) cmdPermissions(string) tea.Cmd {
	p := m.sess.Settings().Permissions
	mode := p.Mode
	if mode == "" {
		mode = agent.ModeDefault
	}
	lines := []string{"mode: " + mode + lockdown(p.Lockdown)}
	saved, _ := config.SavedAllows(config.FindProjectRoot(m.opts.App.Cwd))
	for _, r := range []struct {
		name  string
		rules []string
	}{{"allow", p.Allow}, {"ask", p.Ask}, {"deny", p.Deny}} {
		if len(r.rules) == 0 {
			lines = append(lines, r.name+": (none)")
			continue
		}
		lines = append(lines, r.name+":")
		for _, x := range r.rules {
			if r.name == "allow" && slices.Contains(saved, x) {
				x += "  (your \"always\", saved in " + config.AllowFile() + ")"
			}
			lines = append(lines, "  "+x)
		}
	}
	return m.print(strings.Join(lines, "\n"))
}

func (m *model) cmdClear(string) tea.Cmd {
	if m.turn.busy {
		m.notice = "wait for the turn to end (or Esc) before /clear"
		return nil
	}
	t, err := app.OpenTranscript(app.Reopen{}, m.opts.App.Cwd, m.opts.App.Config.Model)
	if err != nil {
		return m.print(m.st.bad.Render("/clear: " + err.Error()))
	}
	m.usage = nil
	return m.rebuild(t, "new session")
}

// rebuild replaces the session with one on transcript t.
func (m *model) rebuild(t app.Transcript, why string) tea.Cmd {
	old := m.sess
	m.sess = nil
	if t != old.Transcript() {
		defer old.Close()
	} else {
		old.Interrupt()
	}
	m.opts.App.Transcript = t
	return tea.Sequence(m.print(m.st.dim.Render("── "+why+" ──")), m.build(m.opts.App))
}

func (m *model) cmdResume(string) tea.Cmd {
	cwd := m.opts.App.Cwd
	return func() tea.Msg {
		all, err := session.List()
		if err != nil {
			return resumeList{err: err}
		}
		var out []sessionChoice
		for _, s := range all {
			if sameDir(s.ProjectDir, cwd) {
				out = append(out, sessionChoice{id: s.ID, label: s.Created.Local().Format("2006-01-02 15:04") + "  " + oneLine(s.FirstPrompt)})
			}
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].id > out[j].id })
		return resumeList{choices: out}
	}
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

func (m *model) onResumeList(msg resumeList) tea.Cmd {
	if msg.err != nil {
		return m.print(m.st.bad.Render("/resume: " + msg.err.Error()))
	}
	var choices []sessionChoice
	for _, c := range msg.choices {
		if m.sess == nil || c.id != m.sess.ID() {
			choices = append(choices, c)
		}
	}
	if len(choices) == 0 {
		return m.print("no earlier session in this folder")
	}
	m.picker = choices[:min(len(choices), 9)]
	m.mode = modeResume
	return nil
}

// resumeKey picks a session by its number.
func (m *model) resumeKey(s string) tea.Cmd {
	if s == "esc" {
		m.mode, m.picker = modeInput, nil
		return nil
	}
	if len(s) != 1 || s[0] < '1' || int(s[0]-'0') > len(m.picker) {
		return nil
	}
	c := m.picker[s[0]-'1']
	m.mode, m.picker = modeInput, nil
	t, err := app.OpenTranscript(app.Reopen{ID: c.id}, m.opts.App.Cwd, m.opts.App.Config.Model)
	if err != nil {
		return m.print(m.st.bad.Render("/resume: " + err.Error()))
	}
	return m.rebuild(t, "resumed "+c.id)
}

// initPrompt asks the model for a starting AGENTS.md.
const initPrompt = `Write a starting AGENTS.md at the project root for coding agents working here: what the project is, how it is laid out, how to build it, how to run its tests and checks, and the conventions its code follows. Read the project first (manifests, README, CI files, a few source files). Keep it short and factual. If an AGENTS.md exists, improve it instead of replacing what is true in it.`

func (m *model) cmdInit(string) tea.Cmd {
	if _, err := os.Stat(filepath.Join(m.opts.App.Cwd, "AGENTS.md")); err == nil {
		m.notice = "AGENTS.md exists: the model will improve it"
	}
	m.queued = append(m.queued, initPrompt)
	return m.sendNext()
}

// compactPrompt asks for the summary /compact continues from.
const compactPrompt = `Summarize this conversation so it can continue from the summary alone: the task, what was decided, what was changed (files), what is left to do, and anything the user asked to keep in mind. Use no tools; answer with the summary only.`

func (m *model) cmdCompact(string) tea.Cmd {
	if m.turn.busy {
		m.notice = "wait for the turn to end (or Esc) before /compact"
		return nil
	}
	m.compacting = true
	m.queued = append([]string{compactPrompt}, m.queued...)
	return m.sendNext()
}

// finishCompact starts a new session whose history is the summary.
func (m *model) finishCompact(summary string, err error) tea.Cmd {
	m.compacting = false
	if err != nil || strings.TrimSpace(summary) == "" {
		return m.print(m.st.warn.Render("/compact: no summary; the session goes on as it was"))
	}
	t, err := app.OpenTranscript(app.Reopen{}, m.opts.App.Cwd, m.opts.App.Config.Model)
	if err != nil {
		return m.print(m.st.bad.Render("/compact: " + err.Error()))
	}
	for _, msg := range compactedHistory(summary) {
		if err := t.Append(msg); err != nil {
			return m.print(m.st.bad.Render("/compact: " + err.Error()))
		}
	}
	return m.rebuild(t, "compacted into a new session")
}
