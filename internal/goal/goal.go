// Package goal holds goals: a statement the model is given and outcome
// criteria chanto runs to decide whether the outcome was reached — a
// command that must exit 0, a command whose output must match a regular
// expression, named tests that must have run and passed, a file that must
// exist or contain a pattern. Nothing here asks a model; the criteria are
// run (check.go), in order, after the project's checks pass.
package goal

import (
	"fmt"
	"regexp"
	"strings"
)

// Kind is what a criterion checks.
type Kind string

// The kinds of criteria.
const (
	// Command: a shell command that must exit 0.
	Command Kind = "command"
	// Output: a shell command whose output (stdout and stderr) must match
	// Pattern.
	Output Kind = "output"
	// Test: a named test that must have run and passed.
	Test Kind = "test"
	// File: a file that must exist, and match Pattern when one is set.
	File Kind = "file"
)

// Criterion is one outcome criterion.
type Criterion struct {
	Kind Kind `json:"kind"`
	// Command is the shell command of Command and Output criteria, run by
	// bash in the project folder.
	Command string `json:"command,omitempty"`
	// Pattern is the regular expression (RE2, multi-line) an Output
	// criterion's output or a File criterion's content must match.
	Pattern string `json:"pattern,omitempty"`
	// Test names the test: "TestParse", "parse.TestParse",
	// "tests/test_io.py::test_roundtrip", a cargo test path, a jest title.
	Test string `json:"test,omitempty"`
	// Path is a File criterion's file, relative to the project folder.
	Path string `json:"path,omitempty"`
}

// Goal is what the user asked for and how chanto tells it was reached.
type Goal struct {
	// Statement is given to the model with each prompt.
	Statement string      `json:"statement"`
	Criteria  []Criterion `json:"criteria"`
	// MaxTurns and MaxTokens are the goal's budget: the model calls and
	// tokens (input and output) it may spend from when it was set; 0 is no
	// limit. When one runs out the turn ends not verified, naming the
	// criterion that is not met.
	MaxTurns  int   `json:"max_turns,omitempty"`
	MaxTokens int64 `json:"max_tokens,omitempty"`
	// Source is the goal file it came from, if any.
	Source string `json:"source,omitempty"`
}

// prefixes are the kinds a criterion written as text may start with; text
// with none of them is a command that must exit 0.
var prefixes = []string{"test:", "file:", "output:", "cmd:"}

// ParseCriterion reads a criterion as --criterion and /goal criteria take
// it:
//
//	go build ./...                   the command must exit 0
//	cmd: go build ./...              the same, spelled out
//	output: /v1\.2/ ./x --version    the command's output must match
//	test: TestParse                  the test must run and pass
//	file: docs/api.md                the file must exist
//	file: docs/api.md /## Usage/     … and its content must match
func ParseCriterion(s string) (Criterion, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Criterion{}, fmt.Errorf("empty criterion")
	}
	kind, rest := "", s
	for _, p := range prefixes {
		if r, ok := strings.CutPrefix(s, p); ok {
			kind, rest = strings.TrimSuffix(p, ":"), strings.TrimSpace(r)
			break
		}
	}
	var c Criterion
	switch kind {
	case "", "cmd":
		c = Criterion{Kind: Command, Command: rest}
	case "test":
		c = Criterion{Kind: Test, Test: rest}
	case "output":
		pat, cmd, ok := cutPattern(rest)
		if !ok {
			return Criterion{}, fmt.Errorf("criterion %q: want output: /REGEX/ COMMAND", s)
		}
		c = Criterion{Kind: Output, Pattern: pat, Command: strings.TrimSpace(cmd)}
	case "file":
		c = Criterion{Kind: File, Path: rest}
		if i := strings.Index(rest, " /"); i > 0 && strings.HasSuffix(rest, "/") {
			pat, tail, ok := cutPattern(strings.TrimSpace(rest[i:]))
			if ok && strings.TrimSpace(tail) == "" {
				c.Path, c.Pattern = strings.TrimSpace(rest[:i]), pat
			}
		}
	}
	if err := c.Validate(); err != nil {
		return Criterion{}, fmt.Errorf("criterion %q: %w", s, err)
	}
	return c, nil
}

