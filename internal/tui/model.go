package tui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chanto-dev/chanto/internal/app"
	"github.com/chanto-dev/chanto/internal/event"
)

// model is the one top-level model: it owns Update, and its parts expose
// methods and render functions rather than update loops of their own. No
// IO happens in Update; what needs IO is a tea.Cmd.
type model struct {
	opts   Options
	st     styles
	md     *markdown
	sess   *app.Session
	width  int
	height int

	input textarea.Model
	// prompts is the history ↑/↓ and Ctrl+R walk; at is the position while
	// walking (len(prompts): not walking), draft the text before it began.
	prompts []string
	at      int
	draft   string
	// pastes holds the text behind each "[pasted N lines]" placeholder.
	pastes map[string]string
	// queued are prompts typed while the model works, sent in order.
	queued []string
	// context is !cmd output waiting to go with the next prompt.
	context []string

	mode   uiMode
	search string // Ctrl+R query
	// question is the permission question on screen; denying reads a reason.
	question *app.Question
	// testEdits are files whose test change waits for the user's yes or no.
	testEdits []string
	// picker lists the sessions /resume offers.
	picker []sessionChoice

	turn  turnView
	usage []event.Usage // per turn, for /cost
	// ctxUsed and ctxWindow size the conversation against the model's
	// window (tokens), as of the last turn's end.
	ctxUsed, ctxWindow int
	lastQuit           time.Time // the first Ctrl+C of a pair
	notice             string    // a one-line hint under the input
	quitting           bool
	// compacting is set while /compact's summary turn runs.
	compacting bool
	// files are the project's files for @path completion.
	files []string
	// log is every finished item in full, for the transcript view (Ctrl+O);
	// pending holds what finished while that view was open; back is the
	// mode it was opened from.
	log     []string
	pending []string
	pager   viewport.Model
	back    uiMode
	// sized is set by the first WindowSizeMsg.
	sized bool
	// focused is false while the terminal says it lost the focus: a turn
	// that ends then is also announced by a desktop notification (OSC 9).
	focused bool
	// printed records what went to the scrollback, for tests.
	printed []string
	record  bool
}

// uiMode says what the keyboard is doing.
type uiMode int

const (
	modeInput uiMode = iota
	modeQuestion
	modeReason // typing the reason for a "no"
	modeTestEdit
	modeSearch
	modeTrust
	modeResume
	modeHelp
	modeTranscript
)

// turnView is the live part of a running turn.
type turnView struct {
	busy    bool
	started time.Time
	reply   strings.Builder // the streaming reply
	shown   int             // bytes of reply already in the scrollback
	tools   []runningTool
	inputs  map[string][]byte // tool id → input, for the finished line
	verify  *verifying
	subs    []*subView // running subagents
	// subSums are finished subagents' lines (short, full) waiting for
	// their task line, by the task call's id.
	subSums     map[string][2]string
	review      *reviewing
	interrupted bool
}

type runningTool struct {
	id, title string
	started   time.Time
}

// verifying is the live "Verifying: …" line.
type verifying struct {
	checks  []string
	scope   string
	done    int
	started time.Time
}

// sessionChoice is one past session /resume offers.
type sessionChoice struct {
	id, label string
}

// Messages.
type (
	updateMsg struct{ u app.Update }
	closedMsg struct{}
	tickMsg   time.Time
	builtMsg  struct {
		sess *app.Session
		err  error
	}
	editorMsg struct {
		text string
		err  error
	}
	shellMsg struct {
		cmd, output string
		err         error
	}
	diffMsg struct {
		text string
		err  error
	}
	resumeList struct {
		choices []sessionChoice
		err     error
	}
)

func newModel(opts Options) *model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "› "
	ta.Placeholder = "Ask chanto, / for commands, @ to attach a file, ! to run a command"
	ta.SetHeight(1)
	ta.MaxHeight = 8
	ta.CharLimit = 0
	ta.KeyMap.InsertNewline.SetKeys("shift+enter", "ctrl+j")
	ta.Focus()
	ta.SetStyles(inputStyles(opts.NoColor))
	m := &model{opts: opts, st: newStyles(opts.NoColor), md: newMarkdown(opts.NoColor, false), input: ta, pastes: map[string]string{}, width: 80, height: 24, focused: true}
	m.prompts = loadPromptHistory()
	m.at = len(m.prompts)
	if len(opts.Untrusted) > 0 {
		m.mode = modeTrust
	}
	return m
}

// Init builds the session unless the trust question comes first: nothing
// from the project runs before its answer.
func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{textarea.Blink, tea.RequestWindowSize, tea.RequestBackgroundColor}
	if m.mode != modeTrust {
		cmds = append(cmds, m.build(m.opts.App))
	}
	return tea.Batch(cmds...)
}

// build makes the session off the event loop.
func (m *model) build(o app.Options) tea.Cmd {
	return func() tea.Msg {
		o.Interactive = true
		o.Sink, o.Warn = nil, nil
		s, err := app.Build(o)
		return builtMsg{sess: s, err: err}
	}
}

