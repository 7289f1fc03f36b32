package hookinstall

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests hand what install writes to the real agents: Codex CLI and
// Claude Code from npm, installed once into a cache folder
// (CHANTO_AGENTS_CACHE, else the user's cache folder; the same one, laid
// out the same way, as test/agents uses). npm is needed, as for
// the rest of the suite (scripts/test installs it); a missing npm or a
// failed download fails the test, it is never skipped.

// The versions tested; the Codex approval hash follows Codex's own
// normalization of a hook, so a new Codex version is checked here first.
const (
	codexPackage  = "@openai/codex@0.171.0"
	claudePackage = "@anthropic-ai/claude-code@2.1.332"
	geminiPackage = "@google/gemini-cli@0.61.0"
)

var npmMu sync.Mutex

// agentCLI is the path of the native binary rel (below node_modules) of
// package pkg, installed when missing.
func agentCLI(t *testing.T, pkg, rel string) string {
	t.Helper()
	dir := os.Getenv("CHANTO_AGENTS_CACHE")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(cache, "chanto-test-agents")
	}
	dir = filepath.Join(dir, strings.NewReplacer("@", "", "/", "-").Replace(pkg))
	path := filepath.Join(dir, "node_modules", rel)
	npmMu.Lock()
	defer npmMu.Unlock()
	if _, err := os.Stat(path); err == nil {
		return path
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm is needed to install %s for this test (scripts/test installs it)", pkg)
	}
	cmd := exec.Command(npm, "install", "--no-audit", "--no-fund", "--prefix", dir, pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s: %v\n%s", pkg, err, out)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("npm install %s made no %s: %v", pkg, rel, err)
	}
	return path
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
}

