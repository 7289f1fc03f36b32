package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/safetext"
)

// runResult is what a print-mode run ends with, whatever the format.
type runResult struct {
	Answer    string
	Verdict   string
	Evidence  string
	Usage     event.Usage
	SessionID string
	ExitCode  int
	NumTurns  int
	Err       error
}

// output renders a print-mode run in one format. Events go to Emit as they
// happen; finish is called once at the end.
type output interface {
	event.Sink
	finish(r runResult)
}

func newOutput(format string, std *stdio) output {
	switch format {
	case formatJSON:
		return &jsonOutput{out: std.out}
	case formatStreamJSON:
		return &streamOutput{jsonl: event.NewJSONL(std.out)}
	default:
		return &textOutput{out: std.out, err: std.err, live: isTerminal(std.out)}
	}
}

// textOutput prints the answer, then, when the turn ends not verified, the
// failing checks' output, then the evidence line. On a terminal the
// model's text is streamed as it arrives and tool calls are shown on
// stderr; otherwise the final answer is printed once at the end.
type textOutput struct {
	out, err io.Writer
	live     bool

	mu       sync.Mutex
	streamed bool // something was streamed since the last newline
	text     safetext.Stream
	verdict  lastVerdict
}

func (t *textOutput) Emit(e event.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.verdict.see(e)
	if !t.live {
		return
	}
	switch e.Type {
	case event.MessageDelta:
		if text := t.text.Clean(e.Text); text != "" {
			fmt.Fprint(t.out, text)
			t.streamed = !strings.HasSuffix(text, "\n")
		}
	case event.MessageCompleted:
		if text := t.text.Flush(); text != "" {
			fmt.Fprint(t.out, text)
			t.streamed = !strings.HasSuffix(text, "\n")
		}
		if t.streamed {
			fmt.Fprintln(t.out)
			t.streamed = false
		}
	case event.ToolStarted:
		fmt.Fprintf(t.err, "  ▸ %s %s\n", safetext.Line(e.Tool.Name), toolSummary(e.Tool.Input))
	case event.ToolCompleted:
		if e.Tool.IsError {
			fmt.Fprintf(t.err, "  ✗ %s: %s\n", safetext.Line(e.Tool.Name), safetext.FirstLine(e.Tool.Output, 120))
		}
	}
}

func (t *textOutput) finish(r runResult) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.live && r.Answer != "" {
		fmt.Fprintln(t.out, safetext.Clean(r.Answer))
	}
	if r.Evidence != "" {
		if r.Answer != "" {
			fmt.Fprintln(t.out)
		}
		printFailures(t.out, t.verdict.failures(r.Verdict))
		fmt.Fprintln(t.out, safetext.Line(r.Evidence))
	}
}

// lastVerdict remembers the main agent's last verify.result, whose
// failures are shown when the run ends not verified.
type lastVerdict struct {
	end *event.VerifyEnd
}

func (l *lastVerdict) see(e event.Event) {
	if e.Type == event.VerifyResult && e.ParentToolID == "" && e.SubagentID == "" && e.Verify != nil {
		l.end = e.Verify
	}
}

// failures are the failing checks to show for a run that ended with
// verdict: none unless it is not verified.
func (l *lastVerdict) failures(verdict string) []event.Failure {
	if verdict != string(agent.NotVerified) || l.end == nil || l.end.Failures == nil {
		return []event.Failure{}
	}
	return l.end.Failures
}

// printFailures shows each failing check's output, trimmed as the model
// got it, under a shell-like header, before the evidence line.
//
//	$ go test ./...
//	--- FAIL: TestAdd (0.00s)
//	    m_test.go:6: Add(2, 3) = -1, want 5
func printFailures(w io.Writer, fs []event.Failure) {
	for _, f := range fs {
		if f.Output == "" {
			continue
		}
		prompt := "$ "
		if f.Dir != "" {
			prompt = f.Dir + "$ "
		}
		fmt.Fprintln(w, safetext.Line(prompt+f.Check))
		fmt.Fprintln(w, safetext.Clean(f.Output))
		fmt.Fprintln(w)
	}
}

// streamOutput writes only JSONL events to stdout; it closes the stream with
// an error event (if any) and session.completed.
type streamOutput struct {
	jsonl *event.JSONL
}

func (s *streamOutput) Emit(e event.Event) { s.jsonl.Emit(e) }

func (s *streamOutput) finish(r runResult) {
	now := time.Now().UTC()
	if r.Err != nil {
		s.jsonl.Emit(event.Event{Type: event.Error, SessionID: r.SessionID, Time: now, Error: r.Err.Error()})
	}
	code := r.ExitCode
	s.jsonl.Emit(event.Event{Type: event.SessionCompleted, SessionID: r.SessionID, Time: now, ExitCode: &code})
}

// jsonOutput prints one object at the end (docs/json-output.md).
type jsonOutput struct {
	out io.Writer

	mu      sync.Mutex
	verdict lastVerdict
	review  *event.Review
}

// jsonResult is the stable shape of --output-format json.
type jsonResult struct {
	Result   string `json:"result"`
	Verdict  string `json:"verdict"`
	Evidence string `json:"evidence"`
	// Failures are the failing checks' output when the verdict is
	// not_verified, else empty.
	Failures  []event.Failure `json:"failures"`
	Usage     event.Usage     `json:"usage"`
	SessionID string          `json:"session_id"`
	ExitCode  int             `json:"exit_code"`
	NumTurns  int             `json:"num_turns"`
	// Review is the oracle's review of the turn's diff ([guardrails]
	// oracle = true), absent when none ran or was skipped.
	Review *event.Review `json:"review,omitempty"`
	Error  string        `json:"error,omitempty"`
}

func (j *jsonOutput) Emit(e event.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.verdict.see(e)
	if e.Type == event.ReviewCompleted && e.SubagentID == "" {
		j.review = e.Review
	}
}

func (j *jsonOutput) finish(r runResult) {
	j.mu.Lock()
	defer j.mu.Unlock()
	res := jsonResult{Result: r.Answer, Verdict: r.Verdict, Evidence: r.Evidence, Usage: r.Usage,
		SessionID: r.SessionID, ExitCode: r.ExitCode, NumTurns: r.NumTurns, Failures: j.verdict.failures(r.Verdict), Review: j.review}
	if r.Err != nil {
		res.Error = r.Err.Error()
	}
	_ = writeJSON(j.out, res)
}

// toolSummary shows a call's main argument on one line.
func toolSummary(input json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "path", "file_path", "pattern"} {
		if s, ok := m[k].(string); ok {
			return safetext.FirstLine(s, 120)
		}
	}
	return ""
}

// diag writes one diagnostic to w (stderr) as "chanto: MESSAGE". The
// message often carries text chanto did not write (file names, a
// provider's or a hook's words), so it goes through safetext.
func diag(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "chanto: %s\n", safetext.Clean(fmt.Sprintf(format, args...)))
}

// writeJSON prints v as indented JSON, with the characters a terminal
// would act on escaped (safetext.JSON).
func writeJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(safetext.JSON(data), '\n'))
	return err
}
