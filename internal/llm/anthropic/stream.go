package anthropic

import (
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/chanto-dev/chanto/internal/llm"
)

// block is one content block being streamed.
type block struct {
	kind  string // text | tool_use | other
	text  strings.Builder
	id    string
	name  string
	input strings.Builder // tool arguments as streamed, possibly cut
}

// accumulator folds stream events into a response. Tool arguments are
// collected as raw text and parsed once the stream ends, so malformed JSON
// becomes a Part.InputError rather than a failure.
type accumulator struct {
	onDelta func(llm.Delta)
	blocks  map[int64]*block
	order   []int64
	stop    string
	usage   llm.Usage
	stopped bool
}

func newAccumulator(onDelta func(llm.Delta)) *accumulator {
	if onDelta == nil {
		onDelta = func(llm.Delta) {}
	}
	return &accumulator{onDelta: onDelta, blocks: map[int64]*block{}}
}

func (a *accumulator) add(ev sdk.MessageStreamEventUnion) {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		a.usage = llm.Usage{
			InputTokens:       u.InputTokens,
			OutputTokens:      u.OutputTokens,
			CacheReadTokens:   u.CacheReadInputTokens,
			CacheCreateTokens: u.CacheCreationInputTokens,
		}
	case "content_block_start":
		b := &block{kind: "other"}
		switch cb := ev.ContentBlock; cb.Type {
		case "text":
			b.kind = "text"
			b.text.WriteString(cb.Text)
			if cb.Text != "" {
				a.onDelta(llm.Delta{Text: cb.Text})
			}
		case "tool_use":
			b.kind, b.id, b.name = "tool_use", cb.ID, cb.Name
		}
		if _, seen := a.blocks[ev.Index]; !seen {
			a.order = append(a.order, ev.Index)
		}
		a.blocks[ev.Index] = b
	case "content_block_delta":
		b := a.blocks[ev.Index]
		if b == nil {
			return
		}
		switch ev.Delta.Type {
		case "text_delta":
			b.text.WriteString(ev.Delta.Text)
			a.onDelta(llm.Delta{Text: ev.Delta.Text})
		case "input_json_delta":
			b.input.WriteString(ev.Delta.PartialJSON)
		}
	case "message_delta":
		a.stop = string(ev.Delta.StopReason)
		a.mergeUsage(ev.Usage)
	case "message_stop":
		a.stopped = true
	}
}

// mergeUsage applies message_delta's cumulative counts; fields the server
// left out keep their message_start values.
func (a *accumulator) mergeUsage(u sdk.MessageDeltaUsage) {
	if u.JSON.OutputTokens.Valid() {
		a.usage.OutputTokens = u.OutputTokens
	}
	if u.JSON.InputTokens.Valid() && u.InputTokens > 0 {
		a.usage.InputTokens = u.InputTokens
	}
	if u.JSON.CacheReadInputTokens.Valid() && u.CacheReadInputTokens > 0 {
		a.usage.CacheReadTokens = u.CacheReadInputTokens
	}
	if u.JSON.CacheCreationInputTokens.Valid() && u.CacheCreationInputTokens > 0 {
		a.usage.CacheCreateTokens = u.CacheCreationInputTokens
	}
}

func (a *accumulator) response() llm.Response {
	msg := llm.Message{Role: llm.Assistant}
	for _, i := range a.order {
		b := a.blocks[i]
		switch b.kind {
		case "text":
			if b.text.Len() > 0 {
				msg.Parts = append(msg.Parts, llm.Part{Type: llm.Text, Text: b.text.String()})
			}
		case "tool_use":
			input, inErr := llm.ParseToolInput(b.name, b.input.String())
			msg.Parts = append(msg.Parts, llm.Part{Type: llm.ToolUse, ID: b.id, Name: b.name, Input: input, InputError: inErr})
		}
	}
	return llm.Response{Message: msg, StopReason: stopReason(a.stop, len(msg.ToolCalls()) > 0), Usage: a.usage}
}

func stopReason(s string, hasCalls bool) llm.StopReason {
	switch s {
	case "tool_use":
		return llm.StopToolUse
	case "max_tokens", "model_context_window_exceeded":
		return llm.StopMaxTokens
	}
	if hasCalls {
		return llm.StopToolUse
	}
	return llm.StopEnd
}
