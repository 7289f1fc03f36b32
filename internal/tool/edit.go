package tool

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed edit.md
var editDoc string

// Edit replaces an exact string in a file.
type Edit struct{}

var _ Tool = Edit{}

type editInput struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

func (Edit) Name() string        { return "edit" }
func (Edit) Description() string { return editDoc }
func (Edit) ReadOnly() bool      { return false }
func (Edit) Schema() json.RawMessage {
	return schema(`{
"path":{"type":"string","description":"File path, relative to the project root or absolute."},
"old_string":{"type":"string","description":"The exact text to replace, unique in the file unless replace_all is set."},
"new_string":{"type":"string","description":"The replacement text."},
"replace_all":{"type":"boolean","description":"Replace every occurrence (default false)."}}`, "path", "old_string", "new_string")
}

// Run applies the replacement when old_string matches exactly once (or
// replace_all is set), keeping the file's mode and line endings.
func (Edit) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	var in editInput
	if r := decode("edit", input, &in); r != nil {
		return *r, nil
	}
	if in.Path == "" {
		return errorf("path is empty"), nil
	}
	if in.OldString == "" {
		return errorf("old_string is empty; to create a file use write"), nil
	}
	if in.OldString == in.NewString {
		return errorf("old_string and new_string are the same; nothing to change"), nil
	}
	abs := env.resolve(in.Path)
	name := env.display(abs)
	data, mode, exists, err := readExisting(abs)
	switch {
	case !exists:
		return errorf("%s does not exist; create it with write", name), nil
	case err == errIsDir:
		return errorf("%s is a directory", name), nil
	case err != nil:
		return errorf("%s: %v", name, err), nil
	}
	if msg := env.staleness(abs, data); msg != "" {
		return errorf("%s", msg), nil
	}
	content := string(data)
	oldS, newS := in.OldString, in.NewString
	// A CRLF file gets CRLF replacements, unless the text as given matches
	// (a file with mixed endings).
	if crlf := toCRLF(oldS); strings.Contains(content, "\r\n") && strings.Contains(content, crlf) {
		oldS, newS = crlf, toCRLF(newS)
	}
	n := strings.Count(content, oldS)
	switch {
	case n == 0:
		return errorf("%s", noMatch(name, content, in.OldString)), nil
	case n > 1 && !in.ReplaceAll:
		return errorf("old_string matches %d places in %s (lines %s); add surrounding lines to make it unique, or set replace_all to change every one",
			n, name, joinInts(matchLines(content, oldS))), nil
	}
	first := strings.Index(content, oldS)
	var updated string
	if in.ReplaceAll {
		updated = strings.ReplaceAll(content, oldS, newS)
	} else {
		updated = content[:first] + newS + content[first+len(oldS):]
	}
	if err := writeKeepingMode(abs, []byte(updated), mode); err != nil {
		return errorf("write %s: %v", name, err), nil
	}
	env.noteRead(abs, []byte(updated))
	line := strings.Count(content[:first], "\n") + 1
	what := "1 occurrence"
	if n > 1 {
		what = fmt.Sprintf("%d occurrences", n)
	}
	res := Result{Output: fmt.Sprintf("edited %s: replaced %s", name, what)}
	// The snippet shows the file as it is after the formatter.
	var check Result
	now := env.afterEdit(ctx, abs, []byte(updated), &check)
	res.Output += "\n" + snippet(string(now), line, strings.Count(newS, "\n")+1)
	if extra := strings.TrimPrefix(check.Output, "\n"); extra != "" {
		res.Output += "\n" + extra
	}
	res.Diagnostics = check.Diagnostics
	return res, nil
}

// toCRLF converts any line endings in s to CRLF.
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// matchLines returns the 1-based line number of each occurrence of sub.
func matchLines(content, sub string) []int {
	var lines []int
	off := 0
	for {
		i := strings.Index(content[off:], sub)
		if i < 0 {
			return lines
		}
		lines = append(lines, strings.Count(content[:off+i], "\n")+1)
		off += i + max(len(sub), 1)
	}
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// snippet shows lines around the changed region, numbered, so the model
// sees the result without another read.
func snippet(content string, line, count int) string {
	lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(content, "\r\n", "\n"), "\n"), "\n")
	from := max(1, line-2)
	to := min(len(lines), line+count+1)
	if to-from > 30 {
		to = from + 30
	}
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i, lines[i-1])
	}
	return strings.TrimSuffix(b.String(), "\n")
}