// codexHook is one entry of Codex's hooks/list answer.
type codexHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	Matcher     string `json:"matcher"`
	Source      string `json:"source"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

// codexHooks asks the real Codex (its app-server, over stdio) which
// hooks it finds for cwd, and how it trusts them.
func codexHooks(t *testing.T, codex string, env []string, cwd string) ([]codexHook, []string) {
	t.Helper()
	cmd := exec.Command(codex, "app-server")
	cmd.Env = env
	cmd.Dir = cwd
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan []byte)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(lines)
	}()
	send := func(v any) {
		b, _ := json.Marshal(v)
		_, _ = stdin.Write(append(b, '\n'))
	}
	await := func(id int) json.RawMessage {
		timeout := time.After(2 * time.Minute)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("codex app-server ended before answering %d", id)
				}
				var m struct {
					ID     *int            `json:"id"`
					Result json.RawMessage `json:"result"`
					Error  json.RawMessage `json:"error"`
				}
				if json.Unmarshal(line, &m) == nil && m.ID != nil && *m.ID == id {
					if m.Error != nil {
						t.Fatalf("codex app-server: %s", m.Error)
					}
					return m.Result
				}
			case <-timeout:
				t.Fatalf("codex app-server did not answer %d", id)
			}
		}
	}
	send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"clientInfo": map[string]any{"name": "chanto-test", "version": "1"}}})
	await(1)
	send(map[string]any{"method": "initialized"})
	send(map[string]any{"id": 2, "method": "hooks/list", "params": map[string]any{"cwds": []string{cwd}}})
	var res struct {
		Data []struct {
			Hooks    []codexHook `json:"hooks"`
			Warnings []string    `json:"warnings"`
		} `json:"data"`
	}
	if err := json.Unmarshal(await(2), &res); err != nil || len(res.Data) != 1 {
		t.Fatalf("hooks/list: %v", err)
	}
	return res.Data[0].Hooks, res.Data[0].Warnings
}

// TestCodexReadsInstall: the real Codex CLI finds chanto's hooks where
// install put them (project and user), trusts them once install --trust
// recorded the approval (the hash is the one Codex computes), and finds
// none after uninstall, which leaves the user's config.toml as it was.
func TestCodexReadsInstall(t *testing.T) {
	codex := agentCLI(t, codexPackage, "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex")
	home, proj := t.TempDir(), t.TempDir()
	gitInit(t, proj)
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf("model = \"gpt-5\"\n\n[projects.%s]\ntrust_level = \"trusted\"\n", tomlKey(proj))
	cfgPath := filepath.Join(codexHome, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	// The project's own hook, which must stay first and untouched.
	if err := os.MkdirAll(filepath.Join(proj, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	own := "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}]\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(proj, ".codex", "hooks.json"), []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+home, "CODEX_HOME="+codexHome)
	paths := Paths{Root: proj, Home: home, CodexHome: codexHome}
	command := "chanto hook codex"

	ours := func(hs []codexHook) []codexHook {
		var out []codexHook
		for _, h := range hs {
			if h.Command == command {
				out = append(out, h)
			}
		}
		return out
	}
	if _, err := Install(Options{Agent: Codex, Scope: Project, Paths: paths, Command: command}); err != nil {
		t.Fatal(err)
	}
	hs, warnings := codexHooks(t, codex, env, proj)
	if len(warnings) > 0 {
		t.Errorf("codex warns: %v", warnings)
	}
	if got := ours(hs); len(got) != len(Codex.hooks()) {
		t.Fatalf("codex lists %d of chanto's hooks, want %d: %+v", len(got), len(Codex.hooks()), hs)
	}
	for _, h := range ours(hs) {
		if h.TrustStatus != "untrusted" {
			t.Errorf("%s is %s before any approval", h.Key, h.TrustStatus)
		}
	}
	if len(hs) != len(Codex.hooks())+1 {
		t.Errorf("the project's own hook is gone: %+v", hs)
	}

	for _, scope := range []Scope{Project, User} {
		if _, err := Install(Options{Agent: Codex, Scope: scope, Paths: paths, Command: command, Trust: true}); err != nil {
			t.Fatal(err)
		}
	}
	hs, _ = codexHooks(t, codex, env, proj)
	sources := map[string]int{}
	for _, h := range ours(hs) {
		sources[h.Source]++
		if h.TrustStatus != "trusted" {
			t.Errorf("%s (%s) is %s after install --trust", h.Key, h.Source, h.TrustStatus)
		}
		ev := map[string]string{"sessionStart": "SessionStart", "userPromptSubmit": "UserPromptSubmit", "postToolUse": "PostToolUse", "stop": "Stop", "subagentStop": "SubagentStop"}[h.EventName]
		if want := codexHash(ev, h.Matcher, command, hookTimeout); h.CurrentHash != want {
			t.Errorf("%s: codex hashes it %s, chanto %s", h.Key, h.CurrentHash, want)
		}
	}
	if sources["project"] != len(Codex.hooks()) || sources["user"] != len(Codex.hooks()) {
		t.Errorf("sources %v", sources)
	}
	for _, e := range Status(paths, func(Agent) string { return command }) {
		if e.Agent == Codex && (e.Approved != len(Codex.hooks()) || e.Unapproved != 0 || !e.Installed()) {
			t.Errorf("status says %+v", e)
		}
	}

	for _, scope := range []Scope{Project, User} {
		if _, err := Uninstall(Options{Agent: Codex, Scope: scope, Paths: paths}); err != nil {
			t.Fatal(err)
		}
	}
	hs, _ = codexHooks(t, codex, env, proj)
	if got := ours(hs); len(got) != 0 || len(hs) != 1 {
		t.Errorf("after uninstall codex lists %+v", hs)
	}
	if data, _ := os.ReadFile(cfgPath); string(data) != config {
		t.Errorf("config.toml after uninstall:\n%s\nwant:\n%s", data, config)
	}
	if data, _ := os.ReadFile(filepath.Join(proj, ".codex", "hooks.json")); string(data) != own {
		t.Errorf("the project's hooks.json after uninstall:\n%s", data)
	}
}

// TestClaudeRunsInstall: the real Claude Code, pointed at a local fake
// model, runs the hooks install wrote into the project's
// .claude/settings.json (here a recorder standing in for chanto) at the
// session's start, the prompt, the model's Write and the stop; after
// uninstall it runs none.
func TestClaudeRunsInstall(t *testing.T) {
	claude := agentCLI(t, claudePackage, "@anthropic-ai/claude-code-linux-x64/claude")
	home, proj, bin := t.TempDir(), t.TempDir(), t.TempDir()
	gitInit(t, proj)
	log := filepath.Join(bin, "events.jsonl")
	recorder := "#!/bin/sh\ncat >> " + log + "\necho >> " + log + "\necho '{}'\n"
	if err := os.WriteFile(filepath.Join(bin, "chanto"), []byte(recorder), 0o755); err != nil {
		t.Fatal(err)
	}
	// The user's own settings, with a hook of their own.
	settings := filepath.Join(proj, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	own := "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo own >> " + log + ".own\"}]}]\n  }\n}\n"
	if err := os.WriteFile(settings, []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := Paths{Root: proj, Home: home}
	if _, err := Install(Options{Agent: Claude, Scope: Project, Paths: paths, Command: filepath.Join(bin, "chanto") + " hook claude"}); err != nil {
		t.Fatal(err)
	}
	srv := fakeAnthropic(t, filepath.Join(proj, "b.txt"))
	run := func() {
		cmd := exec.Command(claude, "-p", "write b.txt", "--permission-mode", "acceptEdits", "--allowedTools", "Write")
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "HOME="+home, "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-fake",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude: %v\n%s", err, out)
		}
	}
	run()
	data, _ := os.ReadFile(log)
	var events []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var p struct {
			Event string `json:"hook_event_name"`
			Tool  string `json:"tool_name"`
		}
		if json.Unmarshal([]byte(line), &p) == nil && p.Event != "" {
			events = append(events, strings.TrimSuffix(p.Event+" "+p.Tool, " "))
		}
	}
	got := strings.Join(events, ", ")
	t.Logf("claude ran chanto's hook on: %s", got)
	for _, want := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse Write", "Stop"} {
		if !strings.Contains(got, want) {
			t.Errorf("claude ran chanto's hook on %q; no %s", got, want)
		}
	}
	if ownRan, _ := os.ReadFile(log + ".own"); !strings.Contains(string(ownRan), "own") {
		t.Errorf("the user's own Stop hook did not run")
	}

	if _, err := Uninstall(Options{Agent: Claude, Scope: Project, Paths: paths}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(settings); string(data) != own {
		t.Errorf("settings after uninstall:\n%s", data)
	}
	os.Remove(log)
	run()
	if data, err := os.ReadFile(log); err == nil {
		t.Errorf("claude ran chanto's hook after uninstall:\n%s", data)
	}
}

// fakeAnthropic is a Messages API that writes file with the Write tool
// on the first request offering tools, then answers "Done.".
func fakeAnthropic(t *testing.T, file string) *httptest.Server {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.HasSuffix(r.URL.Path, "/v1/messages") {
			if strings.Contains(r.URL.Path, "count_tokens") {
				fmt.Fprint(w, `{"input_tokens":10}`)
				return
			}
			w.WriteHeader(http.StatusNotFound)
			return
		}
		var req struct {
			Tools []json.RawMessage `json:"tools"`
		}
		_ = json.Unmarshal(body, &req)
		mu.Lock()
		first := len(req.Tools) > 0 && calls == 0
		if len(req.Tools) > 0 {
			calls++
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(name string, v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		}
		ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant",
			"model": "claude-sonnet-4-5", "content": []any{}, "stop_reason": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}})
		stop := "end_turn"
		if first {
			stop = "tool_use"
			in, _ := json.Marshal(map[string]string{"file_path": file, "content": "new\n"})
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Write", "input": map[string]any{}}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		} else {
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": "Done."}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]int{"output_tokens": 5}})
		ev("message_stop", map[string]any{"type": "message_stop"})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestGeminiRunsInstall: the real gemini-cli, pointed at a local fake
// Gemini API, runs the hooks install wrote into the project's
// .gemini/settings.json (a recorder standing in for chanto) in a folder it
// trusts: at the session's start, before the agent, after its write_file
// call, after the agent. (One run only: gemini-cli takes tens of seconds
// to start on a busy machine; uninstall is checked on the file.)
func TestGeminiRunsInstall(t *testing.T) {
	gemini := agentCLI(t, geminiPackage, ".bin/gemini")
	home, proj, bin := t.TempDir(), t.TempDir(), t.TempDir()
	gitInit(t, proj)
	log := filepath.Join(bin, "events.jsonl")
	recorder := "#!/bin/sh\ncat >> " + log + "\necho >> " + log + "\necho '{}'\n"
	if err := os.WriteFile(filepath.Join(bin, "chanto"), []byte(recorder), 0o755); err != nil {
		t.Fatal(err)
	}
	gdir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(gdir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"settings.json":       `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`,
		"trustedFolders.json": fmt.Sprintf(`{%q: "TRUST_FOLDER"}`, proj),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(gdir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths := Paths{Root: proj, Home: home}
	res, err := Install(Options{Agent: Gemini, Scope: Project, Paths: paths, Command: filepath.Join(bin, "chanto") + " hook gemini"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(res.Notes, " "), geminiUntrusted) {
		t.Errorf("a trusted folder reported untrusted: %v", res.Notes)
	}
	srv := fakeGemini(t, filepath.Join(proj, "b.txt"))
	cmd := exec.Command(gemini, "-p", "write b.txt", "--approval-mode", "yolo")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "GEMINI_API_KEY=fake-for-tests", "GOOGLE_GEMINI_BASE_URL="+srv.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(log)
	var events []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var p struct {
			Event string `json:"hook_event_name"`
			Tool  string `json:"tool_name"`
		}
		if json.Unmarshal([]byte(line), &p) == nil && p.Event != "" {
			events = append(events, strings.TrimSuffix(p.Event+" "+p.Tool, " "))
		}
	}
	got := strings.Join(events, ", ")
	t.Logf("gemini ran chanto's hook on: %s", got)
	for _, want := range []string{"SessionStart", "BeforeAgent", "AfterTool write_file", "AfterAgent"} {
		if !strings.Contains(got, want) {
			t.Errorf("gemini ran chanto's hook on %q; no %s\n%s", got, want, out)
		}
	}
	if _, err := Uninstall(Options{Agent: Gemini, Scope: Project, Paths: paths}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(paths.File(Gemini, Project)); err == nil {
		t.Errorf("uninstall left the settings file install created")
	}
}

// fakeGemini is a Gemini API that asks for write_file on the first
// streamed request, then answers "Done."; other requests (routing) get a
// short text.
func fakeGemini(t *testing.T, file string) *httptest.Server {
	var mu sync.Mutex
	streams := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		part := map[string]any{"text": "Done."}
		if strings.Contains(r.URL.Path, ":streamGenerateContent") {
			mu.Lock()
			streams++
			first := streams == 1
			mu.Unlock()
			if first {
				part = map[string]any{"functionCall": map[string]any{"name": "write_file", "args": map[string]any{"file_path": file, "content": "new\n"}}}
			}
			w.Header().Set("Content-Type", "text/event-stream")
			b, _ := json.Marshal(map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
				"usageMetadata": map[string]int{"promptTokenCount": 5, "candidatesTokenCount": 1, "totalTokenCount": 6}})
			fmt.Fprintf(w, "data: %s\r\n\r\n", b)
			return
		}
		if strings.Contains(r.URL.Path, ":countTokens") {
			fmt.Fprint(w, `{"totalTokens": 5}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP"}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}
