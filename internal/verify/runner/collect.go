package runner

import (
	"bytes"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
)

// ExcerptTail is how much of the end of a run's output the evidence
// excerpt keeps; collectors keep the failing tests' own output apart when
// their text is longer.
const ExcerptTail = 8 << 10

// Failure names one failing test (or build) so runs can be compared.
type Failure struct {
	// ID is the stable identity: package and test, file and test, …
	ID string `json:"id"`
	// Name is the short name shown to people.
	Name string `json:"name"`
}

// Outcome is what reading a run's output found.
type Outcome struct {
	Failures []Failure
	// Passed are the tests that ran and passed, for the runners whose
	// results name them (go test -json, pytest's JUnit report, cargo
	// test, jest and vitest JSON); a goal's test criterion reads them.
	Passed []Failure
	// Secs is how long each test took by its ID, for the runners whose
	// report says (pytest's JUnit report); test selection weighs by it.
	Secs map[string]float64
	// Tests is how many tests ran; -1 when the runner does not say.
	Tests int
	// Text replaces the raw output for display (go test -json); "" keeps it.
	Text string
	// Excerpt is the failing tests' own output, shown before the tail.
	Excerpt string
	// Interrupted, when set, says that the run stopped before some of its
	// tests ran ("pytest stopped at its collection errors, so none of its
	// tests ran"): the failures named are all there is to know of it.
	Interrupted string
	// GoOn are the flags that make the runner go on past what stopped it
	// (--continue-on-collection-errors); the gate runs it again with them
	// when what stopped it was failing before the change too.
	GoOn []string
	// NoReport names the structured report the runner was asked for and
	// did not write ("the JUnit report (--junitxml)"): a run that exited
	// 0 without it verified nothing.
	NoReport string
	// scope is a text parser's current test binary, file or title.
	scope string
}

// Collector receives a run's stdout (stderr joined) while it runs and,
// once it ends, turns it and any report file into an Outcome.
type Collector interface {
	// Args returns argv with the machine-readable flags added.
	Args(user []string) []string
	// Stdout is where the run's output goes while it runs.
	Stdout() io.Writer
	// Finish reads what the run left.
	Finish(res run.Result) Outcome
}

// lineWriter calls fn with each complete line written to it; it keeps no
// more than one partial line, so megabytes of output cost nothing.
type lineWriter struct {
	fn   func(line []byte)
	part []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(w.part) < 1<<20 {
				w.part = append(w.part, p...)
			}
			break
		}
		line := p[:i]
		if len(w.part) > 0 {
			line = append(w.part, line...)
			w.part = w.part[:0]
		}
		w.fn(line)
		p = p[i+1:]
	}
	return n, nil
}

func (w *lineWriter) flush() {
	if len(w.part) > 0 {
		w.fn(w.part)
		w.part = nil
	}
}

// lineParser reads a runner's text output line by line; with no parse
// function it is the opaque collector, which names no failures.
type lineParser struct {
	parse func(line string, o *Outcome)
	o     Outcome
	w     *lineWriter
}

func (l *lineParser) Args(user []string) []string { return user }

func (l *lineParser) Stdout() io.Writer {
	l.o.Tests = -1
	l.w = &lineWriter{fn: func(b []byte) {
		if l.parse != nil {
			l.parse(string(b), &l.o)
		}
	}}
	return l.w
}

func (l *lineParser) Finish(run.Result) Outcome {
	// Checks run with stderr on the stdout pipe (run.Spec.Combined), so
	// the writer saw summaries runners print on stderr too (unittest).
	if l.w != nil {
		l.w.flush()
	}
	return l.o
}

// withExtraArgs appends flags to a command, after "--" for npm scripts.
func withExtraArgs(user []string, extra ...string) []string {
	out := append([]string(nil), user...)
	if len(out) > 0 && filepath.Base(out[0]) == "npm" && !slices.Contains(out, "--") {
		out = append(out, "--")
	}
	return append(out, extra...)
}

func appendUnique(list []Failure, f Failure) []Failure {
	for _, g := range list {
		if g.ID == f.ID {
			return list
		}
	}
	return append(list, f)
}

// dropContaining removes the lines that mention s (the report file chanto
// asked for, which the user never did).
func dropContaining(text, s string) string {
	if !strings.Contains(text, s) {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
