package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chanto-dev/chanto/internal/agents"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/tool"
)

// newTaskAgent is an agent with echo tools (bash, read) and the task tool,
// its scripted model serving the parent and its subagents in order.
func newTaskAgent(t *testing.T, text string, rec *recorder, mod func(*Options)) *Agent {
	t.Helper()
	return newAgent(t, text, rec, func(o *Options) {
		o.Env = &tool.Env{Root: t.TempDir()}
		o.Tools = append(o.Tools, Task{})
		if mod != nil {
			mod(o)
		}
	})
}

func TestTaskInputValidation(t *testing.T) {
	tests := []struct {
		name, input, want, typ string
	}{
		{name: "default type", input: `{"description":"look","prompt":"find x"}`, typ: SubagentGeneral},
		{name: "explore", input: `{"description":"look","prompt":"find x","subagent_type":"explore"}`, typ: SubagentExplore},
		{name: "empty input", input: ``, want: "prompt is empty"},
		{name: "blank prompt", input: `{"description":"look","prompt":"  "}`, want: "prompt is empty; give the subagent the whole task"},
		{name: "no description", input: `{"prompt":"find x"}`, want: "description is empty"},
		{name: "unknown type", input: `{"description":"d","prompt":"p","subagent_type":"coder"}`,
			want: `unknown subagent_type "coder"; use one of: general-purpose (General-purpose agent`},
		{name: "oracle", input: `{"description":"d","prompt":"p","subagent_type":"oracle"}`, typ: SubagentOracle},
		{name: "unknown field", input: `{"description":"d","prompt":"p","model":"x"}`, want: `invalid input for task: json: unknown field "model"`},
		{name: "wrong type", input: `{"description":"d","prompt":7}`, want: "invalid input for task"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, msg := parseTaskInput(json.RawMessage(tc.input), builtinAgents)
			if tc.want == "" {
				if msg != "" || in.SubagentType != tc.typ {
					t.Fatalf("got %+v, %q; want type %s and no mistake", in, msg, tc.typ)
				}
				return
			}
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("mistake = %q, want %q", msg, tc.want)
			}
		})
	}
}

func TestTaskBadInputIsAResultAndStartsNothing(t *testing.T) {
	rec := &recorder{}
	s := `call task {"description":"d","prompt":"p","subagent_type":"coder"}
---
expect unknown subagent_type "coder"
say ok
`
	a := newTaskAgent(t, s, rec, nil)
	out, err := a.Run(context.Background(), "go")
	if err != nil || out.Answer != "ok" || out.ModelCalls != 2 {
		t.Fatalf("out = %+v, err = %v", out, err)
	}
	if done := rec.of(event.ToolCompleted); len(done) != 1 || !done[0].Tool.IsError {
		t.Fatalf("tool.completed = %+v", done)
	}
}

func TestTaskReturnsTheReport(t *testing.T) {
	rec := &recorder{}
	s := `say Let me delegate.
call task {"description":"count files","prompt":"Count the Go files under src."}
---
# the subagent: a fresh conversation holding only the prompt
expect Count the Go files under src.
expect-not Let me delegate
expect-any You are a subagent
call bash {"text":"ls"}
---
expect bash:ls
say Report: 3 Go files.
---
# the parent again
expect Report: 3 Go files.
say There are 3.
`
	a := newTaskAgent(t, s, rec, nil)
	out, err := a.Run(context.Background(), "how many?")
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "There are 3." {
		t.Fatalf("answer = %q", out.Answer)
	}
	// The parent's conversation holds the report, not the subagent's steps.
	for _, m := range a.Messages() {
		for _, p := range m.Parts {
			if p.Type == llm.ToolUse && p.Name == "bash" {
				t.Fatalf("the subagent's call reached the parent's conversation: %+v", p)
			}
		}
	}
	if len(rec.messages) != len(a.Messages()) {
		t.Errorf("transcript has %d messages, conversation %d: the subagent must not write to it", len(rec.messages), len(a.Messages()))
	}
	checkSubagentEvents(t, rec)
	if out.ModelCalls != 2 {
		t.Errorf("model calls = %d; the subagent's calls do not count against the parent's cap", out.ModelCalls)
	}
}

