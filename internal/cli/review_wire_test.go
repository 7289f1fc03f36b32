package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/llm/llmtest"
)

// openaiChatReply is one streamed Chat Completions reply with text only.
func openaiChatReply(text string) llmtest.Reply {
	chunk := func(delta, finish string) string {
		return llmtest.Data(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-test","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}],"usage":null}`)
	}
	b, _ := json.Marshal(text)
	return llmtest.Reply{Events: []string{
		chunk(`{"role":"assistant","content":""}`, "null"),
		chunk(`{"content":`+string(b)+`}`, "null"),
		chunk(`{}`, `"stop"`),
		llmtest.Data(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-test","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":5,"total_tokens":55}}`),
		llmtest.Data("[DONE]"),
	}}
}

// TestReviewOverTwoWires: the main model speaks the Anthropic Messages
// API, the oracle (oracle_model) the OpenAI Chat Completions API, each a
// local server. The oracle's request carries the turn's diff and its own
// system prompt; its findings reach the main model once, in the next
// Anthropic request, before any check; after the fix the gate runs and the
// json result carries the review. Then the roles swap wires and the oracle
// answers LGTM.
func TestReviewOverTwoWires(t *testing.T) {
	files := map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a - b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n",
	}
	setup := func(t *testing.T, cfg string) {
		home := t.TempDir()
		t.Setenv("CHANTO_HOME", home)
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		gitInit(t, dir)
		t.Chdir(dir)
	}
	run := func(t *testing.T) jsonResult {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), []string{"-p", "fix Add", "--verify", "--permission-mode", "bypass",
			"--sandbox", "off", "--output-format", "json"}, strings.NewReader(""), &stdout, &stderr)
		if code != ExitOK {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
		}
		var res jsonResult
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		return res
	}

	t.Run("anthropic main, openai oracle, findings", func(t *testing.T) {
		main := llmtest.NewServer(t,
			anthropicReply("", [3]string{"toolu_1", "read", `{"path":"calc.go"}`}),
			anthropicReply("", [3]string{"toolu_2", "edit", `{"path":"calc.go","old_string":"return a - b","new_string":"return a * b"}`}),
			anthropicReply("Fixed."),
			anthropicReply("", [3]string{"toolu_3", "edit", `{"path":"calc.go","old_string":"return a * b","new_string":"return a + b"}`}),
			anthropicReply("Fixed for real."),
		)
		oracle := llmtest.NewServer(t, openaiChatReply("calc.go:4: Add multiplies; Add(2, 3) is 6 and TestAdd wants 5."))
		setup(t, fmt.Sprintf("model = \"main/claude-test\"\noracle_model = \"rev/gpt-test\"\n\n[providers.main]\nwire = \"anthropic\"\nbase_url = %q\n\n[providers.rev]\nwire = \"openai-chat\"\nbase_url = %q\n\n[guardrails]\noracle = true\n", main.URL, oracle.URL))
		res := run(t)
		if res.Result != "Fixed for real." || res.Verdict != "verified" || !strings.HasSuffix(res.Evidence, "Oracle review: findings sent back once.") {
			t.Errorf("result = %+v", res)
		}
		if res.Review == nil || res.Review.Verdict != "findings" || res.Review.Model != "rev/gpt-test" || !strings.Contains(res.Review.Findings, "calc.go:4") {
			t.Errorf("review = %+v", res.Review)
		}
		oreqs := oracle.Requests()
		if len(oreqs) != 1 {
			t.Fatalf("%d oracle requests, want exactly 1", len(oreqs))
		}
		o := string(oreqs[0].Raw)
		for _, want := range []string{`-func Add(a, b int) int { return a - b }`, `+func Add(a, b int) int { return a * b }`, "You are the oracle", `\u003e fix Add`} {
			if !strings.Contains(o, want) && !strings.Contains(o, strings.ReplaceAll(want, `\u003e`, ">")) {
				t.Errorf("the oracle's request lacks %q:\n%.2000s", want, o)
			}
		}
		if strings.Contains(o, `"name":"edit"`) || strings.Contains(o, `"name":"write"`) {
			t.Errorf("the oracle was offered a writing tool:\n%.3000s", o)
		}
		mreqs := main.Requests()
		if len(mreqs) != 5 {
			t.Fatalf("%d main requests, want 5", len(mreqs))
		}
		fourth := string(mreqs[3].Raw)
		if !strings.Contains(fourth, "reviewed this turn's diff and reported") || !strings.Contains(fourth, "calc.go:4: Add multiplies") ||
			strings.Contains(fourth, "chanto ran the project's checks") {
			t.Errorf("the findings did not reach the main model alone:\n%.3000s", fourth)
		}
		if strings.Count(string(mreqs[4].Raw), "reviewed this turn's diff and reported") != 1 {
			t.Errorf("the findings went back more than once")
		}
	})

	t.Run("openai main, anthropic oracle, lgtm", func(t *testing.T) {
		main := llmtest.NewServer(t,
			openaiToolReply("call_1", "read", `{"path":"calc.go"}`),
			openaiToolReply("call_2", "edit", `{"path":"calc.go","old_string":"return a - b","new_string":"return a + b"}`),
			openaiChatReply("Fixed."),
		)
		oracle := llmtest.NewServer(t, anthropicReply("LGTM"))
		setup(t, fmt.Sprintf("model = \"main/gpt-test\"\noracle_model = \"rev/claude-test\"\n\n[providers.main]\nwire = \"openai-chat\"\nbase_url = %q\n\n[providers.rev]\nwire = \"anthropic\"\nbase_url = %q\n\n[guardrails]\noracle = true\n", main.URL, oracle.URL))
		res := run(t)
		if res.Result != "Fixed." || !strings.HasSuffix(res.Evidence, "Oracle review: LGTM.") || res.Review == nil || res.Review.Verdict != "lgtm" {
			t.Errorf("result = %+v, review %+v", res, res.Review)
		}
		if n := len(oracle.Requests()); n != 1 {
			t.Errorf("%d oracle requests", n)
		}
		if !strings.Contains(string(oracle.Requests()[0].Raw), `+func Add(a, b int) int { return a + b }`) {
			t.Errorf("no diff in the oracle's request")
		}
	})
}

// openaiToolReply is one streamed Chat Completions reply calling one tool.
func openaiToolReply(id, name, args string) llmtest.Reply {
	chunk := func(delta, finish string) string {
		return llmtest.Data(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-test","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}],"usage":null}`)
	}
	a, _ := json.Marshal(args)
	return llmtest.Reply{Events: []string{
		chunk(`{"role":"assistant","content":""}`, "null"),
		chunk(`{"tool_calls":[{"index":0,"id":"`+id+`","type":"function","function":{"name":"`+name+`","arguments":""}}]}`, "null"),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+string(a)+`}}]}`, "null"),
		chunk(`{}`, `"tool_calls"`),
		llmtest.Data("[DONE]"),
	}}
}