// cutPattern splits "/REGEX/ rest"; "\/" stands for a slash inside it.
func cutPattern(s string) (pattern, rest string, ok bool) {
	if !strings.HasPrefix(s, "/") {
		return "", "", false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '/':
			b.WriteByte('/')
			i++
		case s[i] == '/':
			return b.String(), s[i+1:], true
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", false
}

// Validate reports what is missing or malformed.
func (c Criterion) Validate() error {
	need := func(field, v string) error {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("a %s criterion needs %s", c.Kind, field)
		}
		return nil
	}
	var err error
	switch c.Kind {
	case Command:
		err = need("a command", c.Command)
	case Output:
		if err = need("a command", c.Command); err == nil {
			err = need("a pattern", c.Pattern)
		}
	case Test:
		err = need("a test name", c.Test)
	case File:
		err = need("a path", c.Path)
	default:
		return fmt.Errorf("unknown kind %q (want command, output, test or file)", c.Kind)
	}
	if err != nil {
		return err
	}
	if c.Pattern != "" {
		if _, perr := regexp.Compile("(?m)" + c.Pattern); perr != nil {
			return fmt.Errorf("pattern %q: %v", c.Pattern, perr)
		}
	}
	return nil
}

// String is the criterion as ParseCriterion reads it back.
func (c Criterion) String() string {
	pat := "/" + strings.ReplaceAll(c.Pattern, "/", `\/`) + "/"
	switch c.Kind {
	case Output:
		return "output: " + pat + " " + c.Command
	case Test:
		return "test: " + c.Test
	case File:
		if c.Pattern != "" {
			return "file: " + c.Path + " " + pat
		}
		return "file: " + c.Path
	}
	for _, p := range prefixes {
		if strings.HasPrefix(c.Command, p) {
			return "cmd: " + c.Command
		}
	}
	return c.Command
}

// Validate checks the whole goal.
func (g *Goal) Validate() error {
	if strings.TrimSpace(g.Statement) == "" && len(g.Criteria) == 0 {
		return fmt.Errorf("a goal needs a statement or criteria")
	}
	for i, c := range g.Criteria {
		if err := c.Validate(); err != nil {
			return fmt.Errorf("criterion %d: %w", i+1, err)
		}
	}
	if g.MaxTurns < 0 || g.MaxTokens < 0 {
		return fmt.Errorf("max_turns and max_tokens must not be negative")
	}
	return nil
}

// Prompt is what the model is told about the goal, before the user's
// prompt of each turn.
func (g *Goal) Prompt() string {
	var b strings.Builder
	b.WriteString("[Goal set by the user]\n")
	if g.Statement != "" {
		b.WriteString(g.Statement + "\n")
	}
	if len(g.Criteria) > 0 {
		b.WriteString("Before your answer is accepted, chanto runs the project's checks and then these outcome criteria, in order; each must hold:\n")
		for i, c := range g.Criteria {
			fmt.Fprintf(&b, "%d. %s\n", i+1, c.Describe())
		}
	}
	if g.MaxTurns > 0 || g.MaxTokens > 0 {
		b.WriteString("Budget: " + g.Budget() + ".\n")
	}
	return b.String()
}

// Budget is "20 model calls, 200000 tokens" (empty with no budget).
func (g *Goal) Budget() string {
	var parts []string
	if g.MaxTurns > 0 {
		parts = append(parts, fmt.Sprintf("max_turns %d", g.MaxTurns))
	}
	if g.MaxTokens > 0 {
		parts = append(parts, fmt.Sprintf("max_tokens %d", g.MaxTokens))
	}
	return strings.Join(parts, ", ")
}

// Describe says what must hold, in a few words.
func (c Criterion) Describe() string {
	switch c.Kind {
	case Command:
		return "`" + c.Command + "` exits 0"
	case Output:
		return "the output of `" + c.Command + "` matches /" + c.Pattern + "/"
	case Test:
		return "the test " + c.Test + " runs and passes"
	case File:
		if c.Pattern != "" {
			return c.Path + " matches /" + c.Pattern + "/"
		}
		return c.Path + " exists"
	}
	return string(c.Kind)
}
