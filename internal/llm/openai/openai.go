// Package openai is the OpenAI provider on the official Go SDK, in two
// wires: Chat Completions (also spoken by Ollama, vLLM, llama.cpp and other
// OpenAI-compatible servers) and the Responses API.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/chanto-dev/chanto/internal/llm"
)

// Wire selects the API a Client speaks.
type Wire string

const (
	Chat      Wire = "openai-chat"
	Responses Wire = "openai-responses"
)

// Options configures a Client.
type Options struct {
	// Name is the provider name used in errors (default "openai").
	Name string
	// Wire is Chat (default) or Responses.
	Wire Wire
	// APIKey is sent as a bearer token; empty sends none (local servers).
	APIKey string
	// KeyEnv names the variable the key came from, for the 401 hint
	// (default OPENAI_API_KEY).
	KeyEnv string
	// BaseURL overrides https://api.openai.com/v1/.
	BaseURL string
	// ContextWindow overrides the known window of every model.
	ContextWindow int
	// HTTPClient replaces the SDK's default client.
	HTTPClient *http.Client
	// IdleTimeout abandons a silent stream (see llm.Watch; 0 = default).
	IdleTimeout time.Duration
}

// Client talks to an OpenAI or OpenAI-compatible endpoint.
type Client struct {
	opts Options
	sdk  sdk.Client
	// custom is set for a base URL other than OpenAI's; such servers
	// often know max_tokens but not max_completion_tokens.
	custom bool
}

var _ llm.Provider = (*Client)(nil)

const defaultBaseURL = "https://api.openai.com/v1/"

// New returns a client. The ambient OPENAI_API_KEY, OPENAI_BASE_URL and
// OPENAI_ADMIN_KEY the SDK would read are overridden so only what chanto
// resolved is sent, and the SDK's retries are off so llm.WithRetry is the
// only policy.
func New(opts Options) *Client {
	if opts.Name == "" {
		opts.Name = "openai"
	}
	if opts.Wire == "" {
		opts.Wire = Chat
	}
	if opts.KeyEnv == "" {
		opts.KeyEnv = "OPENAI_API_KEY"
	}
	base := opts.BaseURL
	if base == "" {
		base = defaultBaseURL
	}
	custom := strings.TrimRight(base, "/") != strings.TrimRight(defaultBaseURL, "/")
	ro := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithAPIKey(opts.APIKey),
		option.WithAdminAPIKey(""),
		option.WithMaxRetries(0),
	}
	if custom {
		// OPENAI_ORG_ID and OPENAI_PROJECT_ID are for OpenAI, not for
		// whatever server the base URL names.
		ro = append(ro, option.WithHeaderDel("OpenAI-Organization"), option.WithHeaderDel("OpenAI-Project"))
	}
	if opts.HTTPClient != nil {
		ro = append(ro, option.WithHTTPClient(opts.HTTPClient))
	}
	return &Client{opts: opts, sdk: sdk.NewClient(ro...), custom: custom}
}

// Name implements llm.Provider.
func (c *Client) Name() string { return c.opts.Name }

// ContextWindow implements llm.Provider.
func (c *Client) ContextWindow(model string) int {
	if c.opts.ContextWindow > 0 {
		return c.opts.ContextWindow
	}
	return llm.KnownContextWindow(model)
}

// Stream implements llm.Provider.
func (c *Client) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	if onDelta == nil {
		onDelta = func(llm.Delta) {}
	}
	if c.opts.Wire == Responses {
		return c.streamResponses(ctx, req, onDelta)
	}
	return c.streamChat(ctx, req, onDelta)
}

// classify turns an SDK error into an llm.APIError.
func (c *Client) classify(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ae *sdk.Error
	if errors.As(err, &ae) {
		var h http.Header
		if ae.Response != nil {
			h = ae.Response.Header
		}
		kind := ae.Type
		if kind == "" {
			kind = ae.Code
		}
		return llm.HTTPError(c.opts.Name, ae.StatusCode, kind, ae.Message, h, "check "+c.opts.KeyEnv, err)
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return c.streamError(se)
	}
	return llm.TransportError(c.opts.Name, err)
}

// streamError classifies an {"error": …} payload sent inside a stream, as
// OpenAI-compatible servers do when generation fails midway.
func (c *Client) streamError(se *ssestream.StreamError) error {
	var body struct {
		Error struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		} `json:"error"`
	}
	e := &llm.APIError{Provider: c.opts.Name, Message: se.Message, Err: se, Retryable: true}
	if json.Unmarshal(se.Event.Data, &body) == nil && body.Error.Message != "" {
		e.Message, e.Kind = body.Error.Message, body.Error.Type
		code := strings.Trim(string(body.Error.Code), `"`)
		if e.Kind == "" {
			e.Kind = code
		}
		e.Retryable = retryableKind(e.Kind, code)
	}
	return e
}

// retryableKind decides on an error reported inside a stream, where no
// HTTP status says what happened.
func retryableKind(kind, code string) bool {
	switch kind {
	case "invalid_request_error", "invalid_prompt", "authentication_error", "permission_error",
		"context_length_exceeded", "content_filter":
		return false
	}
	switch code {
	case "400", "401", "403", "404", "context_length_exceeded", "invalid_prompt":
		return false
	}
	return true
}

// toolCall builds a ToolUse part from streamed arguments.
// assistantResponse assembles a finished reply from its text and its tool
// calls (in the order the model made them); maxed says the output limit cut it.
func assistantResponse(text string, calls []llm.Part, maxed bool, usage llm.Usage) llm.Response {
	msg := llm.Message{Role: llm.Assistant}
	if text != "" {
		msg.Parts = append(msg.Parts, llm.Part{Type: llm.Text, Text: text})
	}
	msg.Parts = append(msg.Parts, calls...)
	stop := llm.StopEnd
	switch {
	case maxed:
		stop = llm.StopMaxTokens
	case len(calls) > 0:
		stop = llm.StopToolUse
	}
	return llm.Response{Message: msg, StopReason: stop, Usage: usage}
}

func toolCall(id, name, args string) llm.Part {
	input, inErr := llm.ParseToolInput(name, args)
	return llm.Part{Type: llm.ToolUse, ID: id, Name: name, Input: input, InputError: inErr}
}

// schemaMap decodes a tool's JSON schema; no schema means an empty object.
func schemaMap(t llm.ToolSpec) (map[string]any, error) {
	m := map[string]any{}
	if len(t.Schema) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	if err := json.Unmarshal(t.Schema, &m); err != nil {
		return nil, errors.New("tool " + t.Name + ": input schema is not a JSON object: " + err.Error())
	}
	return m, nil
}

// argsText is a tool call's arguments as the API wants them echoed back;
// arguments that are not JSON (an old transcript may hold them) become {}.
func argsText(p llm.Part) string {
	if len(p.Input) == 0 || !json.Valid(p.Input) {
		return "{}"
	}
	return string(p.Input)
}
