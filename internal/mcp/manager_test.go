package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/tool"
)

var fixture string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcp-fixture")
	if err != nil {
		panic(err)
	}
	fixture = filepath.Join(dir, "fixture")
	if out, err := exec.Command("go", "build", "-o", fixture, "./testdata/fixture").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the fixture server: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// warnings collects a manager's warnings.
type warnings struct {
	mu    sync.Mutex
	lines []string
}

func (w *warnings) add(l string) { w.mu.Lock(); w.lines = append(w.lines, l); w.mu.Unlock() }

func (w *warnings) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, "\n")
}

// waitFor waits for a warning holding want (the watcher warns after it
// changed the state).
func (w *warnings) waitFor(t *testing.T, want string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(w.all(), want) {
			return
		}
	}
	t.Errorf("no warning %q in:\n%s", want, w.all())
}

func stdioSpec(name string, args ...string) Spec {
	return Spec{Name: name, Origin: FromUser, Transport: "stdio", Command: fixture, Args: args, Enabled: true,
		StartupTimeout: 20 * time.Second, ToolTimeout: 20 * time.Second}
}

func startManager(t *testing.T, r *run.Runner, specs ...Spec) (*Manager, *warnings) {
	t.Helper()
	w := &warnings{}
	m := NewManager(Options{Runner: r, Root: t.TempDir(), Warn: w.add})
	t.Cleanup(m.Close)
	m.Start(specs, nil)
	return m, w
}

func toolByName(t *testing.T, m *Manager, name string) tool.Tool {
	t.Helper()
	for _, tt := range m.Tools() {
		if tt.Name() == name {
			return tt
		}
	}
	var names []string
	for _, tt := range m.Tools() {
		names = append(names, tt.Name())
	}
	t.Fatalf("no tool %s; have %v", name, names)
	return nil
}

