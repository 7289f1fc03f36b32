package sandbox

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestCanonicalHost(t *testing.T) {
	cases := []struct {
		in, want string
		bad      bool
	}{
		{in: "Example.COM", want: "example.com"},
		{in: "example.com.", want: "example.com"},
		{in: "bücher.example", want: "xn--bcher-kva.example"},
		{in: "allowed．com", want: "allowed.com"}, // full-width dot
		{in: "[::1]", want: "::1"},
		{in: "::ffff:127.0.0.1", want: "127.0.0.1"},
		{in: "192.168.1.1", want: "192.168.1.1"},
		{in: "", bad: true},
		{in: "example.com\x00.evil", bad: true},
		{in: "user@example.com", bad: true},
		{in: "user:pw@example.com", bad: true},
		{in: "example.com/path", bad: true},
		{in: "exa mple.com", bad: true},
		{in: "example..com", bad: true},
		{in: ".example.com", bad: true},
		{in: "..", bad: true},
		{in: "fe80::1%eth0", bad: true},
		{in: "0x7f.1", bad: true},
		{in: "2130706433", bad: true},
		{in: "127.1", bad: true},
		{in: "example.com\t", bad: true},
		{in: "a\\b.com", bad: true},
	}
	for _, c := range cases {
		got, err := canonicalHost(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("canonicalHost(%q) = %q, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("canonicalHost(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestDomainRules(t *testing.T) {
	rules := map[string]domainRule{}
	for _, e := range []string{"allowed.com", "*.pkg.dev", "api.example.com:8443"} {
		r, err := canonicalPattern(e)
		if err != nil {
			t.Fatal(err)
		}
		rules[e] = r
	}
	cases := []struct {
		rule, host string
		port       int
		want       bool
	}{
		{"allowed.com", "allowed.com", 443, true},
		{"allowed.com", "allowed.com", 80, true},
		{"allowed.com", "allowed.com", 22, false},
		{"allowed.com", "allowed.com.evil", 443, false},
		{"allowed.com", "evilallowed.com", 443, false},
		{"allowed.com", "sub.allowed.com", 443, false},
		{"*.pkg.dev", "go.pkg.dev", 443, true},
		{"*.pkg.dev", "a.b.pkg.dev", 443, true},
		{"*.pkg.dev", "pkg.dev", 443, false},
		{"*.pkg.dev", "evilpkg.dev", 443, false},
		{"api.example.com:8443", "api.example.com", 8443, true},
		{"api.example.com:8443", "api.example.com", 443, false},
	}
	for _, c := range cases {
		if got := rules[c.rule].allows(c.host, c.port); got != c.want {
			t.Errorf("%s allows %s:%d = %v, want %v", c.rule, c.host, c.port, got, c.want)
		}
	}
	for _, bad := range []string{"", "user@x.com", "x.com:0", "x.com:http", "a..b", "x\x00y.com"} {
		if _, err := canonicalPattern(bad); err == nil {
			t.Errorf("pattern %q accepted", bad)
		}
	}
}

func TestForbiddenAddr(t *testing.T) {
	bad := []string{"127.0.0.1", "127.8.9.10", "::1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.0.1",
		"169.254.169.254", "169.254.1.1", "fe80::1", "fc00::1", "fd12::1", "0.0.0.0", "::", "100.64.0.1",
		"224.0.0.1", "255.255.255.255", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::7f00:1",
		"2002:7f00:1::", "fd00:ec2::254", "ff02::1", "198.18.0.1"}
	for _, s := range bad {
		if forbiddenAddr(netip.MustParseAddr(s)) == "" {
			t.Errorf("%s is allowed, want refused", s)
		}
	}
	good := []string{"1.1.1.1", "8.8.8.8", "140.82.112.3", "2606:4700:4700::1111", "172.32.0.1", "64:ff9b::808:808",
		// Documentation blocks: some networks route the registries' names there.
		"203.0.113.80", "192.0.2.1", "198.51.100.7"}
	for _, s := range good {
		if why := forbiddenAddr(netip.MustParseAddr(s)); why != "" {
			t.Errorf("%s refused as %s, want allowed", s, why)
		}
	}
}

func TestProxyCheck(t *testing.T) {
	p := &Proxy{resolver: func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "allowed.test":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		case "rebind.test":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("127.0.0.1")}, nil
		case "local.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		case "meta.test":
			return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
		}
		return nil, errors.New("no such host")
	}}
	for _, d := range []string{"allowed.test", "rebind.test", "local.test", "meta.test", "127.0.0.1", "10.0.0.1:443"} {
		r, err := canonicalPattern(d)
		if err != nil {
			t.Fatal(err)
		}
		p.rules = append(p.rules, r)
	}
	cases := []struct {
		dest, want string // want: the dialed address, or a fragment of the error
	}{
		{"allowed.test:443", "93.184.216.34:443"},
		{"ALLOWED.test.:443", "93.184.216.34:443"},
		{"allowed.test", "93.184.216.34:443"},
		{"allowed.test:22", "not in allow_domains"},
		{"allowed.test.evil:443", "not in allow_domains"},
		{"user@allowed.test:443", "userinfo"},
		{"allowed.test\x00.evil:443", "control"},
		{"rebind.test:443", "loopback"},
		{"local.test:443", "loopback"},
		{"meta.test:80", "metadata"},
		{"127.0.0.1:443", "loopback"},
		{"[::ffff:127.0.0.1]:443", "loopback"},
		{"10.0.0.1:443", "private"},
		{"allowed.test:99999", "bad port"},
	}
	for _, c := range cases {
		got, err := p.Check(context.Background(), c.dest, 443)
		msg := got.String()
		if err != nil {
			msg = err.Error()
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("Check(%q) = %q, want %q", c.dest, msg, c.want)
		}
	}
}
