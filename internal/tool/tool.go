// Package tool holds the tools the model can call, one file each with its
// model-facing description embedded beside it. A mistake the model can fix
// (a missing file, a non-unique edit) is a Result with IsError set; an error
// return means the infrastructure failed.
package tool

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/run"
)

// Tool is one model-callable tool.
type Tool interface {
	Name() string
	Description() string
	// Schema is the JSON schema of the input object.
	Schema() json.RawMessage
	// ReadOnly tools may run in parallel and in plan mode.
	ReadOnly() bool
	Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error)
}

// Result is what the model sees.
type Result struct {
	Output  string
	IsError bool
	// For bash: the command's exit code, whether it timed out, and the
	// folder it ran in. The gate reads them to judge the model's own test
	// runs without parsing the output.
	ExitCode int
	TimedOut bool
	Dir      string
	// Duration is how long the command ran.
	Duration time.Duration
	// Diagnostics counts what the language server said after a write or
	// edit (nil when none answered).
	Diagnostics *event.Diagnostics
}

// Env is the state tools share within a session.
type Env struct {
	// Root is the project root; relative paths resolve against it.
	Root string
	// Runner executes commands (bash tool).
	Runner *run.Runner
	// Web is web_fetch's way out; nil refuses every fetch.
	Web *Web
	// Checker formats and diagnoses what write and edit changed; nil
	// leaves files as written.
	Checker EditChecker

	mu    sync.Mutex
	cwd   string                // bash's persistent working directory
	reads map[string]readRecord // what the model last read, for write's staleness check
}

// Fork returns the Env of a subagent: the same project and runner (and
// anything else added above the lock), with its own working directory and
// read records, so its cd and reads do not leak into the parent's.
func (e *Env) Fork() *Env {
	return &Env{Root: e.Root, Runner: e.Runner, Web: e.Web, Checker: e.Checker}
}

type readRecord struct {
	hash [32]byte
}

// Cwd is the bash tool's current directory (Root until a cd).
func (e *Env) Cwd() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cwd == "" {
		return e.Root
	}
	return e.cwd
}

// SetCwd records bash's new working directory.
func (e *Env) SetCwd(dir string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cwd = dir
}
