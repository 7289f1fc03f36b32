// Package llmtest serves scripted HTTP replies, server-sent events
// included, so provider tests exercise the real SDKs against the real wire
// format, and records every request for inspection.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Reply is one scripted HTTP answer.
type Reply struct {
	// Status defaults to 200.
	Status int
	// Header is added to the response.
	Header map[string]string
	// Body is written as is (JSON errors). Ignored when Events is set.
	Body string
	// Events are SSE frames ("event: x\ndata: {...}"), each written and
	// flushed separately, so the client sees them arrive in pieces.
	Events []string
	// Cut closes the connection abruptly after Events, without ending the
	// chunked body, as a dropped network connection would.
	Cut bool
	// Hang stops answering after Events (before anything at all when
	// Events is nil) until the client gives up, as a stalled server would.
	Hang bool
}

// Request is one recorded request.
type Request struct {
	Method, Path string
	Header       http.Header
	Raw          []byte
	Body         map[string]any
}

// Server replays Replies in order; a request past the last one fails the
// test.
type Server struct {
	*httptest.Server
	t        testing.TB
	mu       sync.Mutex
	replies  []Reply
	requests []Request
}

// NewServer starts a server that answers with replies, in order.
func NewServer(t testing.TB, replies ...Reply) *Server {
	s := &Server{t: t, replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	_ = json.Unmarshal(raw, &rec.Body)
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, rec)
	var reply Reply
	ok := n < len(s.replies)
	if ok {
		reply = s.replies[n]
	}
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("llmtest: unexpected request %d to %s (only %d replies scripted)", n+1, r.URL.Path, len(s.replies))
		http.Error(w, `{"error":{"type":"test_error","message":"no reply scripted"}}`, http.StatusTeapot)
		return
	}
	if reply.Hang && reply.Events == nil {
		<-r.Context().Done()
		return
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	if reply.Events == nil {
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, reply.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(status)
	fl := w.(http.Flusher)
	for _, ev := range reply.Events {
		fmt.Fprintf(w, "%s\n\n", strings.TrimRight(ev, "\n"))
		fl.Flush()
	}
	if reply.Hang {
		<-r.Context().Done()
		return
	}
	if reply.Cut {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			s.t.Errorf("llmtest: hijack: %v", err)
			return
		}
		conn.Close()
	}
}

// Event formats an SSE frame with an event name and a JSON payload.
func Event(name, data string) string {
	return "event: " + name + "\ndata: " + data
}

// Data formats an SSE frame with only a data line.
func Data(data string) string { return "data: " + data }
