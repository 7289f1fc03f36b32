package tool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
)

func newEnv(t *testing.T) *Env {
	t.Helper()
	t.Setenv("CHANTO_HOME", t.TempDir())
	return &Env{Root: t.TempDir(), Runner: newRunner()}
}

// call runs a tool with a JSON input literal.
func call(t *testing.T, env *Env, tl Tool, input string) Result {
	t.Helper()
	res, err := tl.Run(context.Background(), env, json.RawMessage(input))
	if err != nil {
		t.Fatalf("%s %s: infrastructure error: %v", tl.Name(), input, err)
	}
	return res
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gitInit makes root a real git repository (test setup only).
func gitInit(t *testing.T, root string) {
	t.Helper()
	r := &run.Runner{}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		res, err := r.Run(context.Background(), run.Spec{Args: append([]string{"git"}, args...), Dir: root, Purpose: run.Internal})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("git %v: %v\n%s", args, err, res.Output)
		}
	}
}

func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
}

func TestBuiltinToolsHaveDocsAndSchemas(t *testing.T) {
	seen := map[string]bool{}
	for _, tl := range Builtin() {
		if seen[tl.Name()] {
			t.Errorf("duplicate tool %s", tl.Name())
		}
		seen[tl.Name()] = true
		if len(tl.Description()) < 100 {
			t.Errorf("%s: description too short", tl.Name())
		}
		var s struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		if err := json.Unmarshal(tl.Schema(), &s); err != nil || s.Type != "object" || len(s.Required) == 0 && tl.Name() != "diagnostics" {
			t.Errorf("%s: bad schema %s (%v)", tl.Name(), tl.Schema(), err)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %s not in properties", tl.Name(), r)
			}
		}
	}
	if len(seen) != 8 {
		t.Errorf("want 8 tools, got %v", seen)
	}
}

func newRunner() *run.Runner { return &run.Runner{} }
