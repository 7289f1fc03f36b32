package openai

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/chanto-dev/chanto/internal/llm"
)

// streamChat runs one Chat Completions call.
func (c *Client) streamChat(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	params, err := c.chatParams(req)
	if err != nil {
		return llm.Response{}, err
	}
	sctx, watch := llm.Watch(ctx, c.opts.IdleTimeout)
	defer watch.Stop()
	stream := c.sdk.Chat.Completions.NewStreaming(sctx, params)
	defer stream.Close()
	acc := chatAccumulator{onDelta: onDelta, calls: map[int64]*chatCall{}}
	for stream.Next() {
		watch.Touch()
		acc.add(stream.Current())
	}
	err = stream.Err()
	if watch.Stalled() {
		return llm.Response{}, watch.Error(c.opts.Name)
	}
	if err != nil {
		return llm.Response{}, c.classify(ctx, err)
	}
	if acc.finish == "" {
		if ctx.Err() != nil {
			return llm.Response{}, ctx.Err()
		}
		return llm.Response{}, llm.TransportError(c.opts.Name, llm.ErrStreamDropped)
	}
	return acc.response(), nil
}

func (c *Client) chatParams(req llm.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
	if req.MaxTokens > 0 {
		if c.custom {
			p.MaxTokens = sdk.Int(int64(req.MaxTokens))
		} else {
			p.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
		}
	}
	if req.System != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		p.Messages = append(p.Messages, chatMessages(m)...)
	}
	for _, t := range req.Tools {
		schema, err := schemaMap(t)
		if err != nil {
			return p, err
		}
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			fd.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(fd))
	}
	return p, nil
}

// chatMessages maps one neutral message to chat messages: tool results
// become separate "tool" messages, as the API wants one per call.
func chatMessages(m llm.Message) []sdk.ChatCompletionMessageParamUnion {
	var out []sdk.ChatCompletionMessageParamUnion
	if m.Role == llm.Assistant {
		var a sdk.ChatCompletionAssistantMessageParam
		if text := m.TextOf(); text != "" {
			a.Content.OfString = sdk.String(text)
		}
		for _, p := range m.ToolCalls() {
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       p.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: p.Name, Arguments: argsText(p)},
				}})
		}
		return append(out, sdk.ChatCompletionMessageParamUnion{OfAssistant: &a})
	}
	var text []string
	for _, p := range m.Parts {
		switch p.Type {
		case llm.ToolResult:
			content := p.Text
			if p.IsError && !strings.HasPrefix(content, "error") {
				content = "error: " + content
			}
			out = append(out, sdk.ToolMessage(content, p.ID))
		case llm.Text:
			if p.Text != "" {
				text = append(text, p.Text)
			}
		}
	}
	if len(text) > 0 {
		out = append(out, sdk.UserMessage(strings.Join(text, "\n")))
	}
	return out
}

// chatCall is a tool call assembled from deltas that share an index.
type chatCall struct {
	id, name string
	args     strings.Builder
}

type chatAccumulator struct {
	onDelta func(llm.Delta)
	text    strings.Builder
	calls   map[int64]*chatCall
	finish  string
	usage   llm.Usage
}

func (a *chatAccumulator) add(ch sdk.ChatCompletionChunk) {
	if ch.JSON.Usage.Valid() && (ch.Usage.PromptTokens > 0 || ch.Usage.CompletionTokens > 0) {
		cached := ch.Usage.PromptTokensDetails.CachedTokens
		a.usage = llm.Usage{
			InputTokens:     ch.Usage.PromptTokens - cached,
			OutputTokens:    ch.Usage.CompletionTokens,
			CacheReadTokens: cached,
		}
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue
		}
		if d := choice.Delta.Content; d != "" {
			a.text.WriteString(d)
			a.onDelta(llm.Delta{Text: d})
		}
		for _, tc := range choice.Delta.ToolCalls {
			call := a.calls[tc.Index]
			if call == nil {
				call = &chatCall{}
				a.calls[tc.Index] = call
			}
			if tc.ID != "" {
				call.id = tc.ID
			}
			if tc.Function.Name != "" {
				call.name = tc.Function.Name
			}
			call.args.WriteString(tc.Function.Arguments)
		}
		if choice.FinishReason != "" {
			a.finish = choice.FinishReason
		}
	}
}

func (a *chatAccumulator) response() llm.Response {
	var calls []llm.Part
	for n, i := range slices.Sorted(maps.Keys(a.calls)) {
		call := a.calls[i]
		if call.id == "" { // some local servers omit ids
			call.id = "call_" + strconv.Itoa(n+1)
		}
		calls = append(calls, toolCall(call.id, call.name, call.args.String()))
	}
	return assistantResponse(a.text.String(), calls, a.finish == "length", a.usage)
}
