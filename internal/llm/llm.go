// Package llm defines the provider-neutral conversation types and the
// Provider interface every model backend implements (Anthropic, OpenAI chat
// and responses, OpenAI-compatible servers, the scripted model), plus the
// retry policy they share.
package llm

import (
	"context"
	"encoding/json"
)

// Role of a message author.
type Role string

const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// PartType tags a content part.
type PartType string

const (
	Text       PartType = "text"
	ToolUse    PartType = "tool_use"
	ToolResult PartType = "tool_result"
)

// Part is one piece of a message.
type Part struct {
	Type PartType `json:"type"`
	// Text is set for Text parts and is the content of a ToolResult.
	Text string `json:"text,omitempty"`
	// ID identifies a ToolUse; a ToolResult carries the ID it answers.
	ID string `json:"id,omitempty"`
	// Name is the tool name of a ToolUse.
	Name string `json:"name,omitempty"`
	// Input is the JSON arguments of a ToolUse. A provider that received
	// arguments that are not a valid JSON object leaves Input as {} and
	// sets InputError (see ParseToolInput), so the agent can tell the
	// model instead of crashing.
	Input      json.RawMessage `json:"input,omitempty"`
	InputError string          `json:"input_error,omitempty"`
	// IsError marks a ToolResult that reports a failure.
	IsError bool `json:"is_error,omitempty"`
}

// Message is one conversation entry.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
}

// TextOf concatenates the message's text parts.
func (m Message) TextOf() string {
	var s string
	for _, p := range m.Parts {
		if p.Type == Text {
			s += p.Text
		}
	}
	return s
}

// ToolCalls returns the message's tool-use parts.
func (m Message) ToolCalls() []Part {
	var calls []Part
	for _, p := range m.Parts {
		if p.Type == ToolUse {
			calls = append(calls, p)
		}
	}
	return calls
}

// ToolSpec is a tool as offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"input_schema"`
}

// Request is one model call.
type Request struct {
	Model     string     `json:"model"`
	System    string     `json:"system"`
	Messages  []Message  `json:"messages"`
	Tools     []ToolSpec `json:"tools,omitempty"`
	MaxTokens int        `json:"max_tokens,omitempty"`
}

// StopReason says why the model stopped.
type StopReason string

const (
	StopEnd       StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
)

// Usage counts the tokens of one call.
type Usage struct {
	InputTokens       int64 `json:"input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	CacheReadTokens   int64 `json:"cache_read_tokens,omitempty"`
	CacheCreateTokens int64 `json:"cache_creation_tokens,omitempty"`
}

// Response is a finished model call.
type Response struct {
	Message    Message    `json:"message"`
	StopReason StopReason `json:"stop_reason"`
	Usage      Usage      `json:"usage"`
}

// Delta is a streamed fragment; only text is streamed to the user.
type Delta struct {
	Text string
}

// Provider is a model backend.
type Provider interface {
	// Name is the provider name as written in --model (anthropic, openai, scripted, or a configured name).
	Name() string
	// Stream sends req and calls onDelta for text as it arrives. It
	// returns the whole response when the stream ends. Errors are
	// classified by the provider (see APIError) so Retry can decide.
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error)
	// ContextWindow is the model's context size in tokens (0 if unknown).
	ContextWindow(model string) int
}
