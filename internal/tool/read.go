package tool

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

//go:embed read.md
var readDoc string

const (
	readDefaultLimit = 2000
	readMaxLineLen   = 2000
)

// Read shows a file's lines, numbered.
type Read struct{}

var _ Tool = Read{}

type readInput struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

func (Read) Name() string        { return "read" }
func (Read) Description() string { return readDoc }
func (Read) ReadOnly() bool      { return true }
func (Read) Schema() json.RawMessage {
	return schema(`{
"path":{"type":"string","description":"File path, relative to the project root or absolute."},
"offset":{"type":"integer","description":"First line to show, 1-based (default 1)."},
"limit":{"type":"integer","description":"Number of lines to show (default 2000)."}}`, "path")
}

// Run reads the file, records its hash for the staleness rule and returns
// the requested lines in cat -n style.
func (Read) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	var in readInput
	if r := decode("read", input, &in); r != nil {
		return *r, nil
	}
	if in.Path == "" {
		return errorf("path is empty"), nil
	}
	if in.Offset < 0 || in.Limit < 0 {
		return errorf("offset and limit must not be negative"), nil
	}
	abs := env.resolve(in.Path)
	name := env.display(abs)
	fi, err := os.Stat(abs)
	switch {
	case os.IsNotExist(err):
		return errorf("%s does not exist", name), nil
	case err != nil:
		return errorf("%s: %v", name, err), nil
	case fi.IsDir():
		return errorf("%s is a directory; list it with glob (pattern %q) or bash ls", name, "*"), nil
	}
	content, err := os.ReadFile(abs)
	if err != nil {
		return errorf("%s: %v", name, err), nil
	}
	env.noteRead(abs, content)
	if isBinary(content) {
		return errorf("%s is a binary file (%d bytes); not shown", name, len(content)), nil
	}
	if len(content) == 0 {
		return Result{Output: fmt.Sprintf("(%s is empty)", name)}, nil
	}
	return Result{Output: numberLines(name, content, max(in.Offset, 1), in.Limit)}, nil
}

// numberLines renders lines [first, first+limit) like cat -n, with a
// footer saying how to read on when lines remain.
func numberLines(name string, content []byte, first, limit int) string {
	if limit <= 0 {
		limit = readDefaultLimit
	}
	lines := bytes.Split(bytes.TrimSuffix(content, []byte("\n")), []byte("\n"))
	total := len(lines)
	if first > total {
		return fmt.Sprintf("%s has %d lines; offset %d is past the end", name, total, first)
	}
	last := min(total, first+limit-1)
	var b strings.Builder
	for i := first; i <= last; i++ {
		line := strings.TrimSuffix(string(lines[i-1]), "\r")
		line = strings.ToValidUTF8(line, "\uFFFD")
		if utf8.RuneCountInString(line) > readMaxLineLen {
			r := []rune(line)
			line = string(r[:readMaxLineLen]) + fmt.Sprintf(" … [line truncated, %d more characters]", len(r)-readMaxLineLen)
		}
		fmt.Fprintf(&b, "%6d\t%s\n", i, line)
	}
	if last < total {
		fmt.Fprintf(&b, "(lines %d-%d of %d; read on with offset %d)\n", first, last, total, last+1)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
