package sandbox

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/config"
)

// web_fetch's dialer follows [sandbox] network: deny dials nothing, an
// allowlist only listed public hosts (a listed loopback address included
// stays refused, as for the proxy), allow dials anything.
func TestWebDialer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ctx := context.Background()
	addr := ln.Addr().String()

	dial, err := WebDialer(config.Sandbox{Network: NetDeny})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dial(ctx, "tcp", addr); !errors.Is(err, ErrNetworkDenied) {
		t.Errorf("deny: %v", err)
	}
	dial, _ = WebDialer(config.Sandbox{Network: NetAllowlist, AllowDomains: []string{"example.com", addr}})
	if _, err := dial(ctx, "tcp", "pkg.go.dev:443"); err == nil || !strings.Contains(err.Error(), "not in allow_domains") {
		t.Errorf("unlisted host: %v", err)
	}
	if _, err := dial(ctx, "tcp", addr); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("listed loopback: %v", err)
	}
	dial, _ = WebDialer(config.Sandbox{Network: NetAllow})
	c, err := dial(ctx, "tcp", addr)
	if err != nil {
		t.Fatalf("allow: %v", err)
	}
	c.Close()
	if _, err := WebDialer(config.Sandbox{Network: "open"}); err == nil {
		t.Error("bad network accepted")
	}
}
