package goal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify"
)

// outputCap bounds the output kept from a criterion's command.
const outputCap = 256 << 10

// fileCap bounds how much of a file a File criterion reads.
const fileCap = 8 << 20

// Options say where and how criteria run.
type Options struct {
	// Root is the project folder commands run in and paths are relative to.
	Root string
	// Runner runs the commands the way checks run: the sandbox, an
	// environment without secret-named variables, the check approval.
	Runner *run.Runner
	// Timeout bounds each command or test run; 0 means verify.DefaultTimeout.
	Timeout time.Duration
	// Events receives goal.criterion events; nil drops them.
	Events    event.Sink
	SessionID string
	Turn      int
}

// Result is one criterion as it ran.
type Result struct {
	Index     int
	Criterion Criterion
	Passed    bool
	// Why says what did not hold ("it exited 1", "it did not run: no test
	// of that name was collected"); empty when it passed.
	Why string
	// Output is the command's or test run's output, trimmed.
	Output   string
	Duration time.Duration
}

// Outcome is a goal's criteria as they ran: in order, up to and including
// the first that did not hold.
type Outcome struct {
	Results []Result
	// Total is how many criteria the goal has.
	Total int
}

// Met reports whether every criterion held.
func (o Outcome) Met() bool {
	return len(o.Results) == o.Total && (o.Total == 0 || o.Results[o.Total-1].Passed)
}

// Unmet is the criterion that did not hold, nil when all did.
func (o Outcome) Unmet() *Result {
	if n := len(o.Results); n > 0 && !o.Results[n-1].Passed {
		return &o.Results[n-1]
	}
	return nil
}

// Held lists the criteria that held, as the evidence names them.
func (o Outcome) Held() []string {
	var out []string
	for _, r := range o.Results {
		if r.Passed {
			out = append(out, r.Criterion.heldText())
		}
	}
	return out
}

// Check runs the goal's criteria in order and stops at the first that does
// not hold. An error means the criteria could not be run at all (ctx
// ended); a criterion that fails or cannot run is a Result that did not
// pass.
func Check(ctx context.Context, g *Goal, opts Options) (Outcome, error) {
	if opts.Runner == nil {
		opts.Runner = &run.Runner{}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = verify.DefaultTimeout
	}
	out := Outcome{Total: len(g.Criteria)}
	for i, c := range g.Criteria {
		start := time.Now()
		r, err := check(ctx, c, opts)
		if err != nil {
			return out, err
		}
		r.Index, r.Criterion = i, c
		if r.Duration == 0 {
			r.Duration = time.Since(start)
		}
		r.Output = verify.TrimOutput(r.Output)
		out.Results = append(out.Results, r)
		if opts.Events != nil {
			opts.Events.Emit(event.Event{Type: event.GoalCriterion, SessionID: opts.SessionID, Turn: opts.Turn, Time: time.Now(),
				Criterion: &event.Criterion{Index: i, Kind: string(c.Kind), Criterion: c.String(), Passed: r.Passed, Why: r.Why, Output: r.Output, DurationMS: r.Duration.Milliseconds()}})
		}
		if !r.Passed {
			break
		}
	}
	return out, nil
}

func check(ctx context.Context, c Criterion, opts Options) (Result, error) {
	switch c.Kind {
	case Command, Output:
		return checkCommand(ctx, c, opts)
	case Test:
		nt, err := verify.RunNamedTest(ctx, verify.Options{Root: opts.Root, Runner: opts.Runner, Timeout: opts.Timeout}, c.Test)
		if err != nil {
			return Result{}, err
		}
		return Result{Passed: nt.Passed, Why: nt.Why, Output: nt.Output, Duration: nt.Duration}, nil
	case File:
		return checkFile(c, opts.Root), nil
	}
	return Result{Why: "unknown kind " + string(c.Kind)}, nil
}

