package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Proxy is the allowlist proxy: an HTTP proxy (CONNECT and plain
// absolute-form requests) on a Unix socket. A command in a sandbox without
// network reaches it through the helper's loopback bridge; the proxy
// checks the host against allow_domains, resolves it itself, refuses
// names that resolve to loopback, private, link-local or metadata
// addresses, checks the port, and dials the address it checked.
type Proxy struct {
	rules    []domainRule
	dir      string
	sock     string
	ln       net.Listener
	srv      *http.Server
	resolver func(ctx context.Context, host string) ([]netip.Addr, error)

	mu      sync.Mutex
	refused []string
}

// NewProxy starts a proxy for the given allow_domains entries.
func NewProxy(domains []string) (*Proxy, error) {
	p := &Proxy{resolver: func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}}
	for _, d := range domains {
		r, err := canonicalPattern(d)
		if err != nil {
			return nil, fmt.Errorf("sandbox: allow_domains: %w", err)
		}
		p.rules = append(p.rules, r)
	}
	dir, err := os.MkdirTemp("", "chanto-proxy-")
	if err != nil {
		return nil, fmt.Errorf("sandbox proxy: %w", err)
	}
	p.dir, p.sock = dir, filepath.Join(dir, "proxy.sock")
	if p.ln, err = net.Listen("unix", p.sock); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox proxy: %w", err)
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = p.srv.Serve(p.ln) }()
	return p, nil
}

// Socket is the path of the proxy's Unix socket on the host.
func (p *Proxy) Socket() string { return p.sock }

// Refused lists the refusals so far, one line each ("host:port: reason").
func (p *Proxy) Refused() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.refused...)
}

// Close stops the proxy and removes its socket.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	os.RemoveAll(p.dir)
	return err
}

func (s *Sandbox) proxySocket() (string, error) {
	s.proxyOnce.Do(func() { s.proxy, s.proxyErr = NewProxy(s.domains) })
	if s.proxyErr != nil {
		return "", s.proxyErr
	}
	return s.proxy.Socket(), nil
}

// Check decides on one destination and returns the address to dial.
func (p *Proxy) Check(ctx context.Context, hostport string, defaultPort int) (netip.AddrPort, error) {
	host, portStr, err := net.SplitHostPort(hostport)
	if err != nil {
		host, portStr = hostport, strconv.Itoa(defaultPort)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 1 || port > 65535 {
		return netip.AddrPort{}, fmt.Errorf("bad port %q", portStr)
	}
	h, err := canonicalHost(host)
	if err != nil {
		return netip.AddrPort{}, err
	}
	allowed := false
	for _, r := range p.rules {
		if r.allows(h, port) {
			allowed = true
			break
		}
	}
	if !allowed {
		return netip.AddrPort{}, fmt.Errorf("%s:%d is not in allow_domains (ports 80 and 443 unless the entry names one)", h, port)
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(h); err == nil {
		addrs = []netip.Addr{a}
	} else {
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if addrs, err = p.resolver(lctx, h); err != nil {
			return netip.AddrPort{}, fmt.Errorf("resolve %s: %v", h, err)
		}
	}
	if len(addrs) == 0 {
		return netip.AddrPort{}, fmt.Errorf("%s has no address", h)
	}
	// Every answer must be public, so a rebinding answer cannot slip in.
	for _, a := range addrs {
		if why := forbiddenAddr(a); why != "" {
			return netip.AddrPort{}, fmt.Errorf("%s resolves to %s, a %s address", h, a, why)
		}
	}
	return netip.AddrPortFrom(addrs[0].Unmap(), uint16(port)), nil
}

func (p *Proxy) refuse(w http.ResponseWriter, dest string, err error) {
	p.mu.Lock()
	p.refused = append(p.refused, dest+": "+err.Error())
	p.mu.Unlock()
	http.Error(w, "chanto sandbox: refused "+dest+": "+err.Error(), http.StatusForbidden)
}

// ServeHTTP handles CONNECT tunnels and plain proxied requests.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.serveConnect(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "chanto sandbox: proxy requests must be absolute http:// URLs or CONNECT", http.StatusBadRequest)
		return
	}
	if r.URL.User != nil {
		p.refuse(w, r.URL.Host, errors.New("userinfo in the URL"))
		return
	}
	dst, err := p.Check(r.Context(), r.URL.Host, 80)
	if err != nil {
		p.refuse(w, r.URL.Host, err)
		return
	}
	up, err := net.DialTimeout("tcp", dst.String(), 30*time.Second)
	if err != nil {
		http.Error(w, "chanto sandbox: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer up.Close()
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Close = true
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	if err := out.Write(up); err != nil {
		http.Error(w, "chanto sandbox: "+err.Error(), http.StatusBadGateway)
		return
	}
	resp, err := http.ReadResponse(bufio.NewReader(up), out)
	if err != nil {
		http.Error(w, "chanto sandbox: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

func (p *Proxy) serveConnect(w http.ResponseWriter, r *http.Request) {
	dest := r.Host
	if strings.Contains(dest, "@") {
		p.refuse(w, dest, errors.New("userinfo in the host"))
		return
	}
	dst, err := p.Check(r.Context(), dest, 443)
	if err != nil {
		p.refuse(w, dest, err)
		return
	}
	up, err := net.DialTimeout("tcp", dst.String(), 30*time.Second)
	if err != nil {
		http.Error(w, "chanto sandbox: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "chanto sandbox: cannot tunnel", http.StatusInternalServerError)
		return
	}
	c, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	_, _ = c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	go func() {
		if n := buf.Reader.Buffered(); n > 0 {
			b, _ := buf.Reader.Peek(n)
			_, _ = up.Write(b)
		}
		_, _ = io.Copy(up, c)
		closeWriteConn(up)
	}()
	_, _ = io.Copy(c, up)
	c.Close()
	up.Close()
}

func closeWriteConn(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}
