// Package hook runs the user's hooks ([[hooks.<event>]]): each is a shell
// command that receives a JSON payload on stdin — data, never spliced into
// the command line — and answers with an exit code and, optionally, a JSON
// decision on stdout. Field names follow Claude Code's hooks where that
// costs nothing, so existing hook scripts mostly work unchanged. Hooks run
// through run.Runner (Purpose run.Hook) with a timeout.
package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
)

// Event names a hook point; the values are the config keys.
type Event string

const (
	SessionStart Event = "session_start"
	UserPrompt   Event = "user_prompt"
	PreToolUse   Event = "pre_tool_use"
	PostToolUse  Event = "post_tool_use"
	Stop         Event = "stop"
)

// ccNames are the event names Claude Code scripts expect in hook_event_name.
var ccNames = map[Event]string{
	SessionStart: "SessionStart", UserPrompt: "UserPromptSubmit",
	PreToolUse: "PreToolUse", PostToolUse: "PostToolUse", Stop: "Stop",
}

// DefaultTimeout bounds a hook whose timeout_secs is 0.
const DefaultTimeout = 60 * time.Second

// DefaultMaxStopSends caps how many answers in a row stop hooks may send
// back before the agent stops anyway.
const DefaultMaxStopSends = 3

// Payload is what a hook reads on stdin.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Cwd            string `json:"cwd"`
	// HookEventName is set by Run to the Claude Code spelling
	// ("PreToolUse"); Event carries chanto's ("pre_tool_use").
	HookEventName string          `json:"hook_event_name"`
	Event         Event           `json:"event"`
	ToolName      string          `json:"tool_name,omitempty"`
	ToolInput     json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse  json.RawMessage `json:"tool_response,omitempty"`
	Prompt        string          `json:"prompt,omitempty"`
	// LastAnswer is the final answer a stop hook judges.
	LastAnswer string `json:"last_answer,omitempty"`
	// StopHookActive is set when the answer is already a response to a
	// stop hook's send-back.
	StopHookActive bool   `json:"stop_hook_active,omitempty"`
	Source         string `json:"source,omitempty"` // session_start: "startup" or "resume"
}

// Action is what the hooks decided.
type Action string

const (
	// Continue: no hook objected; go on as usual.
	Continue Action = ""
	// Allow: a pre_tool_use hook approved the call (deny rules still win).
	Allow Action = "allow"
	// Ask: a pre_tool_use hook wants the user asked.
	Ask Action = "ask"
	// Block: deny the tool call (pre_tool_use), flag the result
	// (post_tool_use), refuse the prompt (user_prompt) or send the answer
	// back to the model (stop).
	Block Action = "block"
)

// Decision is the combined outcome of the hooks of one event.
type Decision struct {
	Action Action
	// Reason explains a Block or Ask; for stop it is what the model is told.
	Reason string
	// ToolInput, when set, replaces the tool call's input (pre_tool_use).
	ToolInput json.RawMessage
	// Context is extra text for the model (session_start, user_prompt,
	// post_tool_use).
	Context string
	// Hook is the command that decided.
	Hook string
	// StopCapReached is set when a stop hook asked to send the answer
	// back once more than the cap allows; Action is then Continue.
	StopCapReached bool
}

// Error reports a hook that failed without deciding (crash, timeout, bad
// JSON). It does not block; the caller logs it.
type Error struct {
	Hook   string
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("hook %q: %s", e.Hook, e.Reason) }

type entry struct {
	cfg     config.Hook
	matcher *regexp.Regexp // nil: every tool
	timeout time.Duration
}

// Hooks runs the configured hooks.
type Hooks struct {
	runner   *run.Runner
	byEvent  map[Event][]entry
	disabled int
	// MaxStopSends caps consecutive stop send-backs (default 3).
	MaxStopSends int
	stopSends    int
}

// New validates the hooks. When trusted is false no hook runs: the
// configuration may hold project hooks from a folder not yet trusted.
func New(cfg config.Hooks, runner *run.Runner, trusted bool) (*Hooks, error) {
	h := &Hooks{runner: runner, byEvent: map[Event][]entry{}, MaxStopSends: DefaultMaxStopSends}
	if h.runner == nil {
		h.runner = &run.Runner{}
	}
	lists := map[Event][]config.Hook{
		SessionStart: cfg.SessionStart, UserPrompt: cfg.UserPrompt,
		PreToolUse: cfg.PreToolUse, PostToolUse: cfg.PostToolUse, Stop: cfg.Stop,
	}
	for ev, list := range lists {
		for i, c := range list {
			if strings.TrimSpace(c.Command) == "" {
				return nil, fmt.Errorf("hooks.%s[%d]: empty command", ev, i)
			}
			if c.TimeoutSecs < 0 {
				return nil, fmt.Errorf("hooks.%s[%d]: negative timeout_secs", ev, i)
			}
			e := entry{cfg: c, timeout: DefaultTimeout}
			if c.TimeoutSecs > 0 {
				e.timeout = time.Duration(c.TimeoutSecs) * time.Second
			}
			if m := strings.TrimSpace(c.Matcher); m != "" && m != "*" {
				re, err := regexp.Compile("(?i)^(?:" + m + ")$")
				if err != nil {
					return nil, fmt.Errorf("hooks.%s[%d]: matcher %q: %v", ev, i, c.Matcher, err)
				}
				e.matcher = re
			}
			if !trusted {
				h.disabled++
				continue
			}
			h.byEvent[ev] = append(h.byEvent[ev], e)
		}
	}
	return h, nil
}

