package tool

import (
	"context"
	_ "embed"
	"encoding/json"
)

//go:embed diagnostics.md
var diagnosticsDoc string

// Diagnostics shows what the language servers report for a file or the
// project.
type Diagnostics struct{}

var _ Tool = Diagnostics{}

type diagnosticsInput struct {
	Path string `json:"path,omitempty"`
}

func (Diagnostics) Name() string        { return "diagnostics" }
func (Diagnostics) Description() string { return diagnosticsDoc }
func (Diagnostics) ReadOnly() bool      { return true }
func (Diagnostics) Schema() json.RawMessage {
	return schema(`{
"path":{"type":"string","description":"A file, relative to the project root or absolute; omit it for the whole project."}}`)
}

// Run asks the session's language servers.
func (Diagnostics) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	var in diagnosticsInput
	if r := decode("diagnostics", input, &in); r != nil {
		return *r, nil
	}
	if env.Checker == nil {
		return Result{Output: "no language servers in this session"}, nil
	}
	abs := ""
	if in.Path != "" {
		abs = env.resolve(in.Path)
	}
	return Result{Output: env.Checker.Diagnostics(ctx, abs)}, nil
}
