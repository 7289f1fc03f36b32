// Package hookgate is chanto's done-gate inside other coding agents:
// `chanto hook claude|codex|gemini` reads one hook event of Claude Code,
// Codex CLI or gemini-cli on stdin and answers in that agent's format. It
// runs the engine the agent's own gate runs (internal/gate's own-run
// parsing, snapshot, protect, verify with its baseline putback): a snapshot
// when a turn starts, test protection after each tool call, the gate when
// the agent stops. One process handles one event; the turn lives on disk
// between them (state.go).
package hookgate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/git"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify"
	"github.com/chanto-dev/chanto/internal/verify/snapshot"
)

// DefaultBudget bounds one hook call when Options.Budget is zero: under
// the ten minutes Claude Code and Codex give a command hook by default.
const DefaultBudget = 9 * time.Minute

// Options configure one hook call.
type Options struct {
	Agent Agent
	// Runner executes checks and git (sandbox, scrubbed environment).
	Runner *run.Runner
	// Checks replace detection ([guardrails] checks).
	Checks []string
	// TeamChecks run after them ([[team_checks]]).
	TeamChecks []verify.TeamCheck
	// Full forces the full suite; FullReason names who asked.
	Full       bool
	FullReason string
	// MaxAttempts bounds the stops sent back to the model per turn
	// ([guardrails] max_attempts).
	MaxAttempts int
	// Timeout bounds each check run ([guardrails] timeout_secs).
	Timeout time.Duration
	// Budget bounds the whole call, to finish within the agent's own hook
	// timeout; a check cut short by it ends ⚠ Not verified.
	Budget time.Duration
	// ProtectTests turns test protection on; AllowTestEdits exempts the
	// user's paths.
	ProtectTests   bool
	AllowTestEdits []string
	// StateDir is the hooks history folder (~/.chanto/history/hooks).
	StateDir string
	// HistoryDir and Watcher are passed to the putback baseline (tests).
	HistoryDir string
	Watcher    []string
}

// Handle answers one hook event: input is what the agent wrote on stdin,
// the result is the JSON for stdout. An error of chanto's own is never a
// pass: at a stop it is shown to the user as ⚠ Not verified; elsewhere it
// is returned as warn (for stderr) with an empty answer.
func Handle(ctx context.Context, opts Options, input []byte) (out []byte, warn string) {
	if opts.MaxAttempts < 1 {
		opts.MaxAttempts = 3
	}
	if opts.Runner == nil {
		opts.Runner = &run.Runner{}
	}
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Budget)
	defer cancel()
	p, err := parsePayload(input)
	if err != nil {
		return encode(opts.Agent.tell(verify.NotVerifiedEvidence("chanto hook " + string(opts.Agent) + ": " + err.Error()))), err.Error()
	}
	m := opts.Agent.moment(p.Event)
	defer func() {
		if r := recover(); r != nil {
			warn = fmt.Sprintf("chanto hook %s crashed on %s: %v\n%s", opts.Agent, p.Event, r, debug.Stack())
			out = encode(failed(opts.Agent, m, fmt.Sprintf("the chanto hook crashed on %s (%v)", p.Event, r)))
		}
	}()
	a, err := handle(ctx, opts, p, m)
	if err != nil {
		return encode(failed(opts.Agent, m, "chanto hook "+string(opts.Agent)+" could not run on "+p.Event+": "+err.Error())), err.Error()
	}
	return encode(a), ""
}

// Passes reports whether input is an event the gate does nothing at (one
// it ignores, a subagent's stop), so the caller may hand it to Handle with
// no configuration loaded and no runner prepared (no sandbox probe). A
// payload that does not parse does not pass: Handle says what is wrong.
func Passes(a Agent, input []byte) bool {
	p, err := parsePayload(input)
	if err != nil {
		return false
	}
	m := a.moment(p.Event)
	return m == ignored || m == subagentStop
}

