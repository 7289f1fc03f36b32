package tui

import (
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/event"
)

const sampleReply = "# Title\n\nSome **bold**, *emphasis* and `code` with a [link](https://example.com) in a line long enough to wrap at the width.\n\n## Steps\n\n- one\n- two\n  - nested\n- [x] done\n\n1. first\n2. second\n\n```go\nfunc main() {\n\tfmt.Println(\"hi\") // greet\n}\n```\n\n> a quote\n\n| file | change |\n|---|---|\n| calc.go | +1 −1 |\n\n---\n"

// The plain sheet keeps every mark in text: headings, emphasis, code.
func TestMarkdownPlainGolden(t *testing.T) {
	golden(t, "markdown-plain.golden", newMarkdown(true, false).render(sampleReply, 50)+"\n")
}

// The colour sheet is glamour's dark one: code blocks are highlighted
// token by token, and every styled span closes on its own line.
func TestMarkdownColourHighlightsCode(t *testing.T) {
	out := newMarkdown(false, false).render(sampleReply, 50)
	golden(t, "markdown-dark.golden", out+"\n")
	var code string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "func") {
			code = l
		}
	}
	// glamour's dark theme: keywords #00AAFF, function names #00D787.
	for _, want := range []string{"\x1b[38;2;0;170;255mfunc\x1b[m", "\x1b[38;2;0;215;135mmain\x1b[m"} {
		if !strings.Contains(code, want) {
			t.Errorf("code line %q lacks %q", code, want)
		}
	}
	for n, l := range strings.Split(out, "\n") {
		if i := strings.LastIndex(l, "\x1b["); i >= 0 && !strings.HasPrefix(l[i:], "\x1b[m") {
			t.Errorf("line %d leaves a style open: %q", n, l)
		}
	}
	light := newMarkdown(false, true).render(sampleReply, 50)
	if light == out {
		t.Error("the light sheet renders like the dark one")
	}
}

func TestStreamBoundary(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // the finished part
	}{
		{"Hello", ""},
		{"Hello\n\nWor", ""},
		{"Hello\n\nWorld\n", "Hello\n\n"},
		{"Hello\n\nWorld\n\nAgain\n", "Hello\n\nWorld\n\n"},
		{"- a\n\n- b\n", ""}, // a loose list may go on
		{"Intro\n\n```go\nx := 1\n\ny := 2\n", "Intro\n\n"},
		{"```go\nx := 1\n\ny := 2\n", ""}, // a blank line inside a fence
		{"```go\nx\n```\n\nAfter\n", "```go\nx\n```\n\n"},
		{"Para\n\n    indented code\n", ""},
	} {
		if got := c.in[:streamBoundary(c.in)]; got != c.want {
			t.Errorf("streamBoundary(%q) keeps %q, want %q", c.in, got, c.want)
		}
	}
}

// A streaming reply reaches the scrollback block by block, rendered, and
// its completion prints only the rest: nothing twice, nothing lost.
func TestStreamedBlocksArePrintedOnce(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	m := newModel(Options{NoColor: true})
	m.record = true
	m.turn = turnView{busy: true, inputs: map[string][]byte{}, subSums: map[string][2]string{}}
	reply := "# Plan\n\nFirst I read.\n\nThen I **edit**.\n"
	for _, r := range reply {
		m.onEvent(&event.Event{Type: event.MessageDelta, Text: string(r)})
	}
	if len(m.printed) != 2 {
		t.Fatalf("printed while streaming: %q", m.printed)
	}
	if strings.Contains(m.frame(), "First I read") {
		t.Errorf("a committed block is still in the live region:\n%s", m.frame())
	}
	m.onEvent(&event.Event{Type: event.MessageCompleted, Text: reply})
	all := strings.Join(m.printed, "\n")
	for _, want := range []string{"# Plan", "First I read.", "Then I **edit**."} {
		if strings.Count(all, want) != 1 {
			t.Errorf("%q printed %d times:\n%s", want, strings.Count(all, want), all)
		}
	}
}
