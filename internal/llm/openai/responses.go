package openai

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/chanto-dev/chanto/internal/llm"
)

// streamResponses runs one Responses API call. Nothing is stored server
// side (store=false): the whole conversation is sent each time, as with
// the other wires.
func (c *Client) streamResponses(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	params, err := responsesParams(req)
	if err != nil {
		return llm.Response{}, err
	}
	sctx, watch := llm.Watch(ctx, c.opts.IdleTimeout)
	defer watch.Stop()
	stream := c.sdk.Responses.NewStreaming(sctx, params)
	defer stream.Close()
	acc := respAccumulator{onDelta: onDelta, calls: map[int64]*respCall{}}
	for stream.Next() {
		watch.Touch()
		if err := acc.add(c.opts.Name, stream.Current()); err != nil {
			return llm.Response{}, err
		}
	}
	err = stream.Err()
	if watch.Stalled() {
		return llm.Response{}, watch.Error(c.opts.Name)
	}
	if err != nil {
		return llm.Response{}, c.classify(ctx, err)
	}
	if !acc.done {
		if ctx.Err() != nil {
			return llm.Response{}, ctx.Err()
		}
		return llm.Response{}, llm.TransportError(c.opts.Name, llm.ErrStreamDropped)
	}
	return acc.response(), nil
}

func responsesParams(req llm.Request) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{
		Model: shared.ResponsesModel(req.Model),
		Store: param.NewOpt(false),
	}
	if req.System != "" {
		p.Instructions = param.NewOpt(req.System)
	}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(req.MaxTokens))
	}
	var items responses.ResponseInputParam
	for _, m := range req.Messages {
		items = append(items, inputItems(m)...)
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	for _, t := range req.Tools {
		schema, err := schemaMap(t)
		if err != nil {
			return p, err
		}
		tool := responses.ToolParamOfFunction(t.Name, schema, false)
		if t.Description != "" {
			tool.OfFunction.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, tool)
	}
	return p, nil
}

// inputItems maps one message to input items: text as a message, each
// tool call as a function_call, each result as a function_call_output.
func inputItems(m llm.Message) []responses.ResponseInputItemUnionParam {
	var out []responses.ResponseInputItemUnionParam
	role := responses.EasyInputMessageRoleUser
	if m.Role == llm.Assistant {
		role = responses.EasyInputMessageRoleAssistant
	}
	if text := m.TextOf(); text != "" {
		out = append(out, responses.ResponseInputItemParamOfMessage(text, role))
	}
	for _, p := range m.Parts {
		switch p.Type {
		case llm.ToolUse:
			out = append(out, responses.ResponseInputItemParamOfFunctionCall(argsText(p), p.ID, p.Name))
		case llm.ToolResult:
			content := p.Text
			if p.IsError && !strings.HasPrefix(content, "error") {
				content = "error: " + content
			}
			item := responses.ResponseInputItemParamOfFunctionCallOutput(content)
			item.OfFunctionCallOutput.CallID = param.NewOpt(p.ID)
			out = append(out, item)
		}
	}
	return out
}

// respCall is a function call assembled from its output item and deltas.
type respCall struct {
	id, name string
	args     strings.Builder
	final    string // arguments from the .done event, authoritative
	hasFinal bool
}

type respAccumulator struct {
	onDelta    func(llm.Delta)
	text       strings.Builder
	calls      map[int64]*respCall
	done       bool
	incomplete string
	usage      llm.Usage
}

// add folds one event in; an error event or a failed response ends the
// call with a classified error.
func (a *respAccumulator) add(provider string, ev responses.ResponseStreamEventUnion) error {
	switch ev.Type {
	case "response.output_text.delta":
		a.text.WriteString(ev.Delta)
		a.onDelta(llm.Delta{Text: ev.Delta})
	case "response.output_item.added":
		if ev.Item.Type == "function_call" {
			a.calls[ev.OutputIndex] = &respCall{id: ev.Item.CallID, name: ev.Item.Name}
		}
	case "response.function_call_arguments.delta":
		if call := a.calls[ev.OutputIndex]; call != nil {
			call.args.WriteString(ev.Delta)
		}
	case "response.function_call_arguments.done":
		if call := a.calls[ev.OutputIndex]; call != nil {
			call.final, call.hasFinal = ev.Arguments, true
		}
	case "response.completed", "response.incomplete":
		a.done = true
		a.incomplete = ev.Response.IncompleteDetails.Reason
		u := ev.Response.Usage
		cached := u.InputTokensDetails.CachedTokens
		a.usage = llm.Usage{InputTokens: u.InputTokens - cached, OutputTokens: u.OutputTokens, CacheReadTokens: cached}
	case "response.failed":
		e := ev.Response.Error
		return &llm.APIError{Provider: provider, Kind: string(e.Code), Message: e.Message,
			Retryable: e.Code == "server_error" || e.Code == "rate_limit_exceeded"}
	case "error":
		return &llm.APIError{Provider: provider, Kind: ev.Code, Message: ev.Message,
			Retryable: retryableKind("", ev.Code)}
	}
	return nil
}

func (a *respAccumulator) response() llm.Response {
	var calls []llm.Part
	for _, i := range slices.Sorted(maps.Keys(a.calls)) {
		call := a.calls[i]
		args := call.args.String()
		if call.hasFinal {
			args = call.final
		}
		calls = append(calls, toolCall(call.id, call.name, args))
	}
	return assistantResponse(a.text.String(), calls, a.incomplete == "max_output_tokens", a.usage)
}