// Disabled is how many hooks were left out because the folder is untrusted.
func (h *Hooks) Disabled() int { return h.disabled }

// Has reports whether any hook would run for the event and tool.
func (h *Hooks) Has(ev Event, tool string) bool {
	for _, e := range h.byEvent[ev] {
		if e.matches(ev, tool) {
			return true
		}
	}
	return false
}

func (e entry) matches(ev Event, tool string) bool {
	if e.matcher == nil || (ev != PreToolUse && ev != PostToolUse) {
		return true
	}
	return e.matcher.MatchString(tool)
}

// Run runs the event's hooks one after another and combines their
// answers: the first Block wins; Ask beats Allow; a rewritten tool input
// is what the next hook sees. Failing hooks do not block; they come back
// joined in the error while the decision stands.
func (h *Hooks) Run(ctx context.Context, ev Event, p Payload) (Decision, error) {
	if _, ok := ccNames[ev]; !ok {
		return Decision{}, fmt.Errorf("hook: unknown event %q", ev)
	}
	if ev == UserPrompt {
		h.stopSends = 0
	}
	p.Event, p.HookEventName = ev, ccNames[ev]
	var dec Decision
	var errs []error
	var contexts []string
	for _, e := range h.byEvent[ev] {
		if !e.matches(ev, p.ToolName) {
			continue
		}
		d, err := h.runOne(ctx, e, p)
		if err != nil {
			errs = append(errs, err)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if d.Context != "" {
			contexts = append(contexts, d.Context)
		}
		if d.ToolInput != nil {
			dec.ToolInput, p.ToolInput = d.ToolInput, d.ToolInput
		}
		if rank(d.Action) > rank(dec.Action) {
			dec.Action, dec.Reason, dec.Hook = d.Action, d.Reason, d.Hook
		}
		if d.Action == Block {
			break
		}
	}
	dec.Context = strings.Join(contexts, "\n")
	if ev == Stop {
		dec = h.capStop(dec)
	}
	return dec, errors.Join(errs...)
}

func rank(a Action) int {
	switch a {
	case Block:
		return 3
	case Ask:
		return 2
	case Allow:
		return 1
	}
	return 0
}

// capStop counts consecutive send-backs and turns the one past the cap
// into a distinct "cap reached" outcome.
func (h *Hooks) capStop(d Decision) Decision {
	if d.Action != Block {
		h.stopSends = 0
		return d
	}
	h.stopSends++
	if h.MaxStopSends > 0 && h.stopSends > h.MaxStopSends {
		h.stopSends = 0
		return Decision{StopCapReached: true, Hook: d.Hook,
			Reason: fmt.Sprintf("stop hook sent the answer back %d times in a row; stopping anyway (last reason: %s)", h.MaxStopSends, d.Reason)}
	}
	return d
}

// runOne runs one hook and reads its answer.
func (h *Hooks) runOne(ctx context.Context, e entry, p Payload) (Decision, error) {
	in, err := json.Marshal(p)
	if err != nil {
		return Decision{}, &Error{Hook: e.cfg.Command, Reason: "encode payload: " + err.Error()}
	}
	var stdout, stderr bytes.Buffer
	res, err := h.runner.Run(ctx, run.Spec{
		Shell:   e.cfg.Command,
		Dir:     p.Cwd,
		Stdin:   bytes.NewReader(in),
		Env:     []string{"CHANTO_PROJECT_DIR=" + p.Cwd, "CLAUDE_PROJECT_DIR=" + p.Cwd, "CHANTO_HOOK_EVENT=" + string(p.Event)},
		Timeout: e.timeout,
		Purpose: run.Hook,
		Stdout:  &limitWriter{buf: &stdout, max: 1 << 20},
		Stderr:  &limitWriter{buf: &stderr, max: 64 << 10},
	})
	if err != nil {
		return Decision{}, &Error{Hook: e.cfg.Command, Reason: err.Error()}
	}
	if res.TimedOut {
		return Decision{}, &Error{Hook: e.cfg.Command, Reason: fmt.Sprintf("timed out after %s", e.timeout)}
	}
	switch res.ExitCode {
	case 0:
		d, err := parseAnswer(stdout.Bytes())
		if err != nil {
			return Decision{}, &Error{Hook: e.cfg.Command, Reason: err.Error()}
		}
		d.Hook = e.cfg.Command
		return d, nil
	case 2:
		reason := strings.TrimSpace(stderr.String())
		if reason == "" {
			reason = "blocked by hook " + e.cfg.Command
		}
		return Decision{Action: Block, Reason: reason, Hook: e.cfg.Command}, nil
	}
	return Decision{}, &Error{Hook: e.cfg.Command, Reason: fmt.Sprintf("exit status %d: %s", res.ExitCode, firstLine(stderr.String()))}
}

// limitWriter keeps the first max bytes and drops the rest.
type limitWriter struct {
	buf *bytes.Buffer
	max int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
