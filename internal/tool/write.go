package tool

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

//go:embed write.md
var writeDoc string

// Write creates or replaces a whole file.
type Write struct{}

var _ Tool = Write{}

type writeInput struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (Write) Name() string        { return "write" }
func (Write) Description() string { return writeDoc }
func (Write) ReadOnly() bool      { return false }
func (Write) Schema() json.RawMessage {
	return schema(`{
"path":{"type":"string","description":"File path, relative to the project root or absolute."},
"content":{"type":"string","description":"The complete new content of the file."}}`, "path", "content")
}

// Run writes the file after checking the model has seen its current
// content; new files need no read.
func (Write) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	var in writeInput
	if r := decode("write", input, &in); r != nil {
		return *r, nil
	}
	if in.Path == "" {
		return errorf("path is empty"), nil
	}
	abs := env.resolve(in.Path)
	name := env.display(abs)
	old, mode, exists, err := readExisting(abs)
	switch {
	case err == errIsDir:
		return errorf("%s is a directory", name), nil
	case err != nil:
		return errorf("%s: %v", name, err), nil
	}
	if exists {
		if msg := env.staleness(abs, old); msg != "" {
			return errorf("%s", msg), nil
		}
	} else {
		mode = 0o644
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return errorf("create folder for %s: %v", name, err), nil
		}
	}
	if err := writeKeepingMode(abs, []byte(in.Content), mode); err != nil {
		return errorf("write %s: %v", name, err), nil
	}
	env.noteRead(abs, []byte(in.Content))
	verb := "created"
	if exists {
		verb = "wrote"
	}
	lines := strings.Count(in.Content, "\n")
	if in.Content != "" && !strings.HasSuffix(in.Content, "\n") {
		lines++
	}
	res := Result{Output: fmt.Sprintf("%s %s (%s, %s)", verb, name, plural(lines, "line"), plural(len(in.Content), "byte"))}
	env.afterEdit(ctx, abs, []byte(in.Content), &res)
	return res, nil
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
