package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/safetext"
)

// State is where a server stands.
type State string

// States.
const (
	StateStarting State = "starting"
	StateReady    State = "ready"
	// StateFailed: it did not start, or crashed after its one restart.
	StateFailed   State = "failed"
	StateSkipped  State = "skipped"
	StateDisabled State = "disabled"
)

// Status is what /mcp and chanto mcp list show of a server.
type Status struct {
	Name      string   `json:"name"`
	Origin    string   `json:"origin"`
	Where     string   `json:"where"`
	Transport string   `json:"transport"`
	Command   string   `json:"command"`
	State     State    `json:"state"`
	Error     string   `json:"error,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	Restarts  int      `json:"restarts,omitempty"`
}

// maxRestarts is how often a crashed server is started again.
const maxRestarts = 1

// stderrCap bounds what is kept of a server's standard error.
const stderrCap = 16 << 10

// server is one configured server and its connection.
type server struct {
	m    *Manager
	spec Spec

	mu       sync.Mutex
	state    State
	err      string
	cs       *sdk.ClientSession
	proc     *run.Process
	tools    []*Tool
	restarts int
	gen      int // bumped by each connection, so a stale watcher is ignored
	closing  bool
}

// start connects (starting the process of a stdio server) and lists the
// tools, within the startup timeout.
func (s *server) start() error {
	s.mu.Lock()
	s.gen++
	gen := s.gen
	s.state, s.err = StateStarting, ""
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(s.m.ctx, s.spec.StartupTimeout)
	defer cancel()
	cs, proc, tools, err := s.connect(ctx, gen)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.state, s.err = StateFailed, err.Error()
		return err
	}
	if s.closing || gen != s.gen {
		go closeConn(cs, proc)
		return errors.New("closed while starting")
	}
	s.state, s.cs, s.proc, s.tools = StateReady, cs, proc, tools
	if proc != nil {
		go s.watch(proc, gen)
	}
	return nil
}

func (s *server) connect(ctx context.Context, gen int) (*sdk.ClientSession, *run.Process, []*Tool, error) {
	transport, proc, err := s.transport()
	if err != nil {
		return nil, nil, nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "chanto", Version: Version}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			// Not on the connection's own goroutine: listing waits for it.
			go s.refresh(gen)
		},
	})
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		err = s.startError(ctx, proc, err)
		closeConn(nil, proc)
		return nil, nil, nil, err
	}
	tools, err := s.list(ctx, cs)
	if err != nil {
		err = s.startError(ctx, proc, fmt.Errorf("list tools: %w", err))
		closeConn(cs, proc)
		return nil, nil, nil, err
	}
	return cs, proc, tools, nil
}

// startError words why a server did not come up.
func (s *server) startError(ctx context.Context, proc *run.Process, err error) error {
	if proc != nil {
		select {
		case <-proc.Done():
			return fmt.Errorf("exited during startup (%s)", exitDetail(proc))
		case <-time.After(200 * time.Millisecond):
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		msg := fmt.Sprintf("did not answer within %s (startup_timeout_sec)", s.spec.StartupTimeout)
		if proc != nil {
			if line := lastLine(string(proc.Stderr())); line != "" {
				msg += "; it last said: " + line
			}
		}
		return errors.New(msg)
	}
	var nf *run.NotFoundError
	if errors.As(err, &nf) {
		return fmt.Errorf("%s: command not found", nf.Name)
	}
	return errors.New(oneLine(err.Error()))
}

// exitDetail is a dead process's exit code and the last line of its
// standard error.
func exitDetail(proc *run.Process) string {
	d := fmt.Sprintf("exit code %d", proc.ExitCode())
	if line := lastLine(string(proc.Stderr())); line != "" {
		d += ": " + line
	}
	return d
}

// transport builds the connection: a process through internal/run for
// stdio, an HTTP client with the configured headers otherwise.
func (s *server) transport() (sdk.Transport, *run.Process, error) {
	getenv := s.m.opts.Getenv
	switch s.spec.Transport {
	case "http", "sse":
		h, err := s.headers(getenv)
		if err != nil {
			return nil, nil, err
		}
		hc := &http.Client{Transport: headerTransport{headers: h}}
		if s.spec.Transport == "sse" {
			return &sdk.SSEClientTransport{Endpoint: s.spec.URL, HTTPClient: hc}, nil, nil
		}
		return &sdk.StreamableClientTransport{Endpoint: s.spec.URL, HTTPClient: hc, MaxRetries: 2}, nil, nil
	}
	r, err := s.m.runnerFor(s.spec)
	if err != nil {
		return nil, nil, err
	}
	env := make([]string, 0, len(s.spec.Env)+len(s.spec.EnvVars))
	for _, name := range s.spec.EnvVars {
		if v := getenv(name); v != "" {
			env = append(env, name+"="+v)
		}
	}
	for k, v := range s.spec.Env {
		env = append(env, k+"="+v)
	}
	dir := s.spec.Cwd
	if dir == "" {
		dir = s.m.opts.Root
	}
	proc, err := r.Start(s.m.ctx, run.Spec{
		Args: append([]string{s.spec.Command}, s.spec.Args...), Dir: dir, Env: env,
		Purpose: run.Server, OutputCap: stderrCap,
	})
	if err != nil {
		var nf *run.NotFoundError
		if errors.As(err, &nf) {
			return nil, nil, fmt.Errorf("%s: command not found", nf.Name)
		}
		return nil, nil, err
	}
	return &sdk.IOTransport{Reader: proc.Stdout, Writer: proc.Stdin}, proc, nil
}

func (s *server) headers(getenv func(string) string) (map[string]string, error) {
	h := map[string]string{}
	for k, v := range s.spec.Headers {
		h[k] = v
	}
	for k, name := range s.spec.EnvHeaders {
		if v := getenv(name); v != "" {
			h[k] = v
		}
	}
	if name := s.spec.BearerTokenEnvVar; name != "" {
		v := getenv(name)
		if v == "" {
			return nil, fmt.Errorf("bearer_token_env_var %s is not set", name)
		}
		h["Authorization"] = "Bearer " + v
	}
	return h, nil
}

// headerTransport adds the configured headers to every request.
type headerTransport struct{ headers map[string]string }

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// list fetches the server's tools, filtered by enabled_tools and
// disabled_tools.
func (s *server) list(ctx context.Context, cs *sdk.ClientSession) ([]*Tool, error) {
	var tools []*Tool
	taken := map[string]bool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if !s.spec.ToolAllowed(t.Name) {
			continue
		}
		tt := newTool(s, t)
		if taken[tt.name] {
			continue // two names that sanitize alike: the first wins
		}
		taken[tt.name] = true
		tools = append(tools, tt)
	}
	return tools, nil
}

// refresh lists the tools again after the server said they changed.
func (s *server) refresh(gen int) {
	s.mu.Lock()
	cs := s.cs
	if gen != s.gen || cs == nil {
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(s.m.ctx, s.spec.StartupTimeout)
	defer cancel()
	tools, err := s.list(ctx, cs)
	if err != nil {
		s.m.warn(fmt.Sprintf("MCP server %q: its tools changed but could not be listed again: %s", s.spec.Name, oneLine(err.Error())))
		return
	}
	s.mu.Lock()
	if gen == s.gen {
		s.tools = tools
	}
	s.mu.Unlock()
	s.m.changed()
}

// watch waits for a stdio server's process to exit: unless chanto closed
// it, that is a crash, and the server is started once more.
func (s *server) watch(proc *run.Process, gen int) {
	<-proc.Done()
	s.mu.Lock()
	if s.closing || gen != s.gen {
		s.mu.Unlock()
		return
	}
	why := exitDetail(proc)
	again := s.restarts < maxRestarts
	s.state, s.err, s.cs, s.proc = StateFailed, "exited ("+why+")", nil, nil
	if again {
		s.restarts++
		s.state = StateStarting
	}
	s.mu.Unlock()
	if !again {
		s.m.warn(fmt.Sprintf("MCP server %q exited again (%s); its tools answer with an error for the rest of this session", s.spec.Name, why))
		return
	}
	s.m.warn(fmt.Sprintf("MCP server %q exited (%s); restarting it once", s.spec.Name, why))
	if err := s.start(); err != nil {
		s.m.warn(fmt.Sprintf("MCP server %q did not restart: %s", s.spec.Name, err))
	}
}

// await returns the connection, waiting while the server restarts after
// a crash (its startup timeout bounds the wait).
func (s *server) await(ctx context.Context) (*sdk.ClientSession, *run.Process, State, string) {
	deadline := time.Now().Add(s.spec.StartupTimeout + time.Second)
	for {
		s.mu.Lock()
		cs, proc, state, why := s.cs, s.proc, s.state, s.err
		s.mu.Unlock()
		if state != StateStarting || time.Now().After(deadline) {
			return cs, proc, state, why
		}
		select {
		case <-ctx.Done():
			return cs, proc, state, why
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.spec.Name, Origin: s.spec.Origin, Where: s.spec.Where, Transport: s.spec.Transport,
		Command: s.spec.CommandLine(), State: s.state, Error: s.err, Restarts: s.restarts}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, t.name)
	}
	return st
}

// close ends the connection and the process.
func (s *server) close() {
	s.mu.Lock()
	s.closing = true
	cs, proc := s.cs, s.proc
	s.cs, s.proc = nil, nil
	s.mu.Unlock()
	closeConn(cs, proc)
}

func closeConn(cs *sdk.ClientSession, proc *run.Process) {
	if cs != nil {
		_ = cs.Close()
	}
	if proc != nil {
		proc.Stop(2 * time.Second)
	}
}

// lastLine is the last non-empty line of s, made safe to print.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return oneLine(lines[len(lines)-1])
}

func oneLine(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\n", " "))
	return safetext.Cut(safetext.Clean(s), 300)
}