func call(t *testing.T, m *Manager, name, input string) tool.Result {
	t.Helper()
	res, err := toolByName(t, m, name).Run(context.Background(), nil, json.RawMessage(input))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func TestStdioToolsListedAndCalled(t *testing.T) {
	m, w := startManager(t, &run.Runner{}, stdioSpec("fx"))
	if w.all() != "" {
		t.Fatalf("warnings: %s", w.all())
	}
	echo := toolByName(t, m, "mcp__fx__echo")
	if !echo.ReadOnly() || !strings.Contains(string(echo.Schema()), `"text"`) || echo.Description() != "Echo the text back." {
		t.Errorf("echo: readOnly %v schema %s desc %q", echo.ReadOnly(), echo.Schema(), echo.Description())
	}
	cases := []struct {
		tool, input, want string
		isError           bool
	}{
		{"mcp__fx__echo", `{"text":"hi"}`, "echo: hi", false},
		{"mcp__fx__fail", `{}`, "the widget is broken", true},
		{"mcp__fx__image", `{}`, "here is the chart\n[image image/png, 12 bytes: not shown, tool results reach the model as text]", false},
		{"mcp__fx__sum", `{"a":2,"b":3}`, `"sum":5`, false},
		{"mcp__fx__echo", `{"text":5}`, "", true}, // the server's schema check
	}
	for _, c := range cases {
		res := call(t, m, c.tool, c.input)
		if res.IsError != c.isError || !strings.Contains(res.Output, c.want) {
			t.Errorf("%s %s = %q (error %v), want %q (error %v)", c.tool, c.input, res.Output, res.IsError, c.want, c.isError)
		}
	}
}

func TestHugeResultCapped(t *testing.T) {
	m, _ := startManager(t, &run.Runner{}, stdioSpec("fx"))
	res := call(t, m, "mcp__fx__huge", `{"bytes":1000000}`)
	if len(res.Output) > ResultCap+200 || !strings.Contains(res.Output, "[MCP result cut: 65536 of 1000000 bytes shown]") {
		t.Errorf("huge result: %d bytes, tail %q", len(res.Output), res.Output[max(0, len(res.Output)-80):])
	}
}

func TestEnabledAndDisabledTools(t *testing.T) {
	s := stdioSpec("fx")
	s.EnabledTools = []string{"echo", "fail"}
	s.DisabledTools = []string{"fail"}
	m, _ := startManager(t, &run.Runner{}, s)
	var names []string
	for _, tt := range m.Tools() {
		names = append(names, tt.Name())
	}
	if !slices.Equal(names, []string{"mcp__fx__echo"}) {
		t.Errorf("tools = %v, want only mcp__fx__echo", names)
	}
}

func TestStartFaults(t *testing.T) {
	hang := stdioSpec("hangs", "-hang")
	hang.StartupTimeout = 500 * time.Millisecond
	missing := stdioSpec("missing")
	missing.Command = "/nonexistent/mcp-server"
	m, w := startManager(t, &run.Runner{}, stdioSpec("dies", "-exit"), hang, missing, stdioSpec("fine"))
	got := w.all()
	for _, want := range []string{
		`MCP server "dies" did not start: exited during startup (exit code 7: fixture: cannot open the database (told to fail))`,
		`MCP server "hangs" did not start: did not answer within 500ms (startup_timeout_sec)`,
		`MCP server "missing" did not start: /nonexistent/mcp-server: command not found`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "\n") != 2 {
		t.Errorf("want one line per fault:\n%s", got)
	}
	// The session goes on with the server that started.
	if res := call(t, m, "mcp__fine__echo", `{"text":"ok"}`); res.Output != "echo: ok" {
		t.Errorf("echo = %q", res.Output)
	}
	for _, st := range m.Status() {
		if st.Name != "fine" && st.State != StateFailed {
			t.Errorf("%s: state %s", st.Name, st.State)
		}
	}
}

func TestCrashRestartsOnce(t *testing.T) {
	m, w := startManager(t, &run.Runner{}, stdioSpec("fx"))
	res := call(t, m, "mcp__fx__crash", `{}`)
	if !res.IsError || !strings.Contains(res.Output, `MCP server "fx" exited while mcp__fx__crash ran`) {
		t.Fatalf("crash result = %q", res.Output)
	}
	// The state still reads ready until the manager has seen the exit:
	// wait for its restart before the next call.
	w.waitFor(t, `MCP server "fx" exited (exit code 3: fixture: crashing as asked); restarting it once`)
	waitState(t, m, "fx", StateReady)
	if res := call(t, m, "mcp__fx__echo", `{"text":"back"}`); res.Output != "echo: back" {
		t.Fatalf("after restart echo = %q (%s)", res.Output, w.all())
	}
	call(t, m, "mcp__fx__crash", `{}`)
	waitState(t, m, "fx", StateFailed)
	res = call(t, m, "mcp__fx__echo", `{"text":"x"}`)
	if !res.IsError || !strings.Contains(res.Output, `MCP server "fx" is not running: exited (exit code 3: fixture: crashing as asked)`) {
		t.Errorf("after second crash echo = %q", res.Output)
	}
	w.waitFor(t, `MCP server "fx" exited (exit code 3: fixture: crashing as asked); restarting it once`)
	w.waitFor(t, `MCP server "fx" exited again (exit code 3: fixture: crashing as asked); its tools answer with an error for the rest of this session`)
}

func waitState(t *testing.T, m *Manager, name string, want State) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, st := range m.Status() {
			if st.Name == name && st.State == want {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never reached %s: %+v", name, want, m.Status())
}

func TestToolTimeout(t *testing.T) {
	s := stdioSpec("fx")
	s.ToolTimeout = 300 * time.Millisecond
	m, _ := startManager(t, &run.Runner{}, s)
	res := call(t, m, "mcp__fx__sleep", `{"seconds":30}`)
	if !res.IsError || !strings.Contains(res.Output, "mcp__fx__sleep timed out after 300ms (tool_timeout_sec of MCP server \"fx\")") {
		t.Errorf("sleep = %q", res.Output)
	}
	if res := call(t, m, "mcp__fx__echo", `{"text":"still"}`); res.Output != "echo: still" {
		t.Errorf("after a timeout echo = %q", res.Output)
	}
}

func TestListChanged(t *testing.T) {
	changed := make(chan struct{}, 4)
	m := NewManager(Options{Root: t.TempDir(), Changed: func() { changed <- struct{}{} }})
	t.Cleanup(m.Close)
	m.Start([]Spec{stdioSpec("fx")}, nil)
	call(t, m, "mcp__fx__add_tool", `{"name":"late"}`)
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no list-changed")
	}
	if res := call(t, m, "mcp__fx__late", `{}`); res.Output != "hello from late" {
		t.Errorf("late = %q", res.Output)
	}
}

// TestSecretsNotInServerEnv reads the server's environment from /proc, as
// the kernel has it: secret-named variables are gone unless the
// configuration names them.
func TestSecretsNotInServerEnv(t *testing.T) {
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "GITHUB_TOKEN=ghp_leak", "MY_API_KEY=k1", "PASSED_SECRET=p1", "PLAIN=yes"}
	r := &run.Runner{BaseEnv: base}
	s := stdioSpec("fx")
	s.Env = map[string]string{"SERVICE_TOKEN": "given"}
	s.EnvVars = []string{"PASSED_SECRET"}
	w := &warnings{}
	m := NewManager(Options{Runner: r, Root: t.TempDir(), Warn: w.add, Getenv: func(k string) string {
		for _, kv := range base {
			if n, v, _ := strings.Cut(kv, "="); n == k {
				return v
			}
		}
		return ""
	}})
	t.Cleanup(m.Close)
	m.Start([]Spec{s}, nil)
	m.mu.Lock()
	srv := m.servers[0]
	m.mu.Unlock()
	srv.mu.Lock()
	pid := srv.proc.Pid()
	srv.mu.Unlock()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Split(string(data), "\x00")
	for _, want := range []string{"PLAIN=yes", "SERVICE_TOKEN=given", "PASSED_SECRET=p1"} {
		if !slices.Contains(env, want) {
			t.Errorf("server environment lacks %s: %v", want, env)
		}
	}
	for _, gone := range []string{"GITHUB_TOKEN=ghp_leak", "MY_API_KEY=k1"} {
		if slices.Contains(env, gone) {
			t.Errorf("server environment has %s", gone)
		}
	}
}

