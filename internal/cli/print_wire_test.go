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

// anthropicReply is one streamed Messages API reply: optional text, then
// optional tool calls (id, name, JSON input streamed in two pieces).
func anthropicReply(text string, calls ...[3]string) llmtest.Reply {
	ev := []string{llmtest.Event("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":100,"output_tokens":1}}}`)}
	i := 0
	if text != "" {
		b, _ := json.Marshal(text)
		ev = append(ev,
			llmtest.Event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i)),
			llmtest.Event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, b)),
			llmtest.Event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i)))
		i++
	}
	stop := "end_turn"
	for _, c := range calls {
		half := len(c[2]) / 2
		a, _ := json.Marshal(c[2][:half])
		b, _ := json.Marshal(c[2][half:])
		ev = append(ev,
			llmtest.Event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, i, c[0], c[1])),
			llmtest.Event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, a)),
			llmtest.Event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, b)),
			llmtest.Event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i)))
		i++
		stop = "tool_use"
	}
	ev = append(ev,
		llmtest.Event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":20}}`, stop)),
		llmtest.Event("message_stop", `{"type":"message_stop"}`))
	return llmtest.Reply{Events: ev}
}

// TestPrintModeOverTheAnthropicWire runs print mode in process against a
// local server speaking the Messages API: a streamed tool call, its result
// sent back, the provider key kept from the command, the final answer.
func TestPrintModeOverTheAnthropicWire(t *testing.T) {
	srv := llmtest.NewServer(t,
		anthropicReply("Checking.", [3]string{"toolu_1", "bash", `{"command":"echo key=${LOCAL_ACCESS:-unset}"}`}),
		anthropicReply("", [3]string{"toolu_2", "bsh", `{"command":"ls"}`}),
		anthropicReply("All done."),
	)
	home := t.TempDir()
	t.Setenv("CHANTO_HOME", home)
	t.Setenv("LOCAL_ACCESS", "s3cret")
	cfg := fmt.Sprintf("[providers.local]\nwire = \"anthropic\"\nbase_url = %q\napi_key_env = \"LOCAL_ACCESS\"\n", srv.URL)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())

	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"-p", "check the key", "--model", "local/claude-test",
		"--permission-mode", "bypass", "--output-format", "json"}, strings.NewReader(""), &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	var res jsonResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Result != "All done." || res.NumTurns != 3 || res.Usage.InputTokens != 300 {
		t.Errorf("result = %+v", res)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if h := reqs[0].Header; h.Get("X-Api-Key") != "s3cret" && h.Get("Authorization") != "Bearer s3cret" {
		t.Errorf("the key from api_key_env was not sent: %v", h)
	}
	second, third := string(reqs[1].Raw), string(reqs[2].Raw)
	if !strings.Contains(second, `"tool_use_id":"toolu_1"`) || !strings.Contains(second, "key=unset") {
		t.Errorf("second request lacks the tool result, or the command saw the key:\n%s", second)
	}
	if !strings.Contains(third, `unknown tool \"bsh\"; available: bash, read, write, edit, glob, grep`) {
		t.Errorf("third request lacks the unknown-tool result:\n%s", third)
	}
}
