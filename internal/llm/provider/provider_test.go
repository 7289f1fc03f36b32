package provider

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/llm/anthropic"
	"github.com/chanto-dev/chanto/internal/llm/openai"
	"github.com/chanto-dev/chanto/internal/llm/scripted"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// inner unwraps the retry decorator.
func inner(t *testing.T, p llm.Provider) llm.Provider {
	t.Helper()
	u, ok := p.(interface{ Unwrap() llm.Provider })
	if !ok {
		t.Fatalf("%T is not wrapped with retry", p)
	}
	return u.Unwrap()
}

func TestOpenBuiltins(t *testing.T) {
	keys := env(map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"})
	tests := []struct {
		spec, model, name string
		window            int
		check             func(llm.Provider) bool
	}{
		{"anthropic/claude-sonnet-4-5", "claude-sonnet-4-5", "anthropic", 200000, func(p llm.Provider) bool { _, ok := p.(*anthropic.Client); return ok }},
		{"openai/gpt-5", "gpt-5", "openai", 400000, func(p llm.Provider) bool { _, ok := p.(*openai.Client); return ok }},
		{"openai/gpt-4o-mini", "gpt-4o-mini", "openai", 128000, nil},
		{"openai-responses/gpt-5-codex", "gpt-5-codex", "openai-responses", 400000, nil},
		{"openai/some-new-model", "some-new-model", "openai", 128000, nil},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			p, model, err := Open(tt.spec, config.Default(), keys)
			if err != nil {
				t.Fatal(err)
			}
			if model != tt.model || p.Name() != tt.name || p.ContextWindow(model) != tt.window {
				t.Errorf("model %q name %q window %d", model, p.Name(), p.ContextWindow(model))
			}
			if tt.check != nil && !tt.check(inner(t, p)) {
				t.Errorf("inner provider is %T", inner(t, p))
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	cfg := config.Default()
	cfg.Providers = map[string]config.Provider{
		"local":   {Wire: "openai-chat", BaseURL: "http://127.0.0.1:8080/v1"},
		"nowire":  {BaseURL: "http://x"},
		"badwire": {Wire: "grpc"},
		"work":    {Wire: "anthropic", APIKeyEnv: "WORK_KEY"},
	}
	tests := []struct{ spec, want string }{
		{"foo/bar", `unknown provider "foo" in --model "foo/bar" (known: anthropic, badwire, local, nowire, openai, openai-responses, work)`},
		{"claude-sonnet-4-5", `--model "claude-sonnet-4-5": want PROVIDER/MODEL (e.g. anthropic/claude-sonnet-4-5) or scripted:FILE`},
		{"anthropic/", `--model "anthropic/": want PROVIDER/MODEL`},
		{"anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY is not set (needed for --model anthropic/claude-sonnet-4-5)"},
		{"openai/gpt-5", "OPENAI_API_KEY is not set (needed for --model openai/gpt-5)"},
		{"work/claude-opus-4-1", "WORK_KEY is not set (needed for --model work/claude-opus-4-1)"},
		{"nowire/m", `provider "nowire": wire is not set (want anthropic, openai-chat or openai-responses)`},
		{"badwire/m", `provider "badwire": unknown wire "grpc"`},
		{"scripted:", `--model "scripted:": scripted: needs a file`},
		{"scripted:/nonexistent/script.txt", "scripted model: open /nonexistent/script.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			_, _, err := Open(tt.spec, cfg, env(nil))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant prefix %s", err, tt.want)
			}
		})
	}
}

func TestOpenConfigured(t *testing.T) {
	cfg := config.Default()
	cfg.Providers = map[string]config.Provider{
		"local":     {Wire: "openai-chat", BaseURL: "http://127.0.0.1:8080/v1", ContextWindow: 32768},
		"anthropic": {BaseURL: "http://proxy.internal"},
	}
	// A local server needs no key, and the OpenAI key is not handed to it.
	p, model, err := Open("local/qwen2.5-coder:7b", cfg, env(map[string]string{"OPENAI_API_KEY": "secret"}))
	if err != nil {
		t.Fatal(err)
	}
	if model != "qwen2.5-coder:7b" || p.Name() != "local" || p.ContextWindow(model) != 32768 {
		t.Errorf("model %q name %q window %d", model, p.Name(), p.ContextWindow(model))
	}
	// A configured entry named like a built-in keeps the built-in wire.
	p, _, err = Open("anthropic/claude-haiku-4-5", cfg, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := inner(t, p).(*anthropic.Client); !ok {
		t.Errorf("got %T", inner(t, p))
	}
}

func TestOpenScripted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.txt")
	if err := os.WriteFile(path, []byte("say hello\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, model, err := Open("scripted:"+path, config.Default(), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*scripted.Model); !ok || model != "scripted" {
		t.Fatalf("got %T, %q", p, model)
	}
	resp, err := p.Stream(context.Background(), llm.Request{}, nil)
	if err != nil || resp.Message.TextOf() != "hello" {
		t.Errorf("resp %+v, err %v", resp, err)
	}

	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("say hi\nsya oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = Open("scripted:"+bad, config.Default(), env(nil))
	if err == nil || err.Error() != bad+`:2: unknown directive "sya"` {
		t.Errorf("err = %v", err)
	}
}

func TestLocalServerGetsNoKey(t *testing.T) {
	// End to end through the factory against a real HTTP server.
	srv := newChatServer(t)
	cfg := config.Default()
	cfg.Providers = map[string]config.Provider{"local": {Wire: "openai-chat", BaseURL: srv.URL + "/v1"}}
	p, model, err := Open("local/qwen", cfg, env(map[string]string{"OPENAI_API_KEY": "must-not-leak"}))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Stream(context.Background(), llm.Request{Model: model, Messages: []llm.Message{
		{Role: llm.User, Parts: []llm.Part{{Type: llm.Text, Text: "hi"}}}}}, nil)
	if err != nil || resp.Message.TextOf() != "hello" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "" || r.Body["model"] != "qwen" {
		t.Errorf("path %s auth %q model %v", r.Path, r.Header.Get("Authorization"), r.Body["model"])
	}
}
