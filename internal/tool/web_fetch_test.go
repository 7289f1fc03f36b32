package tool

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func fetchServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<html><head><title>T</title><script>evil()</script></head><body><h1>Parsing</h1><p>Use <a href="/docs/x">the docs</a> and <code>Parse</code>.</p><ul><li>one</li><li>two</li></ul></body></html>`))
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("just text\n"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte(strings.Repeat("x", FetchOutputCap+500)))
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no such page", 404) })
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://elsewhere.invalid/x", http.StatusFound)
	})
	mux.HandleFunc("/here", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/plain", http.StatusFound) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func runFetch(t *testing.T, env *Env, input string) Result {
	t.Helper()
	res, err := WebFetch{}.Run(context.Background(), env, json.RawMessage(input))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestWebFetch(t *testing.T) {
	srv := fetchServer(t)
	d := &net.Dialer{}
	refusedHosts := []string{}
	env := &Env{Web: &Web{Dial: d.DialContext, Refused: func(u *url.URL) string {
		refusedHosts = append(refusedHosts, u.Hostname())
		return "fetching from " + u.Hostname() + " needs approval"
	}}}
	cases := []struct {
		input     string
		want, not []string
		isError   bool
	}{
		{input: `{"url":"` + srv.URL + `/page"}`, want: []string{"# Parsing", "[the docs](" + srv.URL + "/docs/x)", "`Parse`", "- one", "Status: 200"}, not: []string{"evil()", "<p>"}},
		{input: `{"url":"` + srv.URL + `/page","format":"text"}`, want: []string{"Parsing\nUse the docs and Parse .", "one\ntwo"}, not: []string{"evil", "<"}},
		{input: `{"url":"` + srv.URL + `/page","format":"html"}`, want: []string{"<h1>Parsing</h1>"}},
		{input: `{"url":"` + srv.URL + `/plain"}`, want: []string{"Content-Type: text/plain\n\njust text"}},
		{input: `{"url":"` + srv.URL + `/here"}`, want: []string{"URL: " + srv.URL + "/plain", "just text"}},
		{input: `{"url":"` + srv.URL + `/big"}`, want: []string{"[cut at 100000 of 100500 characters]"}},
		{input: `{"url":"` + srv.URL + `/png"}`, want: []string{"[image/png content, 10 bytes: not shown as text]"}},
		{input: `{"url":"` + srv.URL + `/missing"}`, want: []string{"Status: 404", "no such page"}, isError: true},
		{input: `{"url":"` + srv.URL + `/away"}`, want: []string{"redirected to http://elsewhere.invalid/x: fetching from elsewhere.invalid needs approval"}, isError: true},
		{input: `{"url":"file:///etc/passwd"}`, want: []string{"only http:// and https:// URLs"}, isError: true},
		{input: `{"url":"http://user:pw@example.com/"}`, want: []string{"carries credentials"}, isError: true},
		{input: `{"url":"` + srv.URL + `","format":"pdf"}`, want: []string{`format "pdf"`}, isError: true},
	}
	for _, c := range cases {
		res := runFetch(t, env, c.input)
		for _, w := range c.want {
			if !strings.Contains(res.Output, w) {
				t.Errorf("%s: output lacks %q:\n%s", c.input, w, res.Output)
			}
		}
		for _, n := range c.not {
			if strings.Contains(res.Output, n) {
				t.Errorf("%s: output has %q:\n%s", c.input, n, res.Output)
			}
		}
		if res.IsError != c.isError {
			t.Errorf("%s: IsError = %v", c.input, res.IsError)
		}
	}
	if strings.Join(refusedHosts, ",") != "elsewhere.invalid" {
		t.Errorf("redirect checks: %q (same-host redirects need none)", refusedHosts)
	}
}

// network = "deny" refuses before any connection; a dialer's refusal (an
// allowlist) is the tool's result, not an infrastructure error.
func TestWebFetchRefused(t *testing.T) {
	srv := fetchServer(t)
	dialed := false
	deny := &Env{Web: &Web{Denied: `[sandbox] network = "deny"`, Dial: func(context.Context, string, string) (net.Conn, error) {
		dialed = true
		return nil, errors.New("dialed")
	}}}
	res := runFetch(t, deny, `{"url":"`+srv.URL+`/plain"}`)
	if !res.IsError || !strings.Contains(res.Output, `web_fetch refused: [sandbox] network = "deny"`) || dialed {
		t.Errorf("deny: %+v (dialed %v)", res, dialed)
	}
	allowlist := &Env{Web: &Web{Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("refused by [sandbox] allow_domains: 127.0.0.1:80 is not in allow_domains")
	}}}
	res = runFetch(t, allowlist, `{"url":"`+srv.URL+`/plain"}`)
	if !res.IsError || !strings.Contains(res.Output, "refused by [sandbox] allow_domains") {
		t.Errorf("allowlist: %+v", res)
	}
	if res := runFetch(t, &Env{}, `{"url":"`+srv.URL+`"}`); !res.IsError {
		t.Errorf("no Web: %+v", res)
	}
}
