package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/chanto-dev/chanto/internal/run"
)

// server is one running language server process for one root.
type server struct {
	def  serverDef
	root string

	cancel context.CancelFunc // kills the process group
	conn   jsonrpc2.Conn
	exited chan struct{} // closed when the process is gone
	exit   string        // why it ended (stderr's last line, exit code)

	mu      sync.Mutex
	docs    map[uri.URI]*doc
	diags   map[uri.URI][]protocol.Diagnostic
	notify  chan struct{} // closed and replaced on every publish
	closing bool
}

// doc is an open document: what the server was last sent.
type doc struct {
	version int32
	text    string
	// published is the version of the last diagnostics received for it;
	// seen counts publishes, for servers that send no version.
	published int32
	seen      int
}

// start launches the server through the runner (run.Start: the same
// environment, process group and sandbox as any command, its pipes held
// here) and initializes it; it returns once the server answered
// initialize or startTimeout passed.
func start(ctx context.Context, r *run.Runner, def serverDef, bin, root string, startTimeout time.Duration) (*server, error) {
	pctx, cancel := context.WithCancel(context.Background())
	argv := append([]string{bin}, def.command[1:]...)
	proc, err := r.Start(pctx, run.Spec{Args: argv, Dir: root, Purpose: run.Model, OutputCap: 4096})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%s did not start: %v", def.name, err)
	}
	s := &server{def: def, root: root, cancel: cancel, exited: make(chan struct{}),
		docs: map[uri.URI]*doc{}, diags: map[uri.URI][]protocol.Diagnostic{}, notify: make(chan struct{})}
	go func() {
		<-proc.Done()
		why := "stopped"
		if pctx.Err() == nil {
			why = fmt.Sprintf("exit %d", proc.ExitCode())
		}
		if line := lastLine(proc.Stderr()); line != "" {
			why += ": " + line
		}
		s.mu.Lock()
		s.exit = why
		s.mu.Unlock()
		close(s.exited)
	}()
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipeConn{proc.Stdout, proc.Stdin}))
	s.conn.Go(pctx, s.handle)
	ictx, icancel := s.bounded(ctx, startTimeout)
	defer icancel()
	if err := s.initialize(ictx); err != nil {
		deadline := ictx.Err() == context.DeadlineExceeded && s.alive()
		if !deadline {
			select {
			case <-s.exited:
				return nil, fmt.Errorf("%s exited at start (%s)", def.name, s.exitReason())
			case <-time.After(3 * time.Second):
			}
		}
		s.kill()
		if deadline {
			return nil, fmt.Errorf("%s did not answer initialize within %s", def.name, startTimeout)
		}
		return nil, fmt.Errorf("%s: initialize: %v", def.name, err)
	}
	return s, nil
}

// bounded is ctx with a timeout that also ends when the server exits (a
// call to a dead server would otherwise wait out its whole bound).
func (s *server) bounded(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, d)
	go func() {
		select {
		case <-s.exited:
		case <-s.conn.Done():
		case <-ctx.Done():
		}
		cancel()
	}()
	return ctx, cancel
}

// pipeConn is the server's stdout and stdin as one stream.
type pipeConn struct {
	io.Reader
	io.WriteCloser
}

func (s *server) initialize(ctx context.Context) error {
	rootURI := uri.File(s.root)
	params := &protocol.InitializeParams{
		ClientInfo:            &protocol.ClientInfo{Name: "chanto"},
		RootURI:               rootURI,
		RootPath:              s.root,
		InitializationOptions: s.def.initOptions,
		WorkspaceFolders:      []protocol.WorkspaceFolder{{URI: string(rootURI), Name: s.root}},
		Capabilities: protocol.ClientCapabilities{
			Workspace: &protocol.WorkspaceClientCapabilities{Configuration: true, WorkspaceFolders: true},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization:    &protocol.TextDocumentSyncClientCapabilities{},
				PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: true},
			},
		},
	}
	var result protocol.InitializeResult
	if _, err := s.conn.Call(ctx, protocol.MethodInitialize, initializeParams{InitializeParams: params}, &result); err != nil {
		return err
	}
	if err := s.conn.Notify(ctx, protocol.MethodInitialized, &protocol.InitializedParams{}); err != nil {
		return err
	}
	if s.def.settings != nil {
		return s.conn.Notify(ctx, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: s.def.settings})
	}
	return nil
}

// initializeParams sends a null processId: in the sandbox's own PID
// namespace chanto's pid names nobody, and servers that watch it
// (vscode-languageserver's, pyright's and typescript-language-server's)
// would exit at once. chanto ends its servers itself.
type initializeParams struct {
	*protocol.InitializeParams
	ProcessID *int32 `json:"processId"`
}

