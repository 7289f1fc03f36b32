package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaPolicy is the stop policy of --output-schema runs: the final answer
// must be JSON valid against the schema. An invalid answer is sent back
// once with the validation error; a second one fails the turn. No gate runs
// in these runs (DESIGN §4).
type SchemaPolicy struct {
	NoPolicy
	schema *jsonschema.Resolved
	raw    []byte
	tries  int
}

// SchemaError is an answer that did not match the output schema.
type SchemaError struct{ Reason string }

func (e *SchemaError) Error() string {
	return "final answer does not match --output-schema: " + e.Reason
}

// LoadSchema reads and resolves the JSON schema in path: draft 2020-12, or
// draft-07 when its $schema says so. The validator is google/jsonschema-go,
// which the MCP SDK links anyway; santhosh-tekuri/jsonschema compiled five
// drafts' meta-schemas in its package init, some 20 ms of every chanto
// process (docs/benchmarks.md, "Start-up").
func LoadSchema(path string) (*SchemaPolicy, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("output schema %s: not valid JSON: %v", path, err)
	}
	sch, err := readSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("output schema %s: not a valid JSON schema: %s", path, oneLine(err.Error()))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	base := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	rs, err := sch.Resolve(&jsonschema.ResolveOptions{BaseURI: base, Loader: loadSchemaFile})
	if err != nil {
		return nil, fmt.Errorf("output schema %s: not a valid JSON schema: %s", path, oneLine(err.Error()))
	}
	return &SchemaPolicy{schema: rs, raw: raw}, nil
}

// The drafts the validator knows, by every spelling of their $schema;
// the value is the one it accepts.
var schemaDrafts = map[string]string{
	"http://json-schema.org/draft-07/schema":       "http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema":      "https://json-schema.org/draft-07/schema#",
	"http://json-schema.org/draft/2020-12/schema":  "https://json-schema.org/draft/2020-12/schema",
	"https://json-schema.org/draft/2020-12/schema": "https://json-schema.org/draft/2020-12/schema",
}

// readSchema unmarshals a schema document and names its draft as the
// validator spells it; another draft is an error here rather than at the
// first answer.
func readSchema(raw []byte) (*jsonschema.Schema, error) {
	var sch jsonschema.Schema
	if err := json.Unmarshal(raw, &sch); err != nil {
		return nil, err
	}
	if sch.Schema != "" {
		d, ok := schemaDrafts[strings.TrimSuffix(sch.Schema, "#")]
		if !ok {
			return nil, fmt.Errorf("$schema %q is not supported (draft-07 and draft 2020-12 are)", sch.Schema)
		}
		sch.Schema = d
	}
	return &sch, nil
}

// loadSchemaFile reads a schema that a $ref names by a file URL (a
// relative $ref resolves against the schema's own file).
func loadSchemaFile(u *url.URL) (*jsonschema.Schema, error) {
	if u.Scheme != "file" {
		return nil, fmt.Errorf("$ref %s: only files are read, not the network", u)
	}
	raw, err := os.ReadFile(filepath.FromSlash(u.Path))
	if err != nil {
		return nil, err
	}
	return readSchema(raw)
}

// Instructions is the text appended to the prompt so the model knows the format.
func (p *SchemaPolicy) Instructions() string {
	return "Your final answer must be a single JSON value, with no other text, valid against this JSON schema:\n" + strings.TrimSpace(string(p.raw))
}

// OnFinal validates answer.
func (p *SchemaPolicy) OnFinal(_ context.Context, _ *TurnState, answer string) StopDecision {
	reason := p.check(answer)
	if reason == "" {
		return StopDecision{Verdict: NothingToVerify}
	}
	p.tries++
	if p.tries > 1 {
		return StopDecision{Err: &SchemaError{Reason: reason}}
	}
	return SendBack("Your final answer is not valid against the required JSON schema: " + reason +
		"\nAnswer again with only the JSON value.")
}

func (p *SchemaPolicy) check(answer string) string {
	var v any
	if err := json.Unmarshal([]byte(StripFence(answer)), &v); err != nil {
		return "not JSON: " + err.Error()
	}
	if err := p.schema.Validate(v); err != nil {
		return oneLine(err.Error())
	}
	return ""
}

// StripFence removes one Markdown code fence around s, which models add to
// JSON answers out of habit.
func StripFence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	s = strings.TrimSuffix(s[3:], "```")
	if nl := strings.IndexByte(s, '\n'); nl >= 0 && !strings.ContainsAny(s[:nl], "{[\"") {
		s = s[nl+1:]
	}
	return strings.TrimSpace(s)
}

func oneLine(s string) string {
	fields := strings.Fields(s)
	return strings.Join(fields, " ")
}

var _ Policy = (*SchemaPolicy)(nil)