func TestStreamableHTTP(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "web"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "whoami"}, func(_ context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "auth " + req.Extra.Header.Get("Authorization") + " x " + req.Extra.Header.Get("X-Team")}}}, nil, nil
	})
	h := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(h.Close)
	w := &warnings{}
	env := map[string]string{"WEB_TOKEN": "s3cret", "TEAM": "core"}
	m := NewManager(Options{Root: t.TempDir(), Warn: w.add, Getenv: func(k string) string { return env[k] }})
	t.Cleanup(m.Close)
	m.Start([]Spec{
		{Name: "web", Transport: "http", URL: h.URL, BearerTokenEnvVar: "WEB_TOKEN", EnvHeaders: map[string]string{"X-Team": "TEAM"},
			Enabled: true, StartupTimeout: 20 * time.Second, ToolTimeout: 20 * time.Second},
		{Name: "notoken", Transport: "http", URL: h.URL, BearerTokenEnvVar: "UNSET_TOKEN", Enabled: true, StartupTimeout: time.Second},
	}, nil)
	if res := call(t, m, "mcp__web__whoami", `{}`); res.Output != "auth Bearer s3cret x core" {
		t.Errorf("whoami = %q", res.Output)
	}
	if !strings.Contains(w.all(), `MCP server "notoken" did not start: bearer_token_env_var UNSET_TOKEN is not set`) {
		t.Errorf("warnings: %s", w.all())
	}
}

func TestToolName(t *testing.T) {
	for _, c := range []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my.server", "do it", "mcp__my_server__do_it"},
		{"s", strings.Repeat("a", 80), "mcp__s__" + strings.Repeat("a", 56)},
	} {
		if got := ToolName(c.server, c.tool); got != c.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
}

func TestResultText(t *testing.T) {
	for _, c := range []struct {
		name string
		res  *sdk.CallToolResult
		want string
	}{
		{"structured only", &sdk.CallToolResult{StructuredContent: map[string]any{"n": 1}}, "{\n  \"n\": 1\n}"},
		{"empty", &sdk.CallToolResult{}, "(no output)"},
		{"resource", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a", Text: "body"}}}}, "[resource file:///a]\nbody"},
		{"link", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{Name: "a", URI: "file:///a"}}}, "[resource a: file:///a]"},
		{"audio", &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("abc")}}}, "[audio audio/wav, 3 bytes: not shown]"},
	} {
		if got := resultText(c.res); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
