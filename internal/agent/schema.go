package agent

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaPolicy is the stop policy of --output-schema runs: the final answer
// must be JSON valid against the schema. An invalid answer is sent back
// once with the validation error; a second one fails the turn. No gate runs
// in these runs (DESIGN §4).
type SchemaPolicy struct {
	NoPolicy
	schema *jsonschema.Schema
	raw    []byte
	tries  int
}

// SchemaError is an answer that did not match the output schema.
type SchemaError struct{ Reason string }

func (e *SchemaError) Error() string {
	return "final answer does not match --output-schema: " + e.Reason
}

// LoadSchema compiles the JSON schema in path.
func LoadSchema(path string) (*SchemaPolicy, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("output schema %s: not valid JSON: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(path, doc); err != nil {
		return nil, fmt.Errorf("output schema %s: %v", path, err)
	}
	sch, err := c.Compile(path)
	if err != nil {
		return nil, fmt.Errorf("output schema %s: not a valid JSON schema: %s", path, oneLine(err.Error()))
	}
	return &SchemaPolicy{schema: sch, raw: raw}, nil
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
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(StripFence(answer))))
	if err != nil {
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