// failed is the answer to an event chanto could not handle: at a stop the
// user is told it is not verified; elsewhere nothing is said to the model.
func failed(a Agent, m moment, why string) answer {
	if m == stop {
		return a.tell(verify.NotVerifiedEvidence(why))
	}
	return answer{}
}

func encode(a answer) []byte {
	if a == nil {
		a = answer{}
	}
	b, _ := json.Marshal(a)
	return b
}

// call is one event being handled: its options, payload and session.
type call struct {
	opts Options
	p    payload
	dir  string // the session folder
	st   *sessionState
}

func handle(ctx context.Context, opts Options, p payload, m moment) (answer, error) {
	if m == ignored || m == subagentStop {
		return answer{}, nil // SubagentStop: no gate for subagents
	}
	if p.SessionID == "" {
		return nil, fmt.Errorf("the %s payload has no session_id", p.Event)
	}
	if p.Cwd == "" {
		if wd, err := os.Getwd(); err == nil {
			p.Cwd = wd
		}
	}
	s := store{dir: opts.StateDir}
	dir := s.sessionDir(opts.Agent, p.SessionID)
	unlock, err := lock(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, err := loadState(dir)
	if err != nil {
		return nil, err
	}
	st.Agent, st.SessionID = opts.Agent, p.SessionID
	c := &call{opts: opts, p: p, dir: dir, st: st}
	var a answer
	switch m {
	case sessionStart:
		if st.Turn != nil && !st.Turn.FromSessionStart {
			return answer{}, nil // a turn's own snapshot is better
		}
		a = c.startTurn(ctx, true)
		s.sweep(dir, time.Now())
	case turnStart:
		if c.continues() {
			return answer{}, nil // our own send-back, not the user's prompt
		}
		a = c.startTurn(ctx, false)
		s.sweep(dir, time.Now())
	case afterTool:
		a = c.afterTool(ctx)
	case stop:
		a = c.stop(ctx)
	}
	if err := saveState(dir, st); err != nil {
		return nil, err
	}
	return a, nil
}

// startTurn takes the turn-start snapshot. A snapshot that cannot be taken
// is remembered, so the stop says why it could not compare.
func (c *call) startTurn(ctx context.Context, atSessionStart bool) answer {
	root := c.root(ctx)
	t := &turnState{Key: c.p.turnKey(), FromSessionStart: atSessionStart, Root: root, Started: time.Now()}
	c.st.Turn = t
	snapDir := filepath.Join(c.dir, "turn")
	os.RemoveAll(snapDir)
	snap, err := snapshot.TakeToSave(ctx, c.opts.Runner, root)
	if err == nil {
		err = snap.Save(snapDir)
		snap.Close()
	}
	if err != nil {
		t.SnapshotErr = err.Error()
	}
	return answer{}
}

// continues reports whether a turn-start event belongs to the turn under
// way: one with the turn's own id (Claude Code hands a background
// subagent's result to the model as a <task-notification> prompt, with
// the prompt_id of the turn that started it), or one carrying the reason
// of the stop chanto just blocked (gemini-cli's retry after a deny).
func (c *call) continues() bool {
	t := c.st.Turn
	if t == nil {
		return false
	}
	if key := c.p.turnKey(); key != "" && key == t.Key && !t.FromSessionStart {
		return true
	}
	if t.SentBack == "" {
		return false
	}
	head := strings.TrimSpace(t.SentBack)
	if len(head) > 200 {
		head = head[:200]
	}
	return strings.Contains(c.p.Prompt, head)
}

// root is the repository's top level above the agent's folder, or that
// folder outside git.
func (c *call) root(ctx context.Context) string {
	if top, err := git.Top(ctx, c.opts.Runner, c.p.Cwd); err == nil {
		return top
	}
	return c.p.Cwd
}

// loadSnapshot reads the turn's snapshot back.
func (c *call) loadSnapshot(ctx context.Context) (*snapshot.Snapshot, error) {
	return snapshot.Load(ctx, c.opts.Runner, filepath.Join(c.dir, "turn"))
}
