package tool

import (
	"context"
	"encoding/json"
	"testing"
)

// BenchmarkBashEcho measures one bash tool call of `echo hi`: temp file,
// bash start, cwd read-back.
func BenchmarkBashEcho(b *testing.B) {
	b.Setenv("CHANTO_HOME", b.TempDir())
	env := &Env{Root: b.TempDir(), Runner: newRunner()}
	in := json.RawMessage(`{"command":"echo hi"}`)
	for b.Loop() {
		if res, err := (Bash{}).Run(context.Background(), env, in); err != nil || res.Output != "hi" {
			b.Fatalf("%q %v", res.Output, err)
		}
	}
}

// BenchmarkReadEditCycle measures read + edit of a 1000-line file.
func BenchmarkReadEditCycle(b *testing.B) {
	env := &Env{Root: b.TempDir(), Runner: newRunner()}
	content := make([]byte, 0, 40000)
	for i := 0; i < 1000; i++ {
		content = append(content, "line of some ordinary source code here\n"...)
	}
	content = append(content, "UNIQUE-A\n"...)
	if r := call0(env, Write{}, js(map[string]string{"path": "f.txt", "content": string(content)})); r.IsError {
		b.Fatal(r.Output)
	}
	edits := []string{`{"path":"f.txt","old_string":"UNIQUE-A","new_string":"UNIQUE-B"}`, `{"path":"f.txt","old_string":"UNIQUE-B","new_string":"UNIQUE-A"}`}
	for i := 0; b.Loop(); i++ {
		call0(env, Read{}, `{"path":"f.txt"}`)
		if r := call0(env, Edit{}, edits[i%2]); r.IsError {
			b.Fatal(r.Output)
		}
	}
}

func call0(env *Env, t Tool, in string) Result {
	r, _ := t.Run(context.Background(), env, json.RawMessage(in))
	return r
}
