package scripted

import (
	"fmt"
	"strings"

	"github.com/chanto-dev/chanto/internal/llm"
)

// checkExpectations runs the block's expect lines against req.
func (m *Model) checkExpectations(r response, req llm.Request) error {
	last := lastMessageText(req)
	var all string // built on first use
	for _, st := range r.steps {
		var ok bool
		var seen, what string
		switch st.kind {
		case stepExpect:
			ok, seen, what = strings.Contains(last, st.arg), last, "last message"
		case stepExpectNot:
			ok, seen, what = !strings.Contains(last, st.arg), last, "last message"
		case stepExpectAny:
			if all == "" {
				all = conversationText(req)
			}
			ok, seen, what = strings.Contains(all, st.arg), all, "conversation"
		default:
			continue
		}
		if !ok {
			verb := "not found in"
			if st.kind == stepExpectNot {
				verb = "found in"
			}
			return fmt.Errorf("scripted model: %s:%d: %q %s the %s; received: %s",
				m.script.Path, st.line, st.arg, verb, what, excerpt(seen, st.arg))
		}
	}
	return nil
}

// lastMessageText is the text of the request's last message: its text
// parts and tool results, one per line.
func lastMessageText(req llm.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	return messageText(req.Messages[len(req.Messages)-1])
}

func messageText(m llm.Message) string {
	var parts []string
	for _, p := range m.Parts {
		switch p.Type {
		case llm.Text, llm.ToolResult:
			parts = append(parts, p.Text)
		case llm.ToolUse:
			parts = append(parts, p.Name+" "+string(p.Input))
		}
	}
	return strings.Join(parts, "\n")
}

// conversationText is the system prompt, every message and the tools'
// names and descriptions.
func conversationText(req llm.Request) string {
	parts := []string{req.System}
	for _, m := range req.Messages {
		parts = append(parts, messageText(m))
	}
	for _, t := range req.Tools {
		parts = append(parts, t.Name, t.Description)
	}
	return strings.Join(parts, "\n")
}

// excerpt quotes s, trimmed to a readable length: for a missing substring
// the tail (the newest part), for an unwanted one the text around it.
func excerpt(s, sub string) string {
	const limit = 400
	if len(s) <= limit {
		return fmt.Sprintf("%q", s)
	}
	if i := strings.Index(s, sub); i >= 0 {
		from := max(0, i-limit/2)
		to := min(len(s), from+limit)
		return fmt.Sprintf("…%q…", s[from:to])
	}
	return fmt.Sprintf("…%q", s[len(s)-limit:])
}
