// Package anthropic is the Claude provider: the Messages API with
// streaming, tool use and prompt caching, on the official Go SDK.
package anthropic

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/chanto-dev/chanto/internal/llm"
)

// DefaultMaxTokens is the output budget when a Request names none (less
// for Claude 3 models, which cannot produce that much).
const DefaultMaxTokens = 16384

// Options configures a Client.
type Options struct {
	// Name is the provider name used in errors (default "anthropic").
	Name string
	// APIKey is sent as x-api-key.
	APIKey string
	// KeyEnv names the variable the key came from, for the 401 hint
	// (default ANTHROPIC_API_KEY).
	KeyEnv string
	// BaseURL overrides https://api.anthropic.com (proxies, tests).
	BaseURL string
	// ContextWindow overrides the known window of every model.
	ContextWindow int
	// HTTPClient replaces the SDK's default client.
	HTTPClient *http.Client
	// IdleTimeout abandons a silent stream (see llm.Watch; 0 = default).
	IdleTimeout time.Duration
}

// Client talks to the Anthropic Messages API.
type Client struct {
	opts Options
	sdk  sdk.Client
}

var _ llm.Provider = (*Client)(nil)

// New returns a client. The SDK's own retries are off: llm.WithRetry is the
// only retry policy, so waits and attempt counts are ours to report.
func New(opts Options) *Client {
	if opts.Name == "" {
		opts.Name = "anthropic"
	}
	if opts.KeyEnv == "" {
		opts.KeyEnv = "ANTHROPIC_API_KEY"
	}
	ro := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(opts.APIKey),
		option.WithMaxRetries(0),
	}
	if opts.BaseURL != "" {
		ro = append(ro, option.WithBaseURL(opts.BaseURL))
	}
	if opts.HTTPClient != nil {
		ro = append(ro, option.WithHTTPClient(opts.HTTPClient))
	}
	return &Client{opts: opts, sdk: sdk.NewClient(ro...)}
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
	params, err := buildParams(req)
	if err != nil {
		return llm.Response{}, err
	}
	sctx, watch := llm.Watch(ctx, c.opts.IdleTimeout)
	defer watch.Stop()
	stream := c.sdk.Messages.NewStreaming(sctx, params)
	defer stream.Close()
	acc := newAccumulator(onDelta)
	for stream.Next() {
		watch.Touch()
		acc.add(stream.Current())
	}
	err = stream.Err()
	switch {
	case watch.Stalled():
		return llm.Response{}, watch.Error(c.opts.Name)
	case err != nil:
		return llm.Response{}, c.classify(ctx, err)
	case !acc.stopped:
		if ctx.Err() != nil {
			return llm.Response{}, ctx.Err()
		}
		return llm.Response{}, llm.TransportError(c.opts.Name, llm.ErrStreamDropped)
	}
	return acc.response(), nil
}

// classify turns an SDK error into an llm.APIError.
func (c *Client) classify(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	hint := "check " + c.opts.KeyEnv
	var ae *sdk.Error
	if errors.As(err, &ae) {
		status := ae.StatusCode
		if status == http.StatusOK { // an error event inside a 200 stream
			status = 0
		}
		var h http.Header
		if ae.Response != nil {
			h = ae.Response.Header
		}
		e := llm.HTTPError(c.opts.Name, status, string(ae.Type()), ae.Message, h, hint, err)
		if status == 0 {
			e.Retryable = streamErrorRetryable(e.Kind)
		}
		return e
	}
	if kind, msg, ok := parseStreamError(err.Error()); ok {
		return &llm.APIError{Provider: c.opts.Name, Kind: kind, Message: msg,
			Retryable: streamErrorRetryable(kind), Err: err}
	}
	return llm.TransportError(c.opts.Name, err)
}

// streamErrorRetryable says which error events sent mid-stream are worth
// another try.
func streamErrorRetryable(kind string) bool {
	switch kind {
	case "overloaded_error", "rate_limit_error", "api_error", "timeout_error":
		return true
	}
	return false
}

// parseStreamError reads the SDK's fallback text for an error event,
// "received error while streaming: {json}".
func parseStreamError(s string) (kind, msg string, ok bool) {
	const prefix = "received error while streaming: "
	body, found := strings.CutPrefix(s, prefix)
	if !found {
		return "", "", false
	}
	var ev struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if jsonUnmarshal(body, &ev) != nil {
		return "stream_error", body, true
	}
	return ev.Error.Type, ev.Error.Message, true
}
