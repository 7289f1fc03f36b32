package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/tool"
)

// dispatch runs the calls of one model reply and returns their results in
// call order. Consecutive read-only calls run in parallel; any other call
// runs alone, so a read after a write sees the write.
func (a *Agent) dispatch(ctx context.Context, st *TurnState, calls []llm.Part) []llm.Part {
	results := make([]llm.Part, len(calls))
	for i := 0; i < len(calls); {
		j := i + 1
		if a.readOnly(calls[i]) {
			for j < len(calls) && a.readOnly(calls[j]) {
				j++
			}
		}
		var wg sync.WaitGroup
		for k := i; k < j; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[k] = a.runCall(ctx, st, calls[k])
			}()
		}
		wg.Wait()
		i = j
	}
	return results
}

func (a *Agent) readOnly(call llm.Part) bool {
	t, ok := a.lookup(call.Name)
	return ok && call.InputError == "" && t.ReadOnly()
}

// runCall runs one call and turns every outcome — unknown tool, bad
// arguments, refusal, tool failure, interrupt — into a result the model reads.
func (a *Agent) runCall(ctx context.Context, st *TurnState, call llm.Part) llm.Part {
	a.emit(event.Event{Type: event.ToolStarted, Tool: &event.Tool{ID: call.ID, Name: call.Name, Input: validJSON(call.Input)}})
	start := time.Now()
	res, input := a.execute(ctx, call)
	if input != nil {
		call.Input = input // as a pre_tool_use hook rewrote it
	}
	if ctx.Err() == nil {
		if note := a.opts.Policy.AfterTool(ctx, st, call, res); note != "" {
			res.Output = strings.TrimRight(res.Output, "\n") + "\n\n" + note
		}
	}
	a.emit(event.Event{Type: event.ToolCompleted, Tool: &event.Tool{
		ID: call.ID, Name: call.Name, Output: res.Output, IsError: res.IsError,
		DurationMS: time.Since(start).Milliseconds(), Diagnostics: res.Diagnostics,
	}})
	return llm.Part{Type: llm.ToolResult, ID: call.ID, Text: res.Output, IsError: res.IsError}
}

// execute approves and runs one call; input is the input it ran with
// when a pre_tool_use hook rewrote it, else nil.
func (a *Agent) execute(ctx context.Context, call llm.Part) (res tool.Result, input json.RawMessage) {
	t, ok := a.lookup(call.Name)
	if !ok {
		return errResult("unknown tool %q; available: %s", call.Name, strings.Join(a.toolNames(), ", ")), nil
	}
	if call.InputError != "" {
		return errResult("%s; nothing ran. Send the call again with one JSON object matching the %s tool's schema", call.InputError, call.Name), nil
	}
	in := call.Input
	if len(in) == 0 {
		in = json.RawMessage("{}")
	}
	if a.opts.Permissions != nil {
		p := a.opts.Permissions.Permit(ctx, t, in)
		if !p.Allowed {
			return tool.Result{Output: p.Reason(), IsError: true}, nil
		}
		if p.Input != nil {
			in, input = p.Input, p.Input
		}
	}
	if ctx.Err() != nil {
		return errResult("interrupted before %s ran", call.Name), input
	}
	var err error
	if n, ok := t.(nestedTool); ok {
		// The task tool starts a subagent from this agent's settings.
		res, err = n.runNested(ctx, a, call.ID, in)
	} else {
		res, err = t.Run(ctx, a.opts.Env, in)
	}
	switch {
	case ctx.Err() != nil:
		out := strings.TrimRight(res.Output, "\n")
		if out != "" {
			out += "\n"
		}
		return tool.Result{Output: out + "[interrupted by the user]", IsError: true}, input
	case err != nil:
		return errResult("%s could not run: %v", call.Name, err), input
	}
	return res, input
}

func (a *Agent) toolNames() []string {
	all := a.allTools()
	names := make([]string, 0, len(all))
	for _, t := range all {
		names = append(names, t.Name())
	}
	return names
}

func errResult(format string, args ...any) tool.Result {
	return tool.Result{Output: fmt.Sprintf(format, args...), IsError: true}
}

// validJSON keeps events parseable when the model sent broken arguments.
func validJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}
