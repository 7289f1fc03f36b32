package hookgate

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Agent names the agent whose hooks call chanto.
type Agent string

// The agents chanto answers.
const (
	Claude Agent = "claude" // Claude Code
	Codex  Agent = "codex"  // Codex CLI
	Gemini Agent = "gemini" // gemini-cli
)

// Agents lists them in the order the docs and usage name them.
var Agents = []Agent{Claude, Codex, Gemini}

// ParseAgent reads an agent's name as `chanto hook NAME` takes it.
func ParseAgent(s string) (Agent, error) {
	for _, a := range Agents {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown agent %q: want claude, codex or gemini", s)
}

// moment is what an event means to the gate.
type moment int

const (
	ignored      moment = iota
	sessionStart        // a fallback turn start
	turnStart           // a user prompt: the turn's snapshot
	afterTool           // a tool call finished
	stop                // the agent's final answer: the gate
	subagentStop        // a subagent finished: no gate
)

// payload holds the fields chanto reads from any of the three agents' hook
// input (snake_case in all of them). Unknown fields are ignored.
type payload struct {
	SessionID      string `json:"session_id"`
	TurnID         string `json:"turn_id"`   // Codex
	PromptID       string `json:"prompt_id"` // Claude Code
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
	StopHookActive bool   `json:"stop_hook_active"`
	// LastAssistantMessage (Claude Code, Codex) and PromptResponse
	// (gemini-cli) are the final answer.
	LastAssistantMessage string          `json:"last_assistant_message"`
	PromptResponse       string          `json:"prompt_response"`
	Prompt               string          `json:"prompt"`
	ToolName             string          `json:"tool_name"`
	ToolInput            json.RawMessage `json:"tool_input"`
	ToolResponse         json.RawMessage `json:"tool_response"`
	// Error is Claude Code's PostToolUseFailure message.
	Error json.RawMessage `json:"error"`
}

// parsePayload reads the hook input; an empty or non-object input is an
// error naming what was wrong.
func parsePayload(data []byte) (payload, error) {
	var p payload
	if len(strings.TrimSpace(string(data))) == 0 {
		return p, fmt.Errorf("no hook payload on stdin (the agent sends one JSON object)")
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("the hook payload on stdin is not a JSON object: %v", err)
	}
	if p.Event == "" {
		return p, fmt.Errorf("the hook payload has no hook_event_name")
	}
	return p, nil
}

// moment maps an agent's event name to what the gate does there.
func (a Agent) moment(event string) moment {
	switch a {
	case Gemini:
		switch event {
		case "SessionStart":
			return sessionStart
		case "BeforeAgent":
			return turnStart
		case "AfterTool":
			return afterTool
		case "AfterAgent":
			return stop
		}
	default:
		switch event {
		case "SessionStart":
			return sessionStart
		case "UserPromptSubmit":
			return turnStart
		case "PostToolUse", "PostToolUseFailure":
			return afterTool
		case "Stop":
			return stop
		case "SubagentStop":
			return subagentStop
		}
	}
	return ignored
}

// turnKey identifies the turn: Codex's turn_id, Claude Code's prompt_id;
// gemini-cli sends neither ("" means the session's latest turn).
func (p payload) turnKey() string {
	if p.TurnID != "" {
		return p.TurnID
	}
	return p.PromptID
}

// shellCommand is the command line of a shell tool call.
func (a Agent) shellCommand(p payload) (string, bool) {
	switch {
	case a == Gemini && p.ToolName == "run_shell_command",
		a != Gemini && p.ToolName == "Bash":
	default:
		return "", false
	}
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(p.ToolInput, &in) != nil || in.Command == "" {
		return "", false
	}
	return in.Command, true
}

// runOutcome says whether a shell call succeeded, and whether the payload
// tells at all. Claude Code sends PostToolUse only for a zero exit and
// PostToolUseFailure otherwise; Codex and gemini-cli send no exit status,
// so their runs never stand in for the gate (it runs the check itself).
func (a Agent) runOutcome(p payload) (passed, known bool, output string) {
	switch a {
	case Claude:
		if p.Event == "PostToolUseFailure" {
			var msg string
			json.Unmarshal(p.Error, &msg)
			return false, true, msg
		}
		var r struct {
			Stdout      string `json:"stdout"`
			Stderr      string `json:"stderr"`
			Interrupted bool   `json:"interrupted"`
		}
		json.Unmarshal(p.ToolResponse, &r)
		return !r.Interrupted, true, r.Stdout + r.Stderr
	case Gemini:
		var r struct {
			LLMContent json.RawMessage `json:"llmContent"`
			Error      json.RawMessage `json:"error"`
		}
		json.Unmarshal(p.ToolResponse, &r)
		failed := len(r.Error) > 0 && string(r.Error) != "null"
		return false, failed, string(r.LLMContent)
	}
	var out string
	if json.Unmarshal(p.ToolResponse, &out) != nil {
		out = string(p.ToolResponse)
	}
	return false, false, out
}

// answer is one hook reply: the JSON object for stdout.
type answer map[string]any

// block keeps the agent from stopping and hands reason to the model.
func (a Agent) block(reason string) answer {
	if a == Gemini {
		return answer{"decision": "deny", "reason": reason}
	}
	return answer{"decision": "block", "reason": reason}
}

// tell shows msg to the user and lets the agent go on.
func (a Agent) tell(msg string) answer { return answer{"systemMessage": msg} }

// toolNote adds text to what the model reads of a tool call's result.
func (a Agent) toolNote(event, text string) answer {
	switch {
	case a == Gemini:
		return answer{"hookSpecificOutput": map[string]any{"hookEventName": "AfterTool", "additionalContext": text}}
	case a == Codex, event == "PostToolUseFailure":
		return answer{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}}
	}
	// Claude Code's PostToolUse: a block decision is what puts the reason
	// in front of the model (the tool has already run; nothing is undone).
	return answer{"decision": "block", "reason": text}
}
