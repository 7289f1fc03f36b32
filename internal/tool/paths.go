package tool

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Builtin returns the built-in tools in the order they are offered to the model.
func Builtin() []Tool {
	return []Tool{Bash{}, Read{}, Write{}, Edit{}, Glob{}, Grep{}, WebFetch{}, Diagnostics{}}
}

// resolve turns a model-given path into an absolute, cleaned one: relative
// paths are taken against the project root; "~" is not expanded.
func (e *Env) resolve(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(e.Root, p)
}

// display is how a path is shown to the model: relative to the root when
// inside it, absolute otherwise.
func (e *Env) display(abs string) string {
	rel, err := filepath.Rel(e.Root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return rel
}

// inside reports whether abs is the root or below it.
func (e *Env) inside(abs string) bool {
	return e.display(abs) != abs || filepath.Clean(abs) == filepath.Clean(e.Root)
}

// noteRead records the content the model has seen of abs.
func (e *Env) noteRead(abs string, content []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.reads == nil {
		e.reads = make(map[string]readRecord)
	}
	e.reads[abs] = readRecord{hash: sha256.Sum256(content)}
}

// staleness returns a model-facing message when abs exists on disk and the
// model may not overwrite it: never read, or changed since the last read.
// It returns "" when writing is fine.
func (e *Env) staleness(abs string, current []byte) string {
	e.mu.Lock()
	rec, ok := e.reads[abs]
	e.mu.Unlock()
	name := e.display(abs)
	if !ok {
		return fmt.Sprintf("%s exists and you have not read it; read it before changing it", name)
	}
	if rec.hash != sha256.Sum256(current) {
		return fmt.Sprintf("%s changed since you last read it; read it again before writing", name)
	}
	return ""
}

// decode unmarshals the tool input strictly enough to catch a misspelled
// field, returning a model-facing message on failure.
func decode(name string, input json.RawMessage, v any) *Result {
	if len(bytes.TrimSpace(input)) == 0 {
		input = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		r := errorf("invalid input for %s: %v", name, err)
		return &r
	}
	return nil
}

func errorf(format string, args ...any) Result {
	return Result{Output: fmt.Sprintf(format, args...), IsError: true}
}

// isBinary reports a NUL byte in the first 8 KB, the usual heuristic.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8<<10)], 0) >= 0
}

// readExisting reads a file the model wants to change; missing is
// reported through ok=false and a nil error.
func readExisting(abs string) (content []byte, mode os.FileMode, ok bool, err error) {
	fi, err := os.Stat(abs)
	if os.IsNotExist(err) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if fi.IsDir() {
		return nil, fi.Mode(), true, errIsDir
	}
	content, err = os.ReadFile(abs)
	return content, fi.Mode().Perm(), true, err
}

var errIsDir = fmt.Errorf("is a directory")

// writeKeepingMode replaces the content of abs in place, so its mode,
// owner and any hard links survive.
func writeKeepingMode(abs string, content []byte, mode os.FileMode) error {
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// schema builds a JSON schema object from a properties map literal.
func schema(props string, required ...string) json.RawMessage {
	if required == nil {
		required = []string{}
	}
	req, _ := json.Marshal(required)
	return json.RawMessage(`{"type":"object","properties":` + props + `,"required":` + string(req) + `,"additionalProperties":false}`)
}
