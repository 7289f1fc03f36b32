package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chanto-dev/chanto/internal/policy"
	"github.com/chanto-dev/chanto/internal/safetext"
	"github.com/chanto-dev/chanto/internal/tool"
)

// ResultCap bounds the text of one tool result handed to the model; the
// rest is cut with a note saying how much.
const ResultCap = 64 << 10

// maxName is the longest tool name every provider takes.
const maxName = 64

// Tool is one tool of an MCP server, as the model sees it.
type Tool struct {
	s        *server
	name     string // mcp__SERVER__TOOL
	remote   string // the server's own name for it
	desc     string
	schema   json.RawMessage
	readOnly bool
}

var _ tool.Tool = (*Tool)(nil)

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// ToolName is the name the model calls a server's tool by:
// mcp__SERVER__TOOL, characters providers refuse replaced by "_", cut to
// 64 characters.
func ToolName(serverName, toolName string) string {
	n := policy.MCPPrefix + unsafeName.ReplaceAllString(serverName, "_") + "__" + unsafeName.ReplaceAllString(toolName, "_")
	if len(n) > maxName {
		n = n[:maxName]
	}
	return n
}

func newTool(s *server, t *sdk.Tool) *Tool {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil || !isObjectSchema(schema) {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	desc = safetext.Clean(desc)
	if desc == "" {
		desc = "Tool " + t.Name + " of the MCP server " + s.spec.Name + "."
	}
	return &Tool{s: s, name: ToolName(s.spec.Name, t.Name), remote: t.Name, desc: desc, schema: schema,
		readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint}
}

func isObjectSchema(b []byte) bool {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	typ, _ := m["type"].(string)
	return typ == "object"
}

// Name implements tool.Tool.
func (t *Tool) Name() string { return t.name }

// Description implements tool.Tool.
func (t *Tool) Description() string { return t.desc }

// Schema implements tool.Tool.
func (t *Tool) Schema() json.RawMessage { return t.schema }

// ReadOnly is the server's readOnlyHint: such calls may run in parallel.
func (t *Tool) ReadOnly() bool { return t.readOnly }

// Server is the name of the server the tool belongs to.
func (t *Tool) Server() string { return t.s.spec.Name }

// Run calls the tool on its server. Whatever goes wrong on the server's
// side — it is not running, it crashed, timed out, answered with an
// error or with something malformed — is an error result the model
// reads; only an interrupt is returned as an error.
func (t *Tool) Run(ctx context.Context, _ *tool.Env, input json.RawMessage) (tool.Result, error) {
	s := t.s
	cs, proc, state, why := s.await(ctx)
	if ctx.Err() != nil {
		return tool.Result{}, ctx.Err()
	}
	if state != StateReady || cs == nil {
		msg := fmt.Sprintf("MCP server %q is not running", s.spec.Name)
		if state == StateStarting {
			msg = fmt.Sprintf("MCP server %q is still restarting after a crash; send the call again in a moment", s.spec.Name)
		} else if why != "" {
			msg += ": " + why
		}
		return tool.Result{Output: msg, IsError: true}, nil
	}
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	callCtx, cancel := context.WithTimeout(ctx, s.spec.ToolTimeout)
	defer cancel()
	start := time.Now()
	res, err := cs.CallTool(callCtx, &sdk.CallToolParams{Name: t.remote, Arguments: input})
	d := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{Duration: d}, ctx.Err()
		}
		return tool.Result{Output: t.callError(callCtx, proc, err), IsError: true, Duration: d}, nil
	}
	out := resultText(res)
	return tool.Result{Output: out, IsError: res.IsError, Duration: d}, nil
}

// callError words a failed call.
func (t *Tool) callError(ctx context.Context, proc interface {
	Done() <-chan struct{}
}, err error) string {
	name := t.s.spec.Name
	if proc != nil {
		select {
		case <-proc.Done():
			return fmt.Sprintf("MCP server %q exited while %s ran; it is restarted once, so the call may be sent again", name, t.name)
		case <-time.After(300 * time.Millisecond):
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("%s timed out after %s (tool_timeout_sec of MCP server %q)", t.name, t.s.spec.ToolTimeout, name)
	}
	return fmt.Sprintf("MCP server %q: %s: %s", name, t.name, oneLine(err.Error()))
}

// resultText turns a result's content into the text the model reads:
// text as it is, images and audio as a note (chanto's tool results are
// text), resources by their text or a note, and the structured content
// as JSON when no text carries it. It is capped at ResultCap.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	hasText := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
			hasText = hasText || strings.TrimSpace(c.Text) != ""
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes: not shown, tool results reach the model as text]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes: not shown]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s: %s]", c.Name, c.URI))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(c))
		}
	}
	if res.StructuredContent != nil && !hasText {
		if b, err := json.MarshalIndent(res.StructuredContent, "", "  "); err == nil {
			parts = append(parts, string(b))
		}
	}
	out := strings.Join(parts, "\n")
	if out == "" {
		out = "(no output)"
	}
	return capText(out)
}

func embedded(c *sdk.EmbeddedResource) string {
	r := c.Resource
	if r == nil {
		return "[resource]"
	}
	if r.Text != "" {
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource %s %s, %d bytes: not shown]", r.URI, r.MIMEType, len(r.Blob))
}

// capText keeps the head of s within ResultCap and says what was cut.
func capText(s string) string {
	if len(s) <= ResultCap {
		return s
	}
	head := safetext.Head(s, ResultCap)
	return head + fmt.Sprintf("\n[MCP result cut: %d of %d bytes shown]", len(head), len(s))
}
