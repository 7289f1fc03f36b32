package tui

import (
	"fmt"
	"runtime"
	"sort"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"golang.org/x/sys/unix"

	"github.com/chanto-dev/chanto/internal/app"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/llm"
)

// Benchmarks of the live region (docs/benchmarks.md has the figures):
//
//	go test ./internal/tui -run '^$' -bench . -benchtime 2000x

// loaded is a model on a session whose transcript holds n messages.
func loaded(b *testing.B, n int) *model {
	b.Helper()
	dir := project(b)
	m := newTestModel(b, dir, "say hi\n", nil)
	for i := 0; i < n; i++ {
		role := llm.User
		if i%2 == 1 {
			role = llm.Assistant
		}
		if err := m.opts.App.Transcript.Append(llm.Message{Role: role, Parts: []llm.Part{{Type: llm.Text, Text: fmt.Sprintf("message %d with some words in it", i)}}}); err != nil {
			b.Fatal(err)
		}
	}
	m.sess.Interrupt()
	m.record = false
	m.Update(m.build(m.opts.App)().(builtMsg))
	if got := len(m.sess.Messages()); got != n {
		b.Fatalf("session holds %d messages, want %d", got, n)
	}
	return m
}

// p99 reports the 99th percentile of ds as a metric.
func p99(b *testing.B, ds []time.Duration) {
	p99As(b, ds, "p99-µs")
}

func p99As(b *testing.B, ds []time.Duration, unit string) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), unit)
}

// threadCPU is the CPU time the calling thread has used. Wall-clock
// percentiles on a loaded machine measure the wait for a core; the
// thread's own CPU time per keystroke does not depend on the load.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// BenchmarkKeystroke is a key press to the next frame, with a
// 1,000-message session loaded.
func BenchmarkKeystroke(b *testing.B) {
	m := loaded(b, 1000)
	m.usage = make([]event.Usage, 200) // a long session's turns in the footer
	ds := make([]time.Duration, 0, b.N)
	cpu := make([]time.Duration, 0, b.N)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start, c0 := time.Now(), threadCPU()
		m.Update(tea.KeyPressMsg{Code: 'a', Text: "a"})
		_ = m.View()
		ds = append(ds, time.Since(start))
		cpu = append(cpu, threadCPU()-c0)
		if i%200 == 199 {
			m.input.Reset()
		}
	}
	p99(b, ds)
	var sum time.Duration
	for _, c := range cpu {
		sum += c
	}
	b.ReportMetric(float64(sum.Microseconds())/float64(len(cpu)), "cpu-µs/op")
	p99As(b, cpu, "p99-cpu-µs")
}

// BenchmarkStreamToken is one streamed token folded in and a frame drawn,
// the reply growing to 4,000 tokens (500 tokens/s is 2 ms a token).
func BenchmarkStreamToken(b *testing.B) {
	m := loaded(b, 1000)
	m.turn = turnView{busy: true, started: now(), inputs: map[string][]byte{}}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%4000 == 0 {
			m.turn.reply.Reset()
		}
		start := time.Now()
		m.onUpdate(app.Update{Event: &event.Event{Type: event.MessageDelta, Text: "word "}})
		_ = m.View()
		ds = append(ds, time.Since(start))
	}
	p99(b, ds)
}

// BenchmarkStart is a new model, its session built over a 1,000-message
// transcript, to the first frame.
func BenchmarkStart(b *testing.B) {
	m := loaded(b, 1000)
	o := m.opts
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := newModel(o)
		n.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		msg := n.build(o.App)().(builtMsg)
		n.Update(msg)
		_ = n.View()
	}
}