// handle answers what the server asks of the client and records its
// diagnostics. It runs on the connection's read loop, so it never blocks.
func (s *server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			s.publish(p)
		}
		return reply(ctx, nil, nil)
	case protocol.MethodWorkspaceConfiguration:
		var p protocol.ConfigurationParams
		_ = json.Unmarshal(req.Params(), &p)
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			out[i] = section(s.def.settings, it.Section)
		}
		return reply(ctx, out, nil)
	case protocol.MethodWorkspaceWorkspaceFolders:
		return reply(ctx, []protocol.WorkspaceFolder{{URI: string(uri.File(s.root)), Name: s.root}}, nil)
	case protocol.MethodClientRegisterCapability, protocol.MethodClientUnregisterCapability,
		protocol.MethodWorkDoneProgressCreate, protocol.MethodWindowShowMessageRequest:
		return reply(ctx, nil, nil)
	}
	if _, isCall := req.(*jsonrpc2.Call); isCall {
		return reply(ctx, nil, jsonrpc2.ErrMethodNotFound)
	}
	return reply(ctx, nil, nil) // other notifications: logs, progress
}

// section is the dotted section of settings ("" the whole), or nil.
func section(settings map[string]any, name string) any {
	if name == "" {
		if settings == nil {
			return nil
		}
		return settings
	}
	var cur any = settings
	for _, k := range strings.Split(name, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

func (s *server) publish(p protocol.PublishDiagnosticsParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(p.Diagnostics) == 0 {
		delete(s.diags, p.URI)
	} else {
		s.diags[p.URI] = p.Diagnostics
	}
	if d, ok := s.docs[p.URI]; ok {
		d.seen++
		if int32(p.Version) > d.published {
			d.published = int32(p.Version)
		}
	}
	close(s.notify)
	s.notify = make(chan struct{})
}

// sync sends the document's text: didOpen the first time, a whole-text
// change after that. It returns the version sent and the publish count
// before it; unchanged text sends nothing (sent is false).
func (s *server) sync(ctx context.Context, u uri.URI, langID, text string) (version int32, seen int, sent bool, err error) {
	s.mu.Lock()
	d, open := s.docs[u]
	if open && d.text == text {
		v, n := d.version, d.seen
		s.mu.Unlock()
		return v, n, false, nil
	}
	if !open {
		d = &doc{}
		s.docs[u] = d
	}
	old := d.text
	d.version++
	d.text = text
	version, seen = d.version, d.seen
	s.mu.Unlock()
	if !open {
		err = s.conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: protocol.LanguageIdentifier(langID), Version: version, Text: text}})
		return version, seen, true, err
	}
	// The library's change event always carries a range, so the whole
	// old text is replaced by range (every server takes incremental sync).
	err = s.conn.Notify(ctx, protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{{Range: protocol.Range{End: endOf(old)}, Text: text}},
	})
	return version, seen, true, err
}

// endOf is the position just past the end of text, in UTF-16 units.
func endOf(text string) protocol.Position {
	line := strings.Count(text, "\n")
	last := text[strings.LastIndex(text, "\n")+1:]
	n := 0
	for _, r := range last {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return protocol.Position{Line: uint32(line), Character: uint32(n)}
}

// await waits until the server published diagnostics for u at version (or,
// for servers that send no version, any publish after seen), then for a
// short quiet spell in which more publishes may follow; false when the
// deadline passed first or the server exited.
func (s *server) await(ctx context.Context, u uri.URI, version int32, seen int, settle time.Duration) bool {
	got := false
	for {
		s.mu.Lock()
		d := s.docs[u]
		ready := d != nil && (d.published >= version || d.published == 0 && d.seen > seen)
		ch := s.notify
		s.mu.Unlock()
		got = got || ready
		var quiet <-chan time.Time
		var t *time.Timer
		if got {
			t = time.NewTimer(settle)
			quiet = t.C
		}
		select {
		case <-ch:
		case <-quiet:
			return true
		case <-ctx.Done():
			return got
		case <-s.conn.Done():
			return false
		case <-s.exited:
			return false
		}
		if t != nil {
			t.Stop()
		}
	}
}

// snapshot copies the diagnostics the server has published.
func (s *server) snapshot() map[uri.URI][]protocol.Diagnostic {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[uri.URI][]protocol.Diagnostic, len(s.diags))
	for k, v := range s.diags {
		out[k] = v
	}
	return out
}

// alive reports whether the process still runs.
func (s *server) alive() bool {
	select {
	case <-s.exited:
		return false
	case <-s.conn.Done():
		return false
	default:
		return true
	}
}

func (s *server) exitReason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exit
}

// shutdown asks the server to exit, then kills what is left.
func (s *server) shutdown(grace time.Duration) {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	if s.alive() {
		ctx, cancel := s.bounded(context.Background(), grace)
		if _, err := s.conn.Call(ctx, protocol.MethodShutdown, nil, nil); err == nil {
			_ = s.conn.Notify(ctx, protocol.MethodExit, nil)
		}
		select {
		case <-s.exited:
		case <-ctx.Done():
		}
		cancel()
	}
	s.kill()
}

func (s *server) kill() {
	s.cancel()
	_ = s.conn.Close()
	<-s.exited
}

func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 200 {
		l = l[:200] + "…"
	}
	return l
}
