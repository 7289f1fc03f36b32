package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
)

// endResult is what the end-to-end run showed.
type endResult struct {
	pkgs                int
	wall                time.Duration
	fromModel, executed int
	gate                time.Duration // verify.started to verify.result
	final               time.Duration // last tool.completed to verify.result
	verdict, evidence   string
	exitCode            int
}

// e2eScript is the scripted model: an edit, then the project's own checks,
// plain and covering, then the answer.
const e2eScript = `call read {"path":"pkg003/f2.go"}
---
call edit {"path":"pkg003/f2.go","old_string":"return 2 }","new_string":"return 1 + 1 }"}
---
call bash {"command":"go vet ./..."}
---
call bash {"command":"go test ./..."}
---
say Done; go vet and go test pass.
`

// endToEnd builds chanto and runs one print-mode turn with --verify.
func (b *bench) endToEnd(ctx context.Context) (endResult, error) {
	e := endResult{pkgs: b.opts.e2ePkgs}
	bin, err := b.binary(ctx)
	if err != nil {
		return e, err
	}
	root := filepath.Join(b.work, "small")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return e, err
	}
	if err := module(ctx, b.r, root, b.opts.e2ePkgs, 5); err != nil {
		return e, err
	}
	script := filepath.Join(b.work, "e2e.script")
	if err := os.WriteFile(script, []byte(e2eScript), 0o644); err != nil {
		return e, err
	}
	fmt.Fprintln(b.log, "chanto -p --verify with the model's own go vet and go test ...")
	var stdout bytes.Buffer
	start := time.Now()
	res, err := b.r.Run(ctx, run.Spec{Args: []string{bin, "-p", "change F2", "--verify", "--model", "scripted:" + script,
		"--permission-mode", "bypass", "--output-format", "stream-json"}, Dir: root, Stdout: &stdout, Purpose: run.Internal, Timeout: 10 * time.Minute})
	e.wall = time.Since(start)
	if err != nil {
		return e, err
	}
	e.exitCode = res.ExitCode
	if err := e.readEvents(&stdout); err != nil {
		return e, err
	}
	if data, err := os.ReadFile(filepath.Join(root, "pkg003", "f2.go")); err != nil || !bytes.Contains(data, []byte("return 1 + 1 }")) {
		return e, fmt.Errorf("the scripted edit did not apply (%v)", err)
	}
	if e.verdict == "" {
		return e, fmt.Errorf("no verify.result event (exit %d)\n%s", res.ExitCode, res.Output)
	}
	return e, nil
}

// binary is -chanto, or ./cmd/chanto built into the work folder. The build
// is tried twice: on this shared machine another build trimming the cache
// at the same moment has made one fail.
func (b *bench) binary(ctx context.Context) (string, error) {
	if b.opts.chanto != "" {
		return b.opts.chanto, nil
	}
	bin := filepath.Join(b.work, "chanto")
	fmt.Fprintln(b.log, "building ./cmd/chanto ...")
	var res run.Result
	var err error
	for try := 0; try < 2; try++ {
		res, err = b.r.Run(ctx, run.Spec{Args: []string{"go", "build", "-o", bin, "./cmd/chanto"}, Purpose: run.Internal, Timeout: 10 * time.Minute})
		if err == nil && res.ExitCode == 0 {
			return bin, nil
		}
	}
	if err != nil {
		return "", err
	}
	return "", fmt.Errorf("go build: exit %d\n%s", res.ExitCode, res.Output)
}

// event is the part of a stream-json line the benchmark reads.
type event struct {
	Type  string    `json:"type"`
	Time  time.Time `json:"time"`
	Check *struct {
		Command      string `json:"command"`
		FromModelRun bool   `json:"from_model_run"`
	} `json:"check"`
	Verify *struct {
		Verdict  string `json:"verdict"`
		Evidence string `json:"evidence"`
	} `json:"verify"`
}

func (e *endResult) readEvents(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var started, lastTool time.Time
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return fmt.Errorf("stdout is not JSONL: %v: %q", err, sc.Bytes())
		}
		switch ev.Type {
		case "tool.completed":
			lastTool = ev.Time
		case "verify.started":
			started = ev.Time
		case "verify.check":
			if ev.Check != nil && ev.Check.FromModelRun {
				e.fromModel++
			} else {
				e.executed++
			}
		case "verify.result":
			if !started.IsZero() {
				e.gate = ev.Time.Sub(started)
			}
			if !lastTool.IsZero() {
				e.final = ev.Time.Sub(lastTool)
			}
			if ev.Verify != nil {
				e.verdict, e.evidence = ev.Verify.Verdict, ev.Verify.Evidence
			}
		}
	}
	return sc.Err()
}

func printEndToEnd(w io.Writer, e endResult) {
	fmt.Fprintf(w, "end to end: chanto -p --verify, %d-package module, the model runs go vet ./... and go test ./... after its edit\n\n", e.pkgs)
	fmt.Fprintln(w, "| figure | value |")
	fmt.Fprintln(w, "|---|---|")
	fmt.Fprintf(w, "| verify.check events from the model's run | %d |\n", e.fromModel)
	fmt.Fprintf(w, "| verify.check events executed by the gate | %d |\n", e.executed)
	fmt.Fprintf(w, "| verify.started → verify.result | %s |\n", ms(e.gate))
	fmt.Fprintf(w, "| last tool.completed → verify.result (final update, planning, cold selection, gate) | %s |\n", ms(e.final))
	fmt.Fprintf(w, "| whole run, wall | %s |\n", ms(e.wall))
	fmt.Fprintf(w, "| verdict, exit code | %s, %d |\n", e.verdict, e.exitCode)
	fmt.Fprintf(w, "| evidence | %s |\n", e.evidence)
}