// checkSubagentEvents checks that the subagent's events carry the task
// call's id and the parent's turn, and that only the parent streams text.
func checkSubagentEvents(t *testing.T, rec *recorder) {
	t.Helper()
	started := rec.of(event.ToolStarted)
	if len(started) != 2 || started[0].Tool.Name != "task" || started[1].Tool.Name != "bash" {
		t.Fatalf("tool.started = %+v", started)
	}
	taskID := started[0].Tool.ID
	if started[0].ParentToolID != "" || started[1].ParentToolID != taskID || started[1].Turn != 1 {
		t.Errorf("bash tool.started: parent_tool_id %q turn %d, want %q turn 1", started[1].ParentToolID, started[1].Turn, taskID)
	}
	for _, e := range rec.of(event.MessageDelta) {
		if e.ParentToolID != "" {
			t.Errorf("a subagent's text delta reached the sink: %+v", e)
		}
	}
	var report bool
	for _, e := range rec.of(event.MessageCompleted) {
		report = report || (e.ParentToolID == taskID && e.Text == "Report: 3 Go files.")
	}
	if !report {
		t.Errorf("no tagged message.completed with the report")
	}
	turns := rec.of(event.TurnCompleted)
	if len(turns) != 2 || turns[0].ParentToolID != taskID || turns[1].ParentToolID != "" {
		t.Fatalf("turn.completed = %+v", turns)
	}
	child, total := turns[0].Usage, turns[1].Usage
	if child.InputTokens == 0 || total.InputTokens <= child.InputTokens {
		t.Errorf("turn usage %+v does not include the subagent's %+v", total, child)
	}
}

func TestTaskHasNoTaskTool(t *testing.T) {
	s := `call task {"description":"outer","prompt":"go deeper"}
---
call task {"description":"inner","prompt":"deeper still"}
---
expect unknown tool "task"; available: bash, read
say cannot nest
---
expect cannot nest
say done
`
	out, err := newTaskAgent(t, s, &recorder{}, nil).Run(context.Background(), "go")
	if err != nil || out.Answer != "done" {
		t.Fatalf("out = %+v, err = %v", out, err)
	}
}

