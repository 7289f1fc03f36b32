// Package format runs a file's formatter after the write and edit tools
// changed it: the built-in ones a project shows it uses (gofmt always,
// rustfmt, prettier, ruff, black) and those of the [formatters] config.
// Every formatter runs through internal/run, as the model's commands do;
// one taken from the project (its node_modules/.bin or virtualenv) runs
// only in a trusted folder. A formatter that fails or times out leaves
// the file as it was written.
package format

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
)

// DefaultTimeout bounds one formatter run.
const DefaultTimeout = 10 * time.Second

// Options configure a Set.
type Options struct {
	Config config.Formatters
	// Root is the project folder; project files are looked for between a
	// file's folder and Root.
	Root string
	// Trusted lets the project's own formatter binaries run.
	Trusted bool
	Runner  *run.Runner
	// Timeout bounds each run; 0 means DefaultTimeout.
	Timeout time.Duration
}

// Outcome is what formatting one file did.
type Outcome struct {
	// Formatter names the formatter that ran; "" when none applies.
	Formatter string
	// Changed reports that the formatter rewrote the file; Content is the
	// file's bytes then.
	Changed bool
	Content []byte
	// Note is one line for the tool result: a formatter that failed (the
	// file is as written) or one that was not run, and why.
	Note string
}

// Set picks and runs formatters for a project.
type Set struct {
	opts    Options
	custom  []formatter
	builtin []formatter

	mu     sync.Mutex
	crates map[string]bool // rustfmt: crate folder → already formatted
	noted  map[string]bool // notes given once per session
}

// formatter is one formatter: the extensions it takes, and how it is run
// on a file, or why not.
type formatter struct {
	name       string
	extensions []string
	// command is a configured shell line ($FILE); "" uses plan.
	command string
	// plan returns the argv for the file, or nil and a note ("" to stay
	// quiet) when the project does not use this formatter.
	plan func(s *Set, abs string) ([]string, string)
	// inproc formats in chanto's own process instead (gofmt: the
	// standard library's go/format is gofmt's formatting, without a
	// process start on every edit).
	inproc func(src []byte) ([]byte, error)
}

// New builds the formatters of a project from its configuration.
func New(opts Options) *Set {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	s := &Set{opts: opts, crates: map[string]bool{}, noted: map[string]bool{}}
	tools := opts.Config.Tools
	for _, b := range builtins() {
		t, ok := tools[b.name]
		if ok && t.Disabled {
			continue
		}
		if ok && len(t.Extensions) > 0 {
			b.extensions = t.Extensions
		}
		if ok && t.Command != "" {
			b.command, b.plan, b.inproc = t.Command, nil, nil
		}
		s.builtin = append(s.builtin, b)
	}
	names := make([]string, 0, len(tools))
	for name := range tools {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t := tools[name]
		if isBuiltin(name) || t.Disabled || t.Command == "" {
			continue
		}
		s.custom = append(s.custom, formatter{name: name, extensions: t.Extensions, command: t.Command})
	}
	return s
}

// Format runs the file's formatter on abs, which holds written. The first
// formatter that takes the file's extension and applies to the project
// runs; configured new formatters come before the built-in ones.
func (s *Set) Format(ctx context.Context, abs string, written []byte) Outcome {
	if s == nil || !s.opts.Config.Enabled {
		return Outcome{}
	}
	ext := strings.ToLower(filepath.Ext(abs))
	for _, f := range append(slices.Clip(s.custom), s.builtin...) {
		if !slices.Contains(f.extensions, ext) {
			continue
		}
		spec := run.Spec{Dir: filepath.Dir(abs), Env: []string{"FILE=" + abs}, Timeout: s.opts.Timeout, Purpose: run.Model, OutputCap: 4096}
		if f.command != "" {
			spec.Shell = f.command
		} else if f.inproc != nil {
			return s.runInProcess(f, abs, written)
		} else {
			argv, note := f.plan(s, abs)
			if argv == nil {
				if note != "" && s.once(f.name+"\x00"+note) {
					return Outcome{Note: note}
				}
				continue
			}
			spec.Args = argv
		}
		return s.run(ctx, f.name, abs, written, spec)
	}
	return Outcome{}
}

// run executes one formatter and keeps the file as written if it fails.
func (s *Set) run(ctx context.Context, name, abs string, written []byte, spec run.Spec) Outcome {
	res, err := s.runner().Run(ctx, spec)
	var nf *run.NotFoundError
	why := ""
	switch {
	case errors.As(err, &nf) && spec.Shell == "":
		return Outcome{} // a built-in formatter that is not installed
	case err != nil:
		why = err.Error()
	case res.TimedOut:
		why = fmt.Sprintf("timed out after %s", s.opts.Timeout)
	case res.ExitCode != 0:
		why = fmt.Sprintf("exit %d", res.ExitCode)
		if line := firstLine(res.Output); line != "" {
			why += ": " + line
		}
	}
	now, readErr := os.ReadFile(abs)
	if why == "" && readErr != nil {
		why = "the file could not be read back: " + readErr.Error()
	}
	if why != "" {
		if readErr != nil || !bytes.Equal(now, written) {
			_ = writeBack(abs, written)
		}
		return Outcome{Formatter: name, Note: fmt.Sprintf("%s failed (%s); the file is as written", name, why)}
	}
	if bytes.Equal(now, written) {
		return Outcome{Formatter: name}
	}
	return Outcome{Formatter: name, Changed: true, Content: now}
}

// runInProcess formats with f.inproc and writes the result if it differs.
func (s *Set) runInProcess(f formatter, abs string, written []byte) Outcome {
	out, err := f.inproc(written)
	if err != nil {
		// go/format's errors are "line:col: message"; name the file.
		return Outcome{Formatter: f.name, Note: fmt.Sprintf("%s failed (%s:%s); the file is as written", f.name, filepath.Base(abs), firstLine([]byte(err.Error())))}
	}
	if bytes.Equal(out, written) {
		return Outcome{Formatter: f.name}
	}
	if err := writeBack(abs, out); err != nil {
		_ = writeBack(abs, written)
		return Outcome{Formatter: f.name, Note: fmt.Sprintf("%s failed (%v); the file is as written", f.name, err)}
	}
	return Outcome{Formatter: f.name, Changed: true, Content: out}
}

func (s *Set) runner() *run.Runner {
	if s.opts.Runner != nil {
		return s.opts.Runner
	}
	return &run.Runner{}
}

// once reports whether key is seen for the first time this session.
func (s *Set) once(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.noted[key] {
		return false
	}
	s.noted[key] = true
	return true
}

// writeBack restores the model's bytes, keeping the file's mode.
func writeBack(abs string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(abs); err == nil {
		mode = fi.Mode().Perm()
	}
	return os.WriteFile(abs, data, mode)
}

func firstLine(out []byte) string {
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 200 {
				l = l[:200] + "…"
			}
			return l
		}
	}
	return ""
}
