// Package lsp feeds language-server diagnostics back after an edit. A
// Manager starts a server (gopls, pyright or basedpyright,
// typescript-language-server, rust-analyzer, or one from the [lsp]
// config) the first time a file of its language is edited, one per
// project root and server, through internal/run (no secret-named
// variables, the sandbox of the model's commands). After each edit it
// sends the file's text, waits a bounded time for the server's
// diagnostics and reports the errors in that file and the new ones
// elsewhere. A server that is missing, hangs at start or dies (twice: it
// is restarted once) costs the edit a one-line note, never the edit.
//
// The protocol types and the JSON-RPC framing are go.lsp.dev's.
package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
)

// Defaults for Options.
const (
	DefaultStartTimeout = 60 * time.Second
	// settle is how long more publishes may follow the one for the edited
	// file (a server reports dependent files, or a second pass, just after).
	settle = 150 * time.Millisecond
)

// Options configure a Manager.
type Options struct {
	Config config.LSP
	// Root is the project folder: root markers are looked for between a
	// file's folder and Root, and paths are shown relative to it.
	Root string
	// Trusted lets a server from the project's node_modules/.bin run.
	Trusted bool
	Runner  *run.Runner
	// StartTimeout bounds a server's answer to initialize; 0 means
	// DefaultStartTimeout. A server that does not answer is given up.
	StartTimeout time.Duration
}

// Manager owns the language servers of a session.
type Manager struct {
	opts Options
	defs []serverDef

	// ctx ends with Close: starts still under way give up.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	slots  map[slotKey]*slot
	noted  map[string]bool
	closed bool
}

type slotKey struct{ name, root string }

// slot is one server of one root: starting, running, or given up.
type slot struct {
	def      serverDef
	root     string
	bin      string
	ready    chan struct{} // closed when the current start finished
	srv      *server
	err      error // why there is no server
	restarts int
	noted    bool // the failure was reported once
}

// New builds a Manager; nothing starts until a file is touched.
func New(opts Options) *Manager {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Config.WaitMS <= 0 {
		opts.Config.WaitMS = config.DefaultLSPWaitMS
	}
	if opts.Runner == nil {
		opts.Runner = &run.Runner{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{opts: opts, defs: defsFrom(opts.Config), ctx: ctx, cancel: cancel, slots: map[slotKey]*slot{}, noted: map[string]bool{}}
}

// Started reports how many servers were started (for tests and the
// benchmark: a session that never edits starts none).
func (m *Manager) Started() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.slots)
}

// Touch tells the file's server that abs now holds content, waits (up to
// the configured bound) for its diagnostics and reports them.
func (m *Manager) Touch(ctx context.Context, abs string, content []byte) Report {
	if m == nil || !m.opts.Config.Enabled {
		return Report{}
	}
	rep := Report{Path: m.display(abs)}
	sl, note := m.slotFor(abs)
	if sl == nil {
		rep.Note = note
		return rep
	}
	rep.Server = sl.def.name
	wctx, cancel := context.WithTimeout(ctx, time.Duration(m.opts.Config.WaitMS)*time.Millisecond)
	defer cancel()
	srv, note := m.await(wctx, sl)
	if srv == nil {
		rep.Note = note
		return rep
	}
	u := uri.File(abs)
	m.resync(wctx, srv, u)
	before := srv.snapshot()
	version, seen, sent, err := srv.sync(wctx, u, sl.def.langID(strings.ToLower(filepath.Ext(abs))), string(content))
	ok := err != nil || !sent || srv.await(wctx, u, version, seen, settle)
	if ok && err == nil && sent && version == 1 && sl.def.emptyOnOpen && len(srv.snapshot()[u]) == 0 {
		// Opened just now and answered empty: maybe the project was still
		// loading. A second answer within the bound is the real one.
		srv.await(wctx, u, version, seen+1, settle)
	}
	if !ok {
		if !srv.alive() {
			rep.Note = fmt.Sprintf("%s exited (%s); no diagnostics for this edit", sl.def.name, srv.exitReason())
			return rep
		}
		rep.Note = fmt.Sprintf("%s sent no diagnostics within %s (still analysing); the diagnostics tool shows them once it has", sl.def.name, time.Duration(m.opts.Config.WaitMS)*time.Millisecond)
		return rep
	}
	if err != nil {
		rep.Note = fmt.Sprintf("%s: %v; no diagnostics for this edit", sl.def.name, err)
		return rep
	}
	after := srv.snapshot()
	rep.Checked = true
	rep.File = m.convert(abs, after[u])
	for other, ds := range after {
		if other == u {
			continue
		}
		old := before[other]
		for _, d := range m.convert(other.Filename(), ds) {
			if d.Severity == "error" && !slices.ContainsFunc(old, func(o protocol.Diagnostic) bool {
				return o.Message == d.Message && int(o.Range.Start.Line)+1 == d.Line
			}) {
				rep.Elsewhere = append(rep.Elsewhere, d)
			}
		}
	}
	sortDiags(rep.Elsewhere)
	return rep
}

