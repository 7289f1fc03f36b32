package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chanto-dev/chanto/internal/event"
)

// On a terminal the model's text streams and tool calls show on stderr:
// none of it may carry a raw escape sequence, a split CRLF stays a line
// end, and long summaries are cut by character.
func TestLiveTextIsNeutralised(t *testing.T) {
	var out, errOut bytes.Buffer
	o := &textOutput{out: &out, err: &errOut, live: true}
	for _, d := range []string{"see \x1b]0;own", "ed\x07 now\r", "\nnext ", "\xe2\x9c", "\x93"} {
		o.Emit(event.Event{Type: event.MessageDelta, Text: d})
	}
	o.Emit(event.Event{Type: event.MessageCompleted})
	long, _ := json.Marshal(map[string]string{"command": "echo " + strings.Repeat("é", 200)})
	o.Emit(event.Event{Type: event.ToolStarted, Tool: &event.Tool{Name: "bash", Input: long}})
	o.Emit(event.Event{Type: event.ToolCompleted, Tool: &event.Tool{Name: "bash", IsError: true, Output: "\x1b[2Jboom"}})

	if got, want := out.String(), "see \\x1b]0;owned\\x07 now\nnext ✓\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	e := errOut.String()
	if strings.ContainsRune(e, 0x1b) || !utf8.ValidString(e) {
		t.Errorf("stderr not clean: %q", e)
	}
	if !strings.Contains(e, "✗ bash: \\x1b[2Jboom") {
		t.Errorf("stderr: %q", e)
	}
	first, _, _ := strings.Cut(e, "\n")
	if n := utf8.RuneCountInString(strings.TrimPrefix(first, "  ▸ bash ")); n != 120 {
		t.Errorf("summary of %d characters: %q", n, first)
	}
}
