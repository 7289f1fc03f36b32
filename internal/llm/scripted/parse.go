// Package scripted is a deterministic model that plays back a text script:
// each response is a block of directives (say, call, sleep…) ended by a
// "---" line, and "expect" lines assert what the agent sent. It backs the
// CLI tests and a demo that needs no API key. The format is documented in
// docs/providers.md, section "Scripted model".
package scripted

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/llm"
)

// stepKind is what one script line does.
type stepKind int

const (
	stepExpect    stepKind = iota // the last message contains Arg
	stepExpectAny                 // the whole conversation contains Arg
	stepExpectNot                 // the last message does not contain Arg
	stepSay                       // a line of text
	stepCall                      // a tool call with valid JSON arguments
	stepCallRaw                   // a tool call with arguments taken verbatim
	stepSleep                     // a pause
	stepStop                      // an explicit stop reason
	stepFail                      // the call fails with a provider error
)

// step is one directive with the line it came from.
type step struct {
	kind   stepKind
	line   int
	arg    string // text, substring, raw arguments or message
	name   string // tool name
	dur    time.Duration
	status int
}

// response is one "---"-terminated block.
type response struct {
	line  int // first line of the block
	steps []step
}

// Script is a parsed script file.
type Script struct {
	Path      string
	responses []response
}

// Load reads and parses the script at path.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scripted model: %w", err)
	}
	return Parse(path, string(data))
}

// Parse parses script text; name is used in error messages.
func Parse(name, text string) (*Script, error) {
	s := &Script{Path: name}
	cur := response{}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, raw := range lines {
		n := i + 1
		trimmed := strings.TrimSpace(raw)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if trimmed == "---" {
			if len(cur.steps) == 0 {
				return nil, fmt.Errorf("%s:%d: empty response (a block needs at least one directive before ---)", name, n)
			}
			s.responses = append(s.responses, cur)
			cur = response{}
			continue
		}
		st, err := parseLine(strings.TrimLeft(raw, " \t"), n)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if len(cur.steps) == 0 {
			cur.line = n
		}
		cur.steps = append(cur.steps, st)
	}
	if len(cur.steps) > 0 {
		s.responses = append(s.responses, cur)
	}
	if len(s.responses) == 0 {
		return nil, fmt.Errorf("%s: no responses in script", name)
	}
	for _, r := range s.responses {
		if err := r.check(name); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// check rejects blocks that would not make a response.
func (r response) check(name string) error {
	produces := false
	for _, st := range r.steps {
		switch st.kind {
		case stepSay, stepCall, stepCallRaw, stepFail:
			produces = true
		}
	}
	if !produces {
		return fmt.Errorf("%s:%d: response has no say, call or fail line", name, r.line)
	}
	return nil
}

// parseLine parses one directive line (leading blanks removed).
func parseLine(line string, n int) (step, error) {
	word, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimRight(rest, " \t")
	st := step{line: n}
	switch word {
	case "expect", "expect-any", "expect-not":
		if strings.TrimSpace(rest) == "" {
			return st, fmt.Errorf("%s needs a substring", word)
		}
		st.kind = map[string]stepKind{"expect": stepExpect, "expect-any": stepExpectAny, "expect-not": stepExpectNot}[word]
		st.arg = strings.TrimSpace(rest)
	case "say":
		st.kind, st.arg = stepSay, rest
	case "call", "call-raw":
		return parseCall(word, rest, st)
	case "sleep":
		d, err := time.ParseDuration(strings.TrimSpace(rest))
		if err != nil || d < 0 {
			return st, fmt.Errorf("sleep: bad duration %q (want e.g. 50ms)", strings.TrimSpace(rest))
		}
		st.kind, st.dur = stepSleep, d
	case "stop":
		switch r := llm.StopReason(strings.TrimSpace(rest)); r {
		case llm.StopEnd, llm.StopToolUse, llm.StopMaxTokens:
			st.kind, st.arg = stepStop, string(r)
		default:
			return st, fmt.Errorf("stop: unknown reason %q (want end_turn, tool_use or max_tokens)", strings.TrimSpace(rest))
		}
	case "fail":
		code, msg, _ := strings.Cut(strings.TrimSpace(rest), " ")
		status, err := strconv.Atoi(code)
		if err != nil || status < 0 || status > 999 {
			return st, fmt.Errorf("fail: want an HTTP status then a message, got %q", strings.TrimSpace(rest))
		}
		st.kind, st.status, st.arg = stepFail, status, strings.TrimSpace(msg)
	default:
		return st, fmt.Errorf("unknown directive %q", word)
	}
	return st, nil
}

// parseCall parses "call NAME JSON" and "call-raw NAME TEXT".
func parseCall(word, rest string, st step) (step, error) {
	name, args, _ := strings.Cut(strings.TrimSpace(rest), " ")
	if name == "" {
		return st, fmt.Errorf("%s needs a tool name", word)
	}
	args = strings.TrimSpace(args)
	st.name, st.arg = name, args
	if word == "call-raw" {
		st.kind = stepCallRaw
		return st, nil
	}
	st.kind = stepCall
	if args == "" {
		st.arg = "{}"
		return st, nil
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(args), &obj); err != nil || obj == nil {
		if err == nil {
			err = fmt.Errorf("not an object")
		}
		return st, fmt.Errorf("call %s: arguments are not a JSON object (%v); use call-raw for deliberately broken arguments", name, err)
	}
	return st, nil
}