// slotFor finds (or creates and starts) the server slot for abs; nil and
// maybe a one-time note when no server takes the file.
func (m *Manager) slotFor(abs string) (*slot, string) {
	ext := strings.ToLower(filepath.Ext(abs))
	note := ""
	for _, d := range m.defs {
		if !slices.Contains(d.extensions, ext) {
			continue
		}
		root := d.rootFor(abs, m.opts.Root)
		if root == "" {
			continue
		}
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			return nil, ""
		}
		if sl, ok := m.slots[slotKey{d.name, root}]; ok {
			m.mu.Unlock()
			return sl, ""
		}
		m.mu.Unlock()
		bin, untrusted := d.binary(root, m.opts.Root, m.opts.Trusted)
		if bin == "" {
			if note == "" && untrusted {
				note = m.once(d.name, fmt.Sprintf("%s not started: the project's own copy runs only in a trusted folder (chanto trust %s)", d.name, m.opts.Root))
			} else if note == "" {
				note = m.once(d.name, fmt.Sprintf("no %s on PATH, so no %s diagnostics (install: %s)", d.command[0], d.langID(ext), d.install))
			}
			continue
		}
		return m.launch(d, root, bin), ""
	}
	return nil, note
}

// once returns line the first time key is noted this session, else "".
func (m *Manager) once(key, line string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.noted[key] {
		return ""
	}
	m.noted[key] = true
	return line
}

// launch registers a slot and starts its server in the background.
func (m *Manager) launch(d serverDef, root, bin string) *slot {
	m.mu.Lock()
	defer m.mu.Unlock()
	if sl, ok := m.slots[slotKey{d.name, root}]; ok {
		return sl
	}
	sl := &slot{def: d, root: root, bin: bin}
	m.slots[slotKey{d.name, root}] = sl
	m.startLocked(sl)
	return sl
}

func (m *Manager) startLocked(sl *slot) {
	sl.ready = make(chan struct{})
	sl.srv, sl.err = nil, nil
	ready := sl.ready
	go func() {
		srv, err := start(m.ctx, m.opts.Runner, sl.def, sl.bin, sl.root, m.opts.StartTimeout)
		m.mu.Lock()
		if m.closed && srv != nil {
			m.mu.Unlock()
			srv.shutdown(time.Second)
			m.mu.Lock()
			srv, err = nil, fmt.Errorf("session closed")
		}
		sl.srv, sl.err = srv, err
		m.mu.Unlock()
		close(ready)
	}()
}

// await waits for the slot's server to be ready, restarting it once if
// it died; nil and a note (given once per failure) when there is none.
func (m *Manager) await(ctx context.Context, sl *slot) (*server, string) {
	m.mu.Lock()
	ready := sl.ready
	m.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return nil, fmt.Sprintf("%s is still starting; its diagnostics come with a later edit (or the diagnostics tool)", sl.def.name)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if sl.srv != nil && !sl.srv.alive() {
		reason := sl.srv.exitReason()
		go sl.srv.kill()
		if sl.restarts == 0 && !m.closed {
			sl.restarts++
			m.startLocked(sl)
			return nil, fmt.Sprintf("%s exited (%s); restarted it, diagnostics come with the next edit", sl.def.name, reason)
		}
		sl.srv, sl.err = nil, fmt.Errorf("%s exited again (%s)", sl.def.name, reason)
	}
	if sl.srv == nil {
		if sl.noted {
			return nil, ""
		}
		sl.noted = true
		return nil, fmt.Sprintf("%v; no %s diagnostics this session", sl.err, sl.def.name)
	}
	return sl.srv, ""
}

// resync sends the files the server has open whose text on disk changed
// since (a bash command edited them), so its view is the project's.
func (m *Manager) resync(ctx context.Context, srv *server, edited uri.URI) {
	srv.mu.Lock()
	texts := map[uri.URI]string{}
	for u, d := range srv.docs {
		if u != edited {
			texts[u] = d.text
		}
	}
	srv.mu.Unlock()
	for u, text := range texts {
		data, err := os.ReadFile(u.Filename())
		if err == nil && string(data) != text {
			_, _, _, _ = srv.sync(ctx, u, srv.def.langID(strings.ToLower(filepath.Ext(u.Filename()))), string(data))
		}
	}
}

// Close shuts every server down (shutdown, exit, then the process group
// is killed) and starts no more.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.closed = true
	m.cancel()
	var slots []*slot
	for _, sl := range m.slots {
		slots = append(slots, sl)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, sl := range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-sl.ready
			m.mu.Lock()
			srv := sl.srv
			m.mu.Unlock()
			if srv != nil {
				srv.shutdown(2 * time.Second)
			}
		}()
	}
	wg.Wait()
}

// display is abs relative to the project root when inside it.
func (m *Manager) display(abs string) string {
	if rel, err := filepath.Rel(m.opts.Root, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return abs
}