func checkCommand(ctx context.Context, c Criterion, opts Options) (Result, error) {
	res, err := opts.Runner.Run(ctx, run.Spec{Shell: c.Command, Dir: opts.Root, Timeout: opts.Timeout, Purpose: run.Check, OutputCap: outputCap, Combined: true})
	var refused *run.RefusedError
	var nf *run.NotFoundError
	switch {
	case errors.As(err, &refused):
		return Result{Why: "it was refused: " + refused.Reason}, nil
	case errors.As(err, &nf):
		return Result{Why: nf.Name + " is not installed"}, nil
	case err != nil && ctx.Err() != nil:
		return Result{}, err
	case err != nil:
		return Result{Why: "it could not run: " + err.Error()}, nil
	}
	r := Result{Output: string(res.Output), Duration: res.Duration}
	switch {
	case res.TimedOut:
		r.Why = fmt.Sprintf("it timed out after %s", opts.Timeout)
	case c.Kind == Command && res.ExitCode != 0:
		r.Why = fmt.Sprintf("it exited %d", res.ExitCode)
	case c.Kind == Output && !regexp.MustCompile("(?m)"+c.Pattern).Match(res.Output):
		r.Why = fmt.Sprintf("its output did not match /%s/ (it exited %d)", c.Pattern, res.ExitCode)
	default:
		r.Passed = true
	}
	return r, nil
}

func checkFile(c Criterion, root string) Result {
	p := c.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return Result{Why: "it does not exist"}
	}
	if err != nil {
		return Result{Why: "it could not be read: " + err.Error()}
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		if c.Pattern != "" {
			return Result{Why: "it is a folder"}
		}
		return Result{Passed: true}
	}
	if c.Pattern == "" {
		return Result{Passed: true}
	}
	data := make([]byte, fileCap)
	n, _ := f.Read(data)
	for n < fileCap {
		m, err := f.Read(data[n:])
		n += m
		if err != nil || m == 0 {
			break
		}
	}
	if !regexp.MustCompile("(?m)" + c.Pattern).Match(data[:n]) {
		return Result{Why: fmt.Sprintf("its content does not match /%s/", c.Pattern)}
	}
	return Result{Passed: true}
}

// heldText is how the evidence names a criterion that held.
func (c Criterion) heldText() string {
	switch c.Kind {
	case Command:
		return "`" + c.Command + "` exited 0"
	case Output:
		return "`" + c.Command + "` printed /" + c.Pattern + "/"
	case Test:
		return c.Test + " passed"
	case File:
		if c.Pattern != "" {
			return c.Path + " has /" + c.Pattern + "/"
		}
		return c.Path + " exists"
	}
	return c.String()
}

// Subject names a criterion in a sentence about it not holding.
func (c Criterion) Subject() string {
	switch c.Kind {
	case Command, Output:
		return "`" + c.Command + "`"
	case Test:
		return "the test " + c.Test
	}
	return c.Path
}

// Unmet is "criterion 2 of 3 not met: the test TestParse: it did not run:
// no test of that name was collected" for the evidence.
func (o Outcome) UnmetText() string {
	u := o.Unmet()
	if u == nil {
		return ""
	}
	return fmt.Sprintf("goal criterion %d of %d not met: %s: %s", u.Index+1, o.Total, u.Criterion.Subject(), strings.TrimSuffix(u.Why, "."))
}

// End is the goal.result event's payload; budget names the limit that
// ran out, if one did.
func (o Outcome) End(budget string) *event.GoalEnd {
	end := &event.GoalEnd{Met: o.Met(), Held: o.Held(), Budget: budget}
	if end.Held == nil {
		end.Held = []string{}
	}
	if u := o.Unmet(); u != nil {
		end.Unmet, end.Why = u.Criterion.String(), u.Why
	}
	return end
}

// Info is the goal as the goal.set event carries it.
func (g *Goal) Info() *event.Goal {
	info := &event.Goal{Statement: g.Statement, Criteria: []string{}, MaxTurns: g.MaxTurns, MaxTokens: g.MaxTokens, Source: g.Source}
	for _, c := range g.Criteria {
		info.Criteria = append(info.Criteria, c.String())
	}
	return info
}
