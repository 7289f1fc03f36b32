package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/run"
)

func home(t *testing.T) {
	t.Helper()
	t.Setenv("CHANTO_HOME", t.TempDir())
}

func userMsg(s string) llm.Message {
	return llm.Message{Role: llm.User, Parts: []llm.Part{{Type: llm.Text, Text: s}}}
}

var conversation = []llm.Message{
	userMsg("fix the parser\nit fails on empty input"),
	{Role: llm.Assistant, Parts: []llm.Part{
		{Type: llm.Text, Text: "Looking."},
		{Type: llm.ToolUse, ID: "t1", Name: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`)},
	}},
	{Role: llm.User, Parts: []llm.Part{{Type: llm.ToolResult, ID: "t1", Text: "ok\n[exit code 1]", IsError: true}}},
	{Role: llm.Assistant, Parts: []llm.Part{{Type: llm.ToolUse, ID: "t2", Name: "edit", Input: json.RawMessage(`{bad`), InputError: "unexpected end of JSON"}}},
	{Role: llm.Assistant, Parts: []llm.Part{{Type: llm.Text, Text: "Done — ünïcode survives."}}},
}

func TestCreateAppendLoad(t *testing.T) {
	home(t)
	proj := t.TempDir()
	s, err := Create(proj, "anthropic/claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-f]{6}$`).MatchString(s.ID()) {
		t.Errorf("id %q", s.ID())
	}
	for _, m := range conversation {
		if err := s.Append(m); err != nil {
			t.Fatal(err)
		}
		// Each message is on disk as soon as Append returns.
		msgs, _, err := Load(s.ID())
		if err != nil || !sameMessage(msgs[len(msgs)-1], m) {
			t.Fatalf("after append: %v %v", msgs, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(userMsg("late")); err == nil {
		t.Error("append after close succeeded")
	}
	msgs, meta, err := Load(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", msgs) != fmt.Sprintf("%+v", conversation) {
		t.Errorf("round trip:\n%v\n%v", msgs, conversation)
	}
	if meta.FirstPrompt != "fix the parser\nit fails on empty input" || meta.Model != "anthropic/claude-sonnet-4-5" || meta.ProjectDir != proj || meta.ID != s.ID() {
		t.Errorf("meta %+v", meta)
	}
	fi, _ := os.Stat(filepath.Join(Dir(s.ID()), "transcript.jsonl"))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("transcript mode %v", fi.Mode().Perm())
	}
}

// sameMessage compares messages, including tool inputs that are not JSON.
func sameMessage(a, b llm.Message) bool {
	return fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b)
}

func TestTruncatedLastLine(t *testing.T) {
	home(t)
	s, _ := Create(t.TempDir(), "m/x")
	s.Append(conversation[0])
	s.Append(conversation[1])
	s.Close()
	path := filepath.Join(Dir(s.ID()), "transcript.jsonl")
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"time":"2026-11-29T20:00:00Z","message":{"role":"user","parts":[{"ty`)
	f.Close()

	tr, err := Read(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Messages) != 2 || len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0], "transcript.jsonl:3: skipped a truncated last line") {
		t.Fatalf("messages %d warnings %q", len(tr.Messages), tr.Warnings)
	}
	// Resuming sets the torn line aside and appends on a clean line.
	s2, err := Open(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(s2.Warnings()) != 1 {
		t.Errorf("open warnings %q", s2.Warnings())
	}
	if h, _ := s2.History(); len(h) != 2 {
		t.Errorf("history %d", len(h))
	}
	if err := s2.Append(conversation[2]); err != nil {
		t.Fatal(err)
	}
	s2.Close()
	tr, err = Read(s.ID())
	if err != nil || len(tr.Messages) != 3 || len(tr.Warnings) != 0 {
		t.Fatalf("after resume: %d messages, %q, %v", len(tr.Messages), tr.Warnings, err)
	}
	if b, _ := os.ReadFile(path + ".partial"); !strings.Contains(string(b), `"parts":[{"ty`) {
		t.Errorf("partial line lost: %q", b)
	}
}

func TestCorruptMiddleLineIsAnError(t *testing.T) {
	home(t)
	s, _ := Create(t.TempDir(), "m/x")
	s.Append(conversation[0])
	s.file.WriteString("garbage\n")
	s.Append(conversation[1])
	s.Close()
	_, _, err := Load(s.ID())
	if err == nil || !strings.Contains(err.Error(), "transcript.jsonl:2: invalid transcript line") {
		t.Errorf("got %v", err)
	}
}

func TestLoadMissing(t *testing.T) {
	home(t)
	for _, id := range []string{"20990101-000000-abcdef", "../etc", ""} {
		if _, _, err := Load(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Load(%q) = %v", id, err)
		}
	}
}

func TestListAndLatest(t *testing.T) {
	home(t)
	base := t.TempDir()
	projA, projB := filepath.Join(base, "a"), filepath.Join(base, "b")
	os.Mkdir(projA, 0o755)
	os.Mkdir(projB, 0o755)
	link := filepath.Join(base, "link-to-a")
	os.Symlink(projA, link)

	if _, err := Latest(projA); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty history: %v", err)
	}
	var ids []string
	for i, p := range []string{projA, projB, link, projB} {
		s, err := Create(p, "m/x")
		if err != nil {
			t.Fatal(err)
		}
		s.Append(userMsg("prompt " + string(rune('0'+i))))
		s.Close()
		ids = append(ids, s.ID())
		time.Sleep(5 * time.Millisecond)
	}
	os.MkdirAll(filepath.Join(config.HistoryDir(), "putback", "x"), 0o700)
	metas, err := List()
	if err != nil || len(metas) != 4 {
		t.Fatalf("List: %v %v", metas, err)
	}
	for i, m := range metas {
		if m.ID != ids[3-i] || m.FirstPrompt != "prompt "+string(rune('0'+3-i)) {
			t.Errorf("List[%d] = %+v", i, m)
		}
	}
	if m, err := Latest(projA); err != nil || m.ID != ids[2] {
		t.Errorf("Latest(a) = %v %v, want %s (created through the symlink)", m.ID, err, ids[2])
	}
	// A unique prefix finds a session; a shared one is refused.
	if _, meta, err := Load(ids[1][:len(ids[1])-1]); err != nil || meta.ID != ids[1] {
		t.Errorf("prefix load: %v %v", meta.ID, err)
	}
	if _, _, err := Load(ids[0][:9]); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous prefix: %v", err)
	}
	if m, err := Latest(projB); err != nil || m.ID != ids[3] {
		t.Errorf("Latest(b) = %v %v", m.ID, err)
	}
}

// TestCrashLosesNothing appends from a separate process that kills itself
// with SIGKILL right after, and checks every message survived.
func TestCrashLosesNothing(t *testing.T) {
	if os.Getenv("CHANTO_SESSION_CRASH") != "" {
		s, err := Create(os.TempDir(), "m/x")
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(s.ID() + "\n")
		for _, m := range conversation {
			s.Append(m)
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
	}
	home(t)
	r := &run.Runner{}
	res, err := r.Run(context.Background(), run.Spec{
		Args:    []string{os.Args[0], "-test.run=^TestCrashLosesNothing$"},
		Env:     []string{"CHANTO_SESSION_CRASH=1", "CHANTO_HOME=" + os.Getenv("CHANTO_HOME")},
		Timeout: 30 * time.Second,
		Purpose: run.Internal,
	})
	if err != nil || res.ExitCode != -1 {
		t.Fatalf("child: exit %d, %v\n%s", res.ExitCode, err, res.Output)
	}
	id := strings.TrimSpace(strings.Split(string(res.Output), "\n")[0])
	msgs, meta, err := Load(id)
	if err != nil || len(msgs) != len(conversation) || meta.FirstPrompt == "" {
		t.Fatalf("after SIGKILL: %d messages, %+v, %v", len(msgs), meta, err)
	}
}

func TestFullRunsSurviveReopen(t *testing.T) {
	home(t)
	s, err := Create(t.TempDir(), "scripted:x")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(userMsg("hi")); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordFullRun("/p\x00go", 0.6); err != nil {
		t.Fatal(err)
	}
	s.RecordFullRun("/p\x00go", 0.8)
	s.Close()
	again, err := Open(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got := again.FullRuns(); len(got) != 1 || got["/p\x00go"] != 0.8 {
		t.Fatalf("full runs = %v", got)
	}
	if h, _ := again.History(); len(h) != 1 {
		t.Fatalf("history = %d messages, want 1 (a measurement is not a message)", len(h))
	}
}

func TestGoalSurvivesReopen(t *testing.T) {
	home(t)
	s, err := Create(t.TempDir(), "scripted:x")
	if err != nil {
		t.Fatal(err)
	}
	s.Append(userMsg("hi"))
	if err := s.RecordGoal([]byte(`{"statement":"a"}`)); err != nil {
		t.Fatal(err)
	}
	s.RecordGoal([]byte(`{"statement":"b"}`))
	s.Close()
	again, err := Open(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got := string(again.Goal()); got != `{"statement":"b"}` {
		t.Fatalf("goal = %s, want the last one recorded", got)
	}
	if h, _ := again.History(); len(h) != 1 {
		t.Fatalf("history = %d messages, want 1 (a goal is not a message)", len(h))
	}
	// Cleared: nil after a reopen too.
	if err := again.RecordGoal(nil); err != nil {
		t.Fatal(err)
	}
	again.Close()
	third, err := Open(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if g := third.Goal(); g != nil {
		t.Fatalf("goal after clearing = %s", g)
	}
}
