package tui

import (
	"strings"
	"testing"
	"time"
)

// A subagent nested under its task line, a failed command's tail with
// the Ctrl+O hint, the transcript view with the whole output, and the
// scrollback unchanged (nothing twice) after it closes and after resizes.
func TestTmuxSubagentAndTranscriptView(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	dir := project(t)
	script := writeScript(t, `say I'll ask a subagent.
call task {"description":"find Add","prompt":"find the Add function","subagent_type":"explore"}
---
sleep 1500ms
call read {"path":"calc.go"}
---
say Add is in calc.go.
---
call bash {"command":"seq 101 140; exit 3"}
---
say # Found
say
say **Add** is in `+"`calc.go`"+`:
say
say `+"```go"+`
say func Add(a, b int) int
say `+"```"+`
`)
	tm := startTerm(t, dir, 80, 24, "--model", "scripted:"+script, "--permission-mode", "bypass", "--sandbox", "off")
	tm.wait(" out")
	tm.typeLine("where is add")
	tm.wait("↳ explore · find Add · ")
	s := tm.wait("func Add(a, b int) int")
	for _, want := range []string{"● Task find Add\n  ↳ explore · find Add: 1 step, ", "… 33 lines above · Ctrl+O shows all", "│ 140", "# Found", "**Add** is in `calc.go`:"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	tm.keys("C-o")
	tm.wait("transcript · ")
	tm.keys("g")
	s = tm.wait("│ 101")
	if !strings.Contains(s, "    ● Read calc.go (4 lines)") {
		t.Errorf("the transcript view lacks the subagent's step:\n%s", s)
	}
	tm.keys("Escape")
	tm.wait(" out")
	for _, size := range [][2]int{{20, 6}, {40, 12}, {120, 40}} {
		tm.resize(size[0], size[1])
		time.Sleep(200 * time.Millisecond)
	}
	s = tm.wait("? keys")
	if strings.Count(s, "› where is add") != 1 || strings.Count(s, "● Task find Add") != 1 || strings.Contains(s, "transcript · ") {
		t.Errorf("the scrollback changed after the transcript view:\n%s", s)
	}
}

// On a 20×6 screen a turn that prints more lines than the screen has
// leaves nothing of the live region in the scrollback.
func TestTmuxTinyScreenLeavesNoFramePieces(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	dir := project(t)
	script := writeScript(t, `say Let me look at the code first and then fix it.
call read {"path":"calc.go"}
---
sleep 300ms
call bash {"command":"seq 1 12; exit 1"}
---
say Here is a longer answer that wraps over several lines of the small screen.
say
say And a second paragraph.
`)
	tm := startTerm(t, dir, 20, 6, "--model", "scripted:"+script, "--permission-mode", "bypass", "--sandbox", "off")
	tm.wait("? keys")
	tm.typeLine("fix the code please now")
	tm.wait("paragraph.")
	time.Sleep(500 * time.Millisecond)
	s := tm.screen()
	for _, piece := range []string{"working…", "Run seq"} {
		if strings.Contains(s, piece) {
			t.Errorf("the scrollback holds %q from the live region:\n%s", piece, s)
		}
	}
	if n := strings.Count(s, "› Ask chanto"); n != 1 {
		t.Errorf("the input shows %d times:\n%s", n, s)
	}
	for _, want := range []string{"│ 6", "│ 12", "screen.", "› fix the code"} {
		if !strings.Contains(s, want) {
			t.Errorf("the scrollback lacks %q:\n%s", want, s)
		}
	}
}
