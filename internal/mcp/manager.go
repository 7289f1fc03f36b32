package mcp

import (
	"context"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/tool"
)

// Version is the client version chanto announces to servers.
var Version = "dev"

// Options configure a Manager.
type Options struct {
	// Runner starts stdio servers: the session's scrubbed environment and
	// sandbox.
	Runner *run.Runner
	// SandboxFor, if set, gives the sandbox of a stdio server that needs
	// a network of its own (Spec.NetworkNeeds); nil, or a nil Wrapper,
	// keeps the Runner's.
	SandboxFor func(network string, domains []string) (run.Wrapper, error)
	// Root is the project folder: stdio servers start there unless their
	// cwd says otherwise.
	Root string
	// Getenv reads chanto's own environment (env_vars, bearer tokens,
	// headers); nil is os.Getenv.
	Getenv func(string) string
	// Warn hears one line per fault: a server that did not start, one
	// that crashed.
	Warn func(string)
	// Changed, if set, is told when a server's tools changed.
	Changed func()
	Logger  *slog.Logger
}

// Manager holds a session's MCP servers.
type Manager struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	servers []*server
	held    []Status
	started chan struct{}
}

// NewManager returns a manager with no servers yet.
func NewManager(opts Options) *Manager {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Runner == nil {
		opts.Runner = &run.Runner{}
	}
	m := &Manager{opts: opts, started: make(chan struct{})}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// Start starts specs in parallel and returns when each is ready or has
// failed (its startup timeout bounds the wait); held are the servers
// left out by Admission, kept for Status. A failure is a warning.
func (m *Manager) Start(specs []Spec, held []Status) {
	defer close(m.started)
	m.mu.Lock()
	m.held = append(m.held, held...)
	for _, sp := range specs {
		m.servers = append(m.servers, &server{m: m, spec: sp, state: StateStarting})
	}
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.start(); err != nil {
				m.warn("MCP server " + quote(s.spec.Name) + " did not start: " + err.Error())
			}
		}()
	}
	wg.Wait()
}

// Wait blocks until Start has returned, or ctx ends.
func (m *Manager) Wait(ctx context.Context) {
	select {
	case <-m.started:
	case <-ctx.Done():
	}
}

// Tools are the tools of the servers, in configuration order.
func (m *Manager) Tools() []tool.Tool {
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	var out []tool.Tool
	for _, s := range servers {
		s.mu.Lock()
		for _, t := range s.tools {
			out = append(out, t)
		}
		s.mu.Unlock()
	}
	return out
}

// Status lists every configured server: started, failed, skipped.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	held := append([]Status(nil), m.held...)
	m.mu.Unlock()
	var out []Status
	for _, s := range servers {
		out = append(out, s.status())
	}
	return append(out, held...)
}

// Close stops every server.
func (m *Manager) Close() {
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() { defer wg.Done(); s.close() }()
	}
	wg.Wait()
	m.cancel()
}

// runnerFor is the runner of a stdio server: the session's, with the
// sandbox of the network it declared.
func (m *Manager) runnerFor(s Spec) (*run.Runner, error) {
	network, domains := s.NetworkNeeds()
	if network == "" && len(domains) == 0 || m.opts.SandboxFor == nil || m.opts.Runner.Sandbox == nil {
		return m.opts.Runner, nil
	}
	w, err := m.opts.SandboxFor(network, domains)
	if err != nil || w == nil {
		return m.opts.Runner, err
	}
	r := *m.opts.Runner
	r.Sandbox = w
	return &r, nil
}

func (m *Manager) warn(line string) {
	m.opts.Logger.Warn(line)
	if m.opts.Warn != nil {
		m.opts.Warn(line)
	}
}

func (m *Manager) changed() {
	if m.opts.Changed != nil {
		m.opts.Changed()
	}
}

func quote(s string) string { return `"` + s + `"` }
