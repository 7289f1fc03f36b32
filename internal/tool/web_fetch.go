package tool

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"
)

//go:embed web_fetch.md
var webFetchDoc string

// Limits of one fetch.
const (
	fetchDefaultTimeout = 30 * time.Second
	fetchMaxTimeout     = 120 * time.Second
	fetchMaxBytes       = 5 << 20
	// FetchOutputCap bounds what the model reads of one page, in characters.
	FetchOutputCap = 100_000
	fetchRedirects = 10
)

// Web is how web_fetch reaches the network; the session builds it from
// the [sandbox] network setting and the permission rules.
type Web struct {
	// Dial connects to host:port, or refuses (network deny, a host outside
	// the allowlist).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Refused, when set, says why a redirect target may not be fetched
	// (the permission rules); "" lets it.
	Refused func(u *url.URL) string
	// Denied, when set, is the network setting's refusal of every fetch,
	// said before anything is tried.
	Denied string
}

// WebFetch is the web_fetch tool.
type WebFetch struct{}

var _ Tool = WebFetch{}

type fetchInput struct {
	URL         string `json:"url"`
	Format      string `json:"format,omitempty"`
	TimeoutSecs int    `json:"timeout_secs,omitempty"`
}

func (WebFetch) Name() string        { return "web_fetch" }
func (WebFetch) Description() string { return webFetchDoc }
func (WebFetch) ReadOnly() bool      { return true }
func (WebFetch) Schema() json.RawMessage {
	return schema(`{
"url":{"type":"string","description":"The http:// or https:// URL to fetch."},
"format":{"type":"string","enum":["markdown","text","html"],"description":"markdown (default), text or html."},
"timeout_secs":{"type":"integer","description":"Time limit in seconds (default 30, at most 120)."}}`, "url")
}

// Run fetches the URL within the session's network rules and returns the
// content in the asked format.
func (WebFetch) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	var in fetchInput
	if r := decode("web_fetch", input, &in); r != nil {
		return *r, nil
	}
	u, msg := checkFetchURL(in.URL)
	if msg != "" {
		return errorf("%s", msg), nil
	}
	switch in.Format {
	case "":
		in.Format = "markdown"
	case "markdown", "text", "html":
	default:
		return errorf("format %q: want markdown, text or html", in.Format), nil
	}
	timeout := fetchDefaultTimeout
	if in.TimeoutSecs < 0 {
		return errorf("timeout_secs must be positive"), nil
	}
	if in.TimeoutSecs > 0 {
		timeout = min(time.Duration(in.TimeoutSecs)*time.Second, fetchMaxTimeout)
	}
	web := env.Web
	if web == nil || web.Dial == nil {
		return errorf("web_fetch refused: this session has no network access for tools"), nil
	}
	if web.Denied != "" {
		return errorf("web_fetch refused: %s", web.Denied), nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	page, err := fetch(ctx, web, u)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return errorf("web_fetch %s: no answer within %s", u, timeout), nil
		}
		return errorf("web_fetch %s: %s", u, fetchError(err)), nil
	}
	return page.result(in.Format), nil
}

// checkFetchURL accepts absolute http(s) URLs without credentials.
func checkFetchURL(raw string) (*url.URL, string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case strings.TrimSpace(raw) == "":
		return nil, "url is empty"
	case err != nil:
		return nil, fmt.Sprintf("url %q: %v", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Sprintf("url %q: only http:// and https:// URLs are fetched", raw)
	case u.Host == "":
		return nil, fmt.Sprintf("url %q has no host", raw)
	case u.User != nil:
		return nil, fmt.Sprintf("url %q carries credentials; they are never sent", raw)
	}
	u.Fragment = ""
	return u, ""
}

type page struct {
	url         string
	status      int
	contentType string
	body        []byte
	cut         bool
}

func fetch(ctx context.Context, web *Web, u *url.URL) (page, error) {
	client := &http.Client{
		Transport: &http.Transport{
			DialContext:           web.Dial,
			Proxy:                 nil, // the dialer's rules decide where a request goes
			TLSHandshakeTimeout:   15 * time.Second,
			ResponseHeaderTimeout: 60 * time.Second,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= fetchRedirects {
				return fmt.Errorf("stopped after %d redirects", fetchRedirects)
			}
			if req.URL.User != nil || (req.URL.Scheme != "http" && req.URL.Scheme != "https") {
				return fmt.Errorf("redirected to %s, which is not fetched", req.URL.Redacted())
			}
			if web.Refused != nil && !strings.EqualFold(req.URL.Hostname(), via[0].URL.Hostname()) {
				if why := web.Refused(req.URL); why != "" {
					return fmt.Errorf("redirected to %s: %s", req.URL, why)
				}
			}
			return nil
		},
	}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return page{}, err
	}
	req.Header.Set("User-Agent", "chanto-web-fetch/1 (+https://github.com/chanto-dev/chanto)")
	req.Header.Set("Accept", "text/html,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return page{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, fetchMaxBytes+1))
	if err != nil {
		return page{}, err
	}
	p := page{url: resp.Request.URL.String(), status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: body}
	if len(body) > fetchMaxBytes {
		p.body, p.cut = body[:fetchMaxBytes], true
	}
	return p, nil
}

// fetchError is the cause of a failed fetch, without Go's wrapping.
func fetchError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// result renders the page for the model.
func (p page) result(format string) Result {
	media, _, _ := mime.ParseMediaType(p.contentType)
	if media == "" {
		media = http.DetectContentType(p.body)
		media, _, _ = mime.ParseMediaType(media)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\nStatus: %d\nContent-Type: %s\n\n", p.url, p.status, orUnknown(p.contentType))
	isHTML := media == "text/html" || media == "application/xhtml+xml"
	textual := isHTML || strings.HasPrefix(media, "text/") || strings.HasSuffix(media, "json") || strings.HasSuffix(media, "xml") || media == "application/javascript"
	if !textual || isBinary(p.body) {
		fmt.Fprintf(&b, "[%s content, %d bytes: not shown as text]", orUnknown(media), len(p.body))
		return Result{Output: b.String(), IsError: p.status >= 400}
	}
	content := strings.ToValidUTF8(string(p.body), "\uFFFD")
	if isHTML && format != "html" {
		content = convertHTML(content, p.url, format)
	}
	if n := utf8.RuneCountInString(content); n > FetchOutputCap {
		content = string([]rune(content)[:FetchOutputCap]) + fmt.Sprintf("\n\n[cut at %d of %d characters]", FetchOutputCap, n)
	} else if p.cut {
		content += fmt.Sprintf("\n\n[the page is larger than %d MB; only its start was read]", fetchMaxBytes>>20)
	}
	b.WriteString(strings.TrimSpace(content))
	return Result{Output: b.String(), IsError: p.status >= 400}
}

// convertHTML turns a page into Markdown (links made absolute against
// base) or into its visible text.
func convertHTML(src, base, format string) string {
	if format == "text" {
		return visibleText(src)
	}
	md, err := htmltomarkdown.ConvertString(src, converter.WithDomain(base))
	if err != nil {
		return visibleText(src)
	}
	return md
}

// visibleText is the text a reader sees: no scripts, styles or markup,
// one block per line.
func visibleText(src string) string {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return src
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "noscript", "template", "head":
				return
			case "p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "section", "article", "header", "footer":
				b.WriteByte('\n')
			}
		}
		if n.Type == html.TextNode {
			if t := strings.Join(strings.Fields(n.Data), " "); t != "" {
				b.WriteString(t + " ")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
