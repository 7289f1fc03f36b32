package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
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

// TestVerifiedModeOverAnthropicBaseURL is how most users point an agent at
// a proxy or a local server: ANTHROPIC_BASE_URL, no configuration file. The
// model edits a real Go project, the gate runs go test, and a failure goes
// back to the model in the next request.
func TestVerifiedModeOverAnthropicBaseURL(t *testing.T) {
	srv := llmtest.NewServer(t,
		anthropicReply("", [3]string{"toolu_1", "read", `{"path":"calc.go"}`}),
		anthropicReply("", [3]string{"toolu_2", "edit", `{"path":"calc.go","old_string":"return a - b","new_string":"return a * b"}`}),
		anthropicReply("Fixed."),
		anthropicReply("", [3]string{"toolu_3", "edit", `{"path":"calc.go","old_string":"return a * b","new_string":"return a + b"}`}),
		anthropicReply("Fixed for real."),
	)
	t.Setenv("CHANTO_HOME", t.TempDir())
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	t.Setenv("ANTHROPIC_API_KEY", "sk-test")
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a - b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitInit(t, dir)
	t.Chdir(dir)

	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"-p", "fix Add", "--model", "anthropic/claude-test",
		"--permission-mode", "bypass", "--verify", "--sandbox", "off"}, strings.NewReader(""), &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "Fixed for real.") || !strings.Contains(stdout.String(), "Verified: go vet ./...") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	if fourth := string(reqs[3].Raw); !strings.Contains(fourth, "Add(2, 3) != 5") || !strings.Contains(fourth, "chanto ran the project's checks") {
		t.Errorf("the gate's failure did not reach the model:\n%s", fourth)
	}
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