// listen reads the next update of the session.
func listen(s *app.Session) tea.Cmd {
	return func() tea.Msg {
		u, ok := <-s.Updates()
		if !ok {
			return closedMsg{}
		}
		return updateMsg{u}
	}
}

func tick() tea.Cmd {
	return tea.Tick(200*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// print puts finished text into the terminal's scrollback.
func (m *model) print(s string) tea.Cmd { return m.printFull(s, s) }

// printFull prints s and keeps full, its whole form, for the transcript view.
func (m *model) printFull(s, full string) tea.Cmd {
	if s == "" {
		return nil
	}
	m.keep(full)
	if m.record {
		m.printed = append(m.printed, s)
	}
	if m.mode == modeTranscript || !m.sized {
		m.pending = append(m.pending, s)
		return nil
	}
	return m.println(s)
}

// println hands text to the renderer in pieces the screen has room for.
// Lines wider than the terminal would wrap behind the renderer's back, and
// a piece taller than the rows above the live region scrolls the region
// itself into the history before the renderer can push it down: both
// left pieces of the live region in the scrollback (on a 20×6 screen).
func (m *model) println(s string) tea.Cmd {
	lines := strings.Split(ansi.Wrap(s, max(m.width, 1), ""), "\n")
	room := max(m.height-strings.Count(m.frame(), "\n")-2, 1)
	if len(lines) <= room {
		return tea.Println(strings.Join(lines, "\n"))
	}
	var cmds []tea.Cmd
	for len(lines) > 0 {
		n := min(room, len(lines))
		cmds = append(cmds, tea.Println(strings.Join(lines[:n], "\n")))
		lines = lines[n:]
	}
	return tea.Sequence(cmds...)
}

// Update is the one place state changes.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		if !m.sized {
			// Nothing is drawn or printed before the terminal's size is
			// known: a frame laid out for 80×24 on a 20×6 screen left its
			// rows in the scrollback.
			m.sized = true
			return m, m.flushPending()
		}
		return m, nil
	case tea.FocusMsg:
		m.focused = true
		return m, nil
	case tea.BlurMsg:
		m.focused = false
		return m, nil
	case tea.BackgroundColorMsg:
		// Light terminals get glamour's light sheet.
		m.md = newMarkdown(m.opts.NoColor, !msg.IsDark())
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		return m, m.paste(msg.Content)
	case updateMsg:
		cmd := m.onUpdate(msg.u)
		return m, tea.Batch(cmd, listen(m.sess))
	case closedMsg:
		return m, nil
	case filesMsg:
		m.files = msg.files
		return m, nil
	case tickMsg:
		if m.turn.busy {
			return m, tick()
		}
		return m, nil
	case builtMsg:
		return m, m.onBuilt(msg)
	case editorMsg:
		if msg.err != nil {
			m.notice = "editor: " + msg.err.Error()
		} else {
			m.input.SetValue(strings.TrimRight(msg.text, "\n"))
			m.fitInput()
		}
		return m, nil
	case shellMsg:
		return m, m.onShell(msg)
	case diffMsg:
		if msg.err != nil {
			return m, m.print(m.st.bad.Render("diff: " + msg.err.Error()))
		}
		return m, m.print(msg.text)
	case resumeList:
		return m, m.onResumeList(msg)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

func (m *model) onBuilt(msg builtMsg) tea.Cmd {
	if msg.err != nil {
		return m.print(m.st.bad.Render("✗ " + msg.err.Error()))
	}
	m.sess = msg.sess
	m.ctxUsed, m.ctxWindow = m.sess.Context()
	// listen blocks until the session says something, so it runs beside
	// the prints, not in sequence with them.
	prints := []tea.Cmd{m.print(m.banner())}
	if h := m.replayHistory(); h != "" {
		prints = append(prints, m.print(h))
	}
	if len(m.queued) > 0 {
		prints = append(prints, m.sendNext())
	}
	return tea.Batch(tea.Sequence(prints...), listen(m.sess), listFiles(m.sess.Runner(), m.opts.App.Cwd))
}

func (m *model) resize(w, h int) {
	m.width, m.height = max(w, 1), max(h, 1)
	m.input.SetWidth(max(m.width, 4))
	m.fitInput()
	if m.mode == modeTranscript {
		m.fillPager(false)
	}
}

// fitInput grows the input with its text, within what the screen allows.
func (m *model) fitInput() {
	lines := m.input.LineCount()
	room := max(m.height-3, 1)
	if m.height <= smallScreen {
		room = 1 // the small frame keeps one height (smallFrame)
	}
	m.input.SetHeight(min(max(lines, 1), min(8, room)))
}

// inputStyles drop the textarea's cursor-line background (the input sits
// in the user's own terminal colours); plain has no colour at all.
func inputStyles(plain bool) textarea.Styles {
	s := textarea.DefaultDarkStyles()
	s.Focused.CursorLine = lipgloss.NewStyle()
	s.Blurred.CursorLine = lipgloss.NewStyle()
	s.Focused.Base, s.Blurred.Base = lipgloss.NewStyle(), lipgloss.NewStyle()
	if plain {
		none := textarea.StyleState{}
		s.Focused, s.Blurred = none, none
	}
	return s
}
