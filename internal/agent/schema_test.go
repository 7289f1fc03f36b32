package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const personSchema = `{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}`

func TestLoadSchema(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ text, err string }{
		{personSchema, ""},
		{`{"type": 12}`, "not a valid JSON schema"},
		{`{"type": `, "not valid JSON"},
		{`{"$schema": "http://json-schema.org/draft-07/schema", "type": "object"}`, ""},
		{`{"$schema": "https://json-schema.org/draft/2020-12/schema#", "type": "object"}`, ""},
		{`{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}`, `$schema "http://json-schema.org/draft-04/schema#" is not supported`},
		{`{"properties": {"n": {"pattern": "("}}}`, "not a valid JSON schema"},
		{`{"$ref": "missing.json"}`, "not a valid JSON schema"},
	}
	for i, tc := range tests {
		p := filepath.Join(dir, "s.json")
		if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadSchema(p)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%d: err = %v, want %q", i, err, tc.err)
		}
	}
	if _, err := LoadSchema(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing schema file accepted")
	}
}

// A $ref to another file resolves against the schema's own folder, and
// the referenced schema is the one that judges the answer.
func TestSchemaRefToFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "person.json"), []byte(personSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "s.json")
	if err := os.WriteFile(p, []byte(`{"type":"array","items":{"$ref":"person.json"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	pol, err := LoadSchema(p)
	if err != nil {
		t.Fatal(err)
	}
	if r := pol.check(`[{"name":"ada"}]`); r != "" {
		t.Errorf("valid answer rejected: %s", r)
	}
	if r := pol.check(`[{"name":"ada"},{"nom":"bob"}]`); !strings.Contains(r, "name") {
		t.Errorf("answer without a name: %q, want the missing property named", r)
	}
}

func TestSchemaPolicy(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(p, []byte(personSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		answers []string
		sent    int // answers sent back
		err     bool
	}{
		{"valid first time", []string{`{"name":"ada"}`}, 0, false},
		{"fenced JSON counts", []string{"```json\n{\"name\":\"ada\"}\n```"}, 0, false},
		{"fixed after one re-ask", []string{`{"nom":"ada"}`, `{"name":"ada"}`}, 1, false},
		{"fails after the re-ask", []string{`not json`, `{"name":3}`}, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pol, err := LoadSchema(p)
			if err != nil {
				t.Fatal(err)
			}
			sent := 0
			var d StopDecision
			for _, a := range tc.answers {
				d = pol.OnFinal(context.Background(), &TurnState{}, a)
				if d.SendBack != "" {
					sent++
				}
			}
			var se *SchemaError
			if sent != tc.sent || errors.As(d.Err, &se) != tc.err {
				t.Errorf("sent back %d, err %v", sent, d.Err)
			}
		})
	}
}
