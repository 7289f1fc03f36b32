package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
)

// ErrNetworkDenied is a dial under network = "deny".
var ErrNetworkDenied = errors.New(`the network is off ([sandbox] network = "deny")`)

// WebDialer is how chanto itself reaches the network for a tool that
// fetches (web_fetch), by the same [sandbox] network setting as the
// model's commands: deny refuses every dial; allow dials anything; an
// allowlist dials only allow_domains hosts, resolved and checked the way
// the allowlist proxy checks them (public addresses only, ports 80 and 443
// unless the entry names one).
func WebDialer(cfg config.Sandbox) (func(ctx context.Context, network, addr string) (net.Conn, error), error) {
	d := &net.Dialer{Timeout: 30 * time.Second}
	switch cfg.Network {
	case NetDeny, "":
		return func(context.Context, string, string) (net.Conn, error) { return nil, ErrNetworkDenied }, nil
	case NetAllow:
		return d.DialContext, nil
	case NetAllowlist:
	default:
		return nil, fmt.Errorf("sandbox: unknown network %q (want deny, allow or allowlist)", cfg.Network)
	}
	p := &Proxy{resolver: func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}}
	for _, dom := range cfg.AllowDomains {
		r, err := canonicalPattern(dom)
		if err != nil {
			return nil, fmt.Errorf("sandbox: allow_domains: %w", err)
		}
		p.rules = append(p.rules, r)
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		ap, err := p.Check(ctx, addr, 443)
		if err != nil {
			return nil, fmt.Errorf("refused by [sandbox] allow_domains: %w", err)
		}
		return d.DialContext(ctx, network, ap.String())
	}, nil
}
