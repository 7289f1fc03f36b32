package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/chanto-dev/chanto/internal/llm"
)

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// buildParams maps a neutral request to the Messages API. Two cache
// breakpoints are set: one on the system prompt (which caches the tools
// too, as they come first in the prompt) and one on the last block of the
// conversation, so each call reads the previous call's prefix from cache.
func buildParams(req llm.Request) (sdk.MessageNewParams, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = defaultMaxTokens(req.Model)
	}
	p := sdk.MessageNewParams{
		Model:     sdk.Model(req.Model),
		MaxTokens: int64(maxTokens),
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System, CacheControl: sdk.NewCacheControlEphemeralParam()}}
	}
	for _, t := range req.Tools {
		tp, err := toolParam(t)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &tp})
	}
	for _, m := range req.Messages {
		p.Messages = append(p.Messages, messageParam(m))
	}
	if n := len(p.Messages); n > 0 {
		blocks := contentOf(p.Messages[n-1])
		if len(blocks) > 0 {
			if cc := blocks[len(blocks)-1].GetCacheControl(); cc != nil {
				*cc = sdk.NewCacheControlEphemeralParam()
			}
		}
	}
	return p, nil
}

func contentOf(m sdk.MessageParam) []sdk.ContentBlockParamUnion {
	switch {
	case m.OfUser != nil:
		return m.OfUser.Content
	case m.OfAssistant != nil:
		return m.OfAssistant.Content
	}
	return nil
}

// toolParam converts a tool's JSON schema to the SDK's shape: properties
// and required are typed fields, everything else rides in ExtraFields.
func toolParam(t llm.ToolSpec) (sdk.ToolParam, error) {
	tp := sdk.ToolParam{Name: t.Name}
	if t.Description != "" {
		tp.Description = sdk.String(t.Description)
	}
	if len(t.Schema) == 0 {
		return tp, nil
	}
	var schema map[string]json.RawMessage
	if err := json.Unmarshal(t.Schema, &schema); err != nil {
		return tp, fmt.Errorf("tool %q: input schema is not a JSON object: %w", t.Name, err)
	}
	for k, v := range schema {
		switch k {
		case "type":
		case "properties":
			tp.InputSchema.Properties = v
		case "required":
			if err := json.Unmarshal(v, &tp.InputSchema.Required); err != nil {
				return tp, fmt.Errorf("tool %q: schema required: %w", t.Name, err)
			}
		default:
			if tp.InputSchema.ExtraFields == nil {
				tp.InputSchema.ExtraFields = map[string]any{}
			}
			tp.InputSchema.ExtraFields[k] = v
		}
	}
	return tp, nil
}

// messageParam converts one message. Empty text blocks are dropped (the
// API rejects them); a message left empty gets a placeholder so the
// user/assistant alternation stays intact.
func messageParam(m llm.Message) sdk.MessageParam {
	var blocks []sdk.ContentBlockParamUnion
	for _, part := range m.Parts {
		switch part.Type {
		case llm.Text:
			if part.Text != "" {
				blocks = append(blocks, sdk.NewTextBlock(part.Text))
			}
		case llm.ToolUse:
			input := part.Input
			if len(input) == 0 || !json.Valid(input) {
				input = json.RawMessage(`{}`)
			}
			blocks = append(blocks, sdk.NewToolUseBlock(part.ID, input, part.Name))
		case llm.ToolResult:
			blocks = append(blocks, toolResult(part))
		}
	}
	if len(blocks) == 0 {
		blocks = append(blocks, sdk.NewTextBlock("(empty)"))
	}
	if m.Role == llm.Assistant {
		return sdk.NewAssistantMessage(blocks...)
	}
	return sdk.NewUserMessage(blocks...)
}

func toolResult(part llm.Part) sdk.ContentBlockParamUnion {
	tr := sdk.ToolResultBlockParam{ToolUseID: part.ID}
	if part.IsError {
		tr.IsError = sdk.Bool(true)
	}
	if part.Text != "" {
		tr.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: part.Text}}}
	}
	return sdk.ContentBlockParamUnion{OfToolResult: &tr}
}

// defaultMaxTokens is the output budget for a model when the request names
// none: older models reject more than they can produce.
func defaultMaxTokens(model string) int {
	switch {
	case strings.HasPrefix(model, "claude-3-5"):
		return 8192
	case strings.HasPrefix(model, "claude-3-haiku"), strings.HasPrefix(model, "claude-3-opus"),
		strings.HasPrefix(model, "claude-3-sonnet"):
		return 4096
	}
	return DefaultMaxTokens
}