func TestExploreCannotWrite(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a.txt")
	if err := os.WriteFile(path, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := `call task {"description":"look","prompt":"read a.txt","subagent_type":"explore"}
---
expect-any You can only read
call read {"path":"a.txt"}
---
expect hello
call edit {"path":"a.txt","old_string":"hello","new_string":"bye"}
---
expect unknown tool "edit"; available: read, glob, grep
call bash {"command":"rm a.txt"}
---
expect unknown tool "bash"
say a.txt says hello
---
expect a.txt says hello
say fine
`
	a := newAgent(t, s, &recorder{}, func(o *Options) {
		o.Env = &tool.Env{Root: root}
		o.Tools = append(tool.Builtin(), Task{})
	})
	if out, err := a.Run(context.Background(), "go"); err != nil || out.Answer != "fine" {
		t.Fatalf("out = %+v, err = %v", out, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "hello\n" {
		t.Fatalf("a.txt = %q; explore must not change it", b)
	}
	var names []string
	for _, tl := range SubagentTools(append(tool.Builtin(), Task{}), agents.Builtins("")[1], false) {
		names = append(names, tl.Name())
	}
	if want := []string{"read", "glob", "grep"}; !slices.Equal(names, want) {
		t.Errorf("explore tools = %v, want %v", names, want)
	}
}

// changePolicy records, after each tool call of the turn, whether a.txt
// differs from its content at turn start: a stand-in for the gate's
// snapshot, which compares file contents the same way.
type changePolicy struct {
	NoPolicy
	path string

	mu      sync.Mutex
	start   string
	changes []string // "tool:changed" per AfterTool call
}

func (p *changePolicy) OnTurnStart(context.Context, *TurnState) error {
	b, err := os.ReadFile(p.path)
	p.start = string(b)
	return err
}

func (p *changePolicy) AfterTool(_ context.Context, _ *TurnState, call llm.Part, _ tool.Result) string {
	b, _ := os.ReadFile(p.path)
	p.mu.Lock()
	defer p.mu.Unlock()
	changed := string(b) != p.start
	p.changes = append(p.changes, call.Name+":"+map[bool]string{true: "changed", false: "same"}[changed])
	if changed {
		return "a.txt changed this turn"
	}
	return ""
}

func TestParentPolicySeesTheSubagentsEdits(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a.txt")
	if err := os.WriteFile(path, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := `call task {"description":"reword","prompt":"In a.txt replace hello with goodbye."}
---
call read {"path":"a.txt"}
---
# no note here: the subagent has no stop policy
expect-not changed this turn
call edit {"path":"a.txt","old_string":"hello","new_string":"goodbye"}
---
expect-not changed this turn
say Replaced hello with goodbye in a.txt.
---
expect Replaced hello with goodbye in a.txt.
expect a.txt changed this turn
say Done.
`
	pol := &changePolicy{path: path}
	a := newAgent(t, s, &recorder{}, func(o *Options) {
		o.Env = &tool.Env{Root: root}
		o.Tools = append(tool.Builtin(), Task{})
		o.Policy = pol
	})
	if out, err := a.Run(context.Background(), "go"); err != nil || out.Answer != "Done." {
		t.Fatalf("out = %+v, err = %v", out, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "goodbye\n" {
		t.Fatalf("a.txt = %q", b)
	}
	// The parent's policy ran once, after the task call, and saw the edit;
	// the subagent's own read and edit ran under no policy.
	if want := []string{"task:changed"}; !slices.Equal(pol.changes, want) {
		t.Fatalf("AfterTool calls = %v, want %v", pol.changes, want)
	}
}

// nameApprover refuses the tools it names.
type nameApprover map[string]bool

func (n nameApprover) Approve(_ context.Context, t tool.Tool, _ json.RawMessage) (bool, string) {
	if n[t.Name()] {
		return false, t.Name() + " refused by the test approver"
	}
	return true, ""
}

func TestSubagentCallsGoThroughTheApprover(t *testing.T) {
	s := `call task {"description":"d","prompt":"run it"}
---
call bash {"text":"rm -rf /"}
---
expect bash refused by the test approver
say I was not allowed to run it.
---
say ok
`
	out, err := newTaskAgent(t, s, &recorder{}, func(o *Options) { o.Approver = nameApprover{"bash": true} }).Run(context.Background(), "go")
	if err != nil || out.Answer != "ok" {
		t.Fatalf("out = %+v, err = %v", out, err)
	}
}

func TestSubagentMaxTurns(t *testing.T) {
	s := `call task {"description":"d","prompt":"loop"}
---
call bash {"text":"1"}
---
say still going
call bash {"text":"2"}
---
expect the subagent made 2 model calls without finishing and was stopped
expect still going
say gave up
`
	out, err := newTaskAgent(t, s, &recorder{}, func(o *Options) { o.Tools[len(o.Tools)-1] = Task{MaxTurns: 2} }).Run(context.Background(), "go")
	if err != nil || out.Answer != "gave up" {
		t.Fatalf("out = %+v, err = %v", out, err)
	}
}

func TestSubagentEmptyReport(t *testing.T) {
	s := "call task {\"description\":\"d\",\"prompt\":\"p\"}\n---\nsay  \n---\nexpect the subagent finished without a report\nsay ok\n"
	if out, err := newTaskAgent(t, s, &recorder{}, nil).Run(context.Background(), "go"); err != nil || out.Answer != "ok" {
		t.Fatalf("out = %+v, err = %v", out, err)
	}
}

func TestSubagentProviderErrorIsAResult(t *testing.T) {
	s := "call task {\"description\":\"d\",\"prompt\":\"p\"}\n---\nfail 400 bad request from provider\n---\nexpect task could not run: subagent:\nexpect bad request from provider\nsay ok\n"
	if out, err := newTaskAgent(t, s, &recorder{}, nil).Run(context.Background(), "go"); err != nil || out.Answer != "ok" {
		t.Fatalf("out = %+v, err = %v", out, err)
	}
}

func TestCancelStopsTheSubagent(t *testing.T) {
	rec := &recorder{}
	s := `call task {"description":"d","prompt":"wait"}
---
say waiting
call slow {"text":"x"}
---
say never
---
say never
`
	a := newTaskAgent(t, s, rec, func(o *Options) {
		o.Tools = append(o.Tools, echoTool{name: "slow", delay: 10 * time.Second})
	})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := a.Run(ctx, "go")
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("cancel took %v to stop the subagent", d)
	}
	var taskDone *event.Tool
	for _, e := range rec.of(event.ToolCompleted) {
		if e.Tool.Name == "task" {
			taskDone = e.Tool
		}
	}
	if taskDone == nil || !taskDone.IsError || !strings.Contains(taskDone.Output, "waiting\n[interrupted by the user]") {
		t.Fatalf("task tool.completed = %+v", taskDone)
	}
}

func TestTaskRunNeedsAnAgent(t *testing.T) {
	if _, err := (Task{}).Run(context.Background(), &tool.Env{}, json.RawMessage(`{}`)); err == nil {
		t.Fatal("Task.Run outside an agent did not fail")
	}
}

func TestQuoteLastKeepsTheTailWhole(t *testing.T) {
	long := strings.Repeat("é", 1500) // 3000 bytes
	got := quoteLast([]llm.Message{{Role: llm.Assistant, Parts: []llm.Part{{Type: llm.Text, Text: long}}}})
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "\nIts last words:\n…é") || len(got) > 2100 {
		t.Fatalf("quoteLast = %q… (%d bytes)", got[:40], len(got))
	}
	if quoteLast(nil) != "" {
		t.Fatal("quoteLast of no messages is not empty")
	}
}

func TestSubagentCdStaysInTheSubagent(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := `call task {"description":"d","prompt":"go to sub"}
---
call bash {"command":"cd sub && pwd"}
---
expect /sub
say I am in sub.
---
call bash {"command":"pwd"}
---
expect-not /sub
say done
`
	a := newAgent(t, s, &recorder{}, func(o *Options) {
		o.Env = &tool.Env{Root: root, Runner: &run.Runner{}}
		o.Tools = append(tool.Builtin(), Task{})
	})
	if out, err := a.Run(context.Background(), "go"); err != nil || out.Answer != "done" {
		t.Fatalf("out = %+v, err = %v", out, err)
	}
}

// With the permission policy in default mode, starting a subagent needs no
// approval (it is read-only in itself), an explore subagent reads freely,
// and a general-purpose subagent's command is refused as the parent's would be.
func TestSubagentUnderThePermissionPolicy(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pa, err := NewPolicyApprover(config.Permissions{Mode: ModeDefault}, root)
	if err != nil {
		t.Fatal(err)
	}
	s := `call task {"description":"look","prompt":"read a.txt","subagent_type":"explore"}
---
call read {"path":"a.txt"}
---
expect hello
say a.txt says hello
---
expect a.txt says hello
call task {"description":"clean","prompt":"delete a.txt"}
---
call bash {"command":"rm a.txt"}
---
expect bash refused
say I may not run commands here.
---
expect I may not run commands here.
say done
`
	a := newAgent(t, s, &recorder{}, func(o *Options) {
		o.Env = &tool.Env{Root: root, Runner: &run.Runner{}}
		o.Tools = append(tool.Builtin(), Task{})
		o.Approver = pa
	})
	if out, err := a.Run(context.Background(), "go"); err != nil || out.Answer != "done" {
		t.Fatalf("out = %+v, err = %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(root, "a.txt")); err != nil {
		t.Fatalf("a.txt: %v", err)
	}
}
