package scripted

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, script, want string
	}{
		{"unknown directive", "say hi\nsya oops\n", `script.txt:2: unknown directive "sya"`},
		{"empty expect", "expect\nsay hi\n", "script.txt:1: expect needs a substring"},
		{"empty expect-any", "expect-any   \nsay hi\n", "script.txt:1: expect-any needs a substring"},
		{"empty expect-not", "expect-not\nsay hi\n", "script.txt:1: expect-not needs a substring"},
		{"call without name", "call\n", "script.txt:1: call needs a tool name"},
		{"call-raw without name", "call-raw\n", "script.txt:1: call-raw needs a tool name"},
		{"call bad json", "# c\ncall edit {\"path\": \n", `script.txt:2: call edit: arguments are not a JSON object`},
		{"call array", "call edit [1]\n", `script.txt:1: call edit: arguments are not a JSON object`},
		{"call null", "call edit null\n", `script.txt:1: call edit: arguments are not a JSON object (not an object)`},
		{"sleep bad", "sleep soon\nsay x\n", `script.txt:1: sleep: bad duration "soon"`},
		{"sleep negative", "sleep -1s\nsay x\n", `script.txt:1: sleep: bad duration "-1s"`},
		{"stop bad", "say x\nstop later\n", `script.txt:2: stop: unknown reason "later"`},
		{"fail bad", "fail oops\n", `script.txt:1: fail: want an HTTP status then a message, got "oops"`},
		{"empty block", "say a\n---\n---\n", "script.txt:3: empty response"},
		{"no output", "expect hi\n---\n", "script.txt:1: response has no say, call or fail line"},
		{"sleep only", "say a\n---\nsleep 1ms\n", "script.txt:3: response has no say, call or fail line"},
		{"empty script", "# nothing\n\n", "script.txt: no responses in script"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("script.txt", tt.script)
			if err == nil {
				t.Fatalf("Parse succeeded; want error %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %q\nwant prefix %q", err, tt.want)
			}
		})
	}
}

func TestParseBlocks(t *testing.T) {
	src := `# leading comment
expect go test
  say I'll run the tests.
say   indented
call bash {"command": "go test ./..."}
---

expect-any system words
expect-not PASS
call-raw edit {"path": "a.go", "old_
sleep 50ms
say
stop max_tokens
---
fail 529 overloaded
` // last block without a closing ---
	s, err := Parse("s.txt", src)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.responses); got != 3 {
		t.Fatalf("responses = %d, want 3", got)
	}
	kinds := func(r response) []stepKind {
		var k []stepKind
		for _, st := range r.steps {
			k = append(k, st.kind)
		}
		return k
	}
	wantKinds := [][]stepKind{
		{stepExpect, stepSay, stepSay, stepCall},
		{stepExpectAny, stepExpectNot, stepCallRaw, stepSleep, stepSay, stepStop},
		{stepFail},
	}
	for i, r := range s.responses {
		if got := kinds(r); !equalKinds(got, wantKinds[i]) {
			t.Errorf("block %d kinds = %v, want %v", i+1, got, wantKinds[i])
		}
	}
	b0 := s.responses[0]
	if b0.line != 2 || b0.steps[1].arg != "I'll run the tests." || b0.steps[2].arg != "  indented" {
		t.Errorf("block 1 = %+v", b0)
	}
	if b1 := s.responses[1]; b1.steps[2].arg != `{"path": "a.go", "old_` || b1.steps[2].name != "edit" {
		t.Errorf("call-raw step = %+v", b1.steps[2])
	}
	if f := s.responses[2].steps[0]; f.status != 529 || f.arg != "overloaded" {
		t.Errorf("fail step = %+v", f)
	}
}

func equalKinds(a, b []stepKind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestOpenMissingFile(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "nope.txt"))
	if err == nil || !strings.Contains(err.Error(), "scripted model: open") {
		t.Fatalf("err = %v", err)
	}
}

func TestOpenSyntaxError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "script.txt")
	if err := os.WriteFile(p, []byte("say hi\n---\nsya no\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(p)
	if err == nil || err.Error() != p+`:3: unknown directive "sya"` {
		t.Fatalf("err = %v", err)
	}
}
