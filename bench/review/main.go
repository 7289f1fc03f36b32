// Command review measures what the oracle's review adds to a verified
// turn beyond the model calls: the same turn (one write, a final answer,
// the gate with the check `true`) with [guardrails] oracle on and off,
// both models instant, in process. The difference is the harness's part of
// a review: the turn's diff, the subagent's set-up, its events and the
// send-back-free path to the gate. It also counts oracle model calls per
// turn: one with a change, none without.
//
//	go run ./bench/review [-n 200]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/agents"
	"github.com/chanto-dev/chanto/internal/gate"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/tool"
)

// instant answers at once: the main model writes a file and then answers,
// the oracle says LGTM.
type instant struct {
	name  string
	calls atomic.Int64
	write func() string // "" answers instead of writing
}

func (m *instant) Name() string             { return m.name }
func (m *instant) ContextWindow(string) int { return 200000 }
func (m *instant) Stream(_ context.Context, req llm.Request, _ func(llm.Delta)) (llm.Response, error) {
	m.calls.Add(1)
	last := req.Messages[len(req.Messages)-1]
	if m.write != nil && last.Role == llm.User && last.Parts[0].Type == llm.Text {
		in, _ := json.Marshal(map[string]string{"path": "notes.txt", "content": m.write()})
		return llm.Response{StopReason: llm.StopToolUse, Message: llm.Message{Parts: []llm.Part{{Type: llm.ToolUse, ID: "w", Name: "write", Input: in}}}}, nil
	}
	text := "Done."
	if m.write == nil {
		text = "LGTM"
	}
	return llm.Response{StopReason: llm.StopEnd, Message: llm.Message{Parts: []llm.Part{{Type: llm.Text, Text: text}}}}, nil
}

func main() {
	n := flag.Int("n", 200, "turns per setting")
	flag.Parse()
	dir, err := os.MkdirTemp("", "bench-review-")
	check(err)
	defer os.RemoveAll(dir)
	for _, f := range []struct{ name, body string }{{"go.mod", "module m\n"}, {"m.go", "package m\n\nfunc F() int { return 1 }\n"}} {
		check(os.WriteFile(filepath.Join(dir, f.name), []byte(f.body), 0o644))
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "i"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		check(cmd.Run())
	}
	fmt.Printf("%d turns per row, instant models, check `true`, sandbox off\n\n", *n)
	fmt.Println("| oracle | median turn | p90 turn | oracle calls per turn |")
	fmt.Println("|---|---|---|---|")
	var medians [2]time.Duration
	for i, on := range []bool{false, true} {
		med, p90, calls := turns(dir, on, *n)
		medians[i] = med
		fmt.Printf("| %v | %s | %s | %.2f |\n", on, ms(med), ms(p90), calls)
	}
	fmt.Printf("\nreview overhead beyond the model calls (median difference): %s\n", ms(medians[1]-medians[0]))
	_, _, idle := turnsNoChange(dir, *n/4)
	fmt.Printf("oracle calls per turn that changed nothing: %.2f\n", idle)
}

func turns(dir string, oracle bool, n int) (med, p90 time.Duration, callsPerTurn float64) {
	seq := 0
	mainModel := &instant{name: "main", write: func() string { seq++; return fmt.Sprintf("note %d\n", seq) }}
	rev := &instant{name: "rev"}
	var d []time.Duration
	for i := 0; i < n; i++ {
		a := newAgent(dir, mainModel, rev, oracle)
		start := time.Now()
		_, err := a.Run(context.Background(), "write a note")
		check(err)
		d = append(d, time.Since(start))
		check(os.Remove(filepath.Join(dir, "notes.txt")))
	}
	slices.Sort(d)
	return d[len(d)/2], d[len(d)*9/10], float64(rev.calls.Load()) / float64(n)
}

func turnsNoChange(dir string, n int) (time.Duration, time.Duration, float64) {
	rev := &instant{name: "rev"}
	for i := 0; i < n; i++ {
		a := newAgent(dir, &instant{name: "main", write: nil}, rev, true)
		// The main model here answers LGTM-like text at once: no change.
		_, err := a.Run(context.Background(), "say something")
		check(err)
	}
	return 0, 0, float64(rev.calls.Load()) / float64(n)
}

func newAgent(dir string, mainModel, rev llm.Provider, oracle bool) *agent.Agent {
	r := &run.Runner{}
	pol := gate.New(gate.Options{Verify: true, Oracle: oracle, Checks: []string{"true"}, Runner: r, Root: dir, ProtectTests: true})
	set := agents.NewSet(agents.Builtins("rev/instant")...)
	return agent.New(agent.Options{
		Provider: mainModel, Model: "instant", ModelSpec: "main/instant",
		Tools:  append(tool.Builtin(), agent.Task{Agents: set}),
		Env:    &tool.Env{Root: dir, Runner: r},
		Agents: set,
		OpenModel: func(string) (llm.Provider, string, error) {
			return rev, "instant", nil
		},
		ReadOnlyRunner: r,
		Policy:         pol,
		Approver:       yes{},
	})
}

type yes struct{}

func (yes) Approve(context.Context, tool.Tool, json.RawMessage) (bool, string) { return true, "" }

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/review:", err)
		os.Exit(1)
	}
}
