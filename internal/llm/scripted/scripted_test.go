package scripted

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/llm"
)

func mustParse(t *testing.T, src string) *Model {
	t.Helper()
	s, err := Parse("script.txt", src)
	if err != nil {
		t.Fatal(err)
	}
	return New(s)
}

func userReq(text string) llm.Request {
	return llm.Request{System: "you are chanto", Messages: []llm.Message{
		{Role: llm.User, Parts: []llm.Part{{Type: llm.Text, Text: text}}},
	}}
}

func TestPlayback(t *testing.T) {
	m := mustParse(t, `expect run the tests
say I'll run the tests.
say Then report.
call bash {"command": "go test ./..."}
call read {"path": "a.go"}
---
expect ok 1 pkg
expect-not FAIL
expect-any you are chanto
say All tests pass.
---
call-raw edit {"path": "a.go", "old_
---
`)
	ctx := context.Background()
	var deltas []string
	resp, err := m.Stream(ctx, userReq("please run the tests"), func(d llm.Delta) { deltas = append(deltas, d.Text) })
	if err != nil {
		t.Fatal(err)
	}
	want := "I'll run the tests.\nThen report."
	if got := resp.Message.TextOf(); got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if strings.Join(deltas, "") != want || len(deltas) != 6 {
		t.Errorf("deltas = %q; want 6 word pieces joining to the text", deltas)
	}
	calls := resp.Message.ToolCalls()
	if len(calls) != 2 || calls[0].ID != "call_1" || calls[1].ID != "call_2" || calls[0].Name != "bash" ||
		string(calls[0].Input) != `{"command": "go test ./..."}` {
		t.Errorf("calls = %+v", calls)
	}
	if resp.StopReason != llm.StopToolUse {
		t.Errorf("stop = %q", resp.StopReason)
	}
	if resp.Usage.InputTokens <= 0 || resp.Usage.OutputTokens <= 0 {
		t.Errorf("usage = %+v", resp.Usage)
	}

	req := userReq("please run the tests")
	req.Messages = append(req.Messages, resp.Message, llm.Message{Role: llm.User, Parts: []llm.Part{
		{Type: llm.ToolResult, ID: "call_1", Text: "ok 1 pkg 0.1s"},
		{Type: llm.ToolResult, ID: "call_2", Text: "package a"},
	}})
	resp2, err := m.Stream(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp2.StopReason != llm.StopEnd || resp2.Message.TextOf() != "All tests pass." {
		t.Errorf("second response = %+v", resp2)
	}

	resp3, err := m.Stream(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := resp3.Message.ToolCalls()
	if len(c) != 1 || c[0].ID != "call_3" || string(c[0].Input) != "{}" ||
		!strings.HasPrefix(c[0].InputError, `invalid JSON arguments for tool "edit": unexpected end of input`) {
		t.Errorf("call-raw = %+v", c)
	}

	_, err = m.Stream(ctx, req, nil)
	if err == nil || err.Error() != "scripted model: script.txt has 3 responses; a 4th was requested" {
		t.Errorf("exhausted err = %v", err)
	}
}

func TestExpectFailures(t *testing.T) {
	tests := []struct {
		name, script, prompt, want string
	}{
		{"expect", "say x\n---\n\nexpect go test\nsay y\n", "hello there",
			`scripted model: script.txt:4: "go test" not found in the last message; received: "hello there"`},
		{"expect-not", "say x\n---\nexpect-not PASS\nsay y\n", "PASS ok",
			`scripted model: script.txt:3: "PASS" found in the last message; received: "PASS ok"`},
		{"expect-any", "say x\n---\nexpect-any nowhere\nsay y\n", "hi",
			`scripted model: script.txt:3: "nowhere" not found in the conversation; received: "you are chanto\nhi"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustParse(t, tt.script)
			if _, err := m.Stream(context.Background(), userReq("first"), nil); err != nil {
				t.Fatal(err)
			}
			_, err := m.Stream(context.Background(), userReq(tt.prompt), nil)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v\nwant  %s", err, tt.want)
			}
		})
	}
}

func TestExpectTrimsLongInput(t *testing.T) {
	m := mustParse(t, "expect needle\nsay x\n")
	_, err := m.Stream(context.Background(), userReq(strings.Repeat("hay ", 1000)+"END"), nil)
	if err == nil || len(err.Error()) > 600 || !strings.Contains(err.Error(), `END"`) {
		t.Errorf("err = %v", err)
	}
}

func TestSleepHonoursCancel(t *testing.T) {
	m := mustParse(t, "say before\nsleep 10s\nsay after\n")
	ctx, cancel := context.WithCancel(context.Background())
	var got []string
	start := time.Now()
	_, err := m.Stream(ctx, userReq("x"), func(d llm.Delta) {
		got = append(got, d.Text)
		cancel() // interrupt as soon as text arrives
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > 2*time.Second || strings.Join(got, "") != "before" {
		t.Errorf("took %v, deltas %q", time.Since(start), got)
	}
}

func TestSleepWaits(t *testing.T) {
	m := mustParse(t, "sleep 30ms\nsay done\n")
	start := time.Now()
	if _, err := m.Stream(context.Background(), userReq("x"), nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("returned after %v, want >= 30ms", d)
	}
}

func TestStopAndFail(t *testing.T) {
	m := mustParse(t, "say cut\nstop max_tokens\n---\nfail 529 overloaded\n---\nfail 400 bad tool schema\n")
	resp, err := m.Stream(context.Background(), userReq("x"), nil)
	if err != nil || resp.StopReason != llm.StopMaxTokens {
		t.Fatalf("resp = %+v, err = %v", resp, err)
	}
	_, err = m.Stream(context.Background(), userReq("x"), nil)
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Status != 529 || !ae.Retryable || err.Error() != "scripted: overloaded (529): overloaded" {
		t.Errorf("fail 529: %v", err)
	}
	_, err = m.Stream(context.Background(), userReq("x"), nil)
	if llm.IsRetryable(err) || err.Error() != "scripted: bad request (400): bad tool schema" {
		t.Errorf("fail 400: %v", err)
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		"":                {""},
		"one":             {"one"},
		"I'll run tests.": {"I'll", " run", " tests."},
		"\nnext  line ":   {"\nnext", "  line", " "},
	} {
		got := splitWords(in)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
}
