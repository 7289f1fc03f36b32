package sandbox

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// defaultPorts are the ports an allowlisted host may be reached on unless
// its entry names another ("example.com:8443").
var defaultPorts = []int{80, 443}

// domainRule is one allow_domains entry.
type domainRule struct {
	host     string // canonical; without the "*." of a wildcard
	wildcard bool   // "*.example.com": any subdomain, not the apex
	port     int    // 0: the default ports
}

// canonicalHost returns the one spelling of a host name that matching
// uses: IDNA to ASCII, lower case, no trailing dot. It refuses what a
// well-formed host never holds (NUL, userinfo, spaces, paths, empty labels).
func canonicalHost(h string) (string, error) {
	if h == "" {
		return "", errors.New("empty host")
	}
	for _, r := range h {
		if r < 0x21 || r == 0x7f {
			return "", fmt.Errorf("host %q holds a control or space character", h)
		}
	}
	if strings.ContainsAny(h, "@/\\?#%,;") {
		return "", fmt.Errorf("host %q holds a character hosts never hold (userinfo, path or zone)", h)
	}
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap().String(), nil
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" || strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
		return "", fmt.Errorf("host %q has an empty label", h)
	}
	ascii, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("host %q: %v", h, err)
	}
	ascii = strings.ToLower(strings.TrimSuffix(ascii, "."))
	if ascii == "" || strings.Contains(ascii, "..") {
		return "", fmt.Errorf("host %q has an empty label", h)
	}
	// Numeric forms the resolver would read as an address (0x7f.1, 2130706433).
	if looksNumeric(ascii) {
		return "", fmt.Errorf("host %q is an address in disguise", h)
	}
	return ascii, nil
}

// looksNumeric reports a last label made of digits or hex, which libc
// resolvers turn into an IPv4 address.
func looksNumeric(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if strings.HasPrefix(last, "0x") {
		return true
	}
	_, err := strconv.ParseUint(last, 10, 64)
	return err == nil
}

// canonicalPattern parses an allow_domains entry.
func canonicalPattern(entry string) (domainRule, error) {
	var r domainRule
	e := strings.TrimSpace(entry)
	if host, port, ok := strings.Cut(e, ":"); ok && !strings.Contains(port, ":") {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return r, fmt.Errorf("%q: bad port", entry)
		}
		r.port, e = n, host
	}
	if strings.HasPrefix(e, "*.") {
		r.wildcard, e = true, e[2:]
	}
	h, err := canonicalHost(e)
	if err != nil {
		return r, fmt.Errorf("%q: %w", entry, err)
	}
	r.host = h
	return r, nil
}

// allows reports whether a canonical host and port match the rule, label
// by label: "example.com" never matches "example.com.evil" or "badexample.com".
func (r domainRule) allows(host string, port int) bool {
	if r.port != 0 && port != r.port {
		return false
	}
	if r.port == 0 && port != defaultPorts[0] && port != defaultPorts[1] {
		return false
	}
	if r.wildcard {
		return strings.HasSuffix(host, "."+r.host)
	}
	return host == r.host
}

// forbiddenPrefixes are address ranges a sandboxed command must never
// reach through the proxy even when a name resolves there: the host's own,
// private networks, shared and special-purpose blocks. The documentation
// blocks (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24) are not here: no
// host service lives on them, and some networks route public names such as
// the package registries through them, where refusing them only broke the
// download step.
var forbiddenPrefixes = mustPrefixes(
	"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
	"172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15",
	"224.0.0.0/4", "240.0.0.0/4",
	"::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8", "2001:db8::/32",
	"fd00:ec2::254/128", "64:ff9b:1::/48",
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// forbiddenAddr names why an address may not be reached, or "".
func forbiddenAddr(a netip.Addr) string {
	a = a.Unmap()
	// NAT64 and 6to4 embed an IPv4 address; judge the embedded one.
	if a.Is6() {
		b := a.As16()
		if netip.MustParsePrefix("64:ff9b::/96").Contains(a) {
			return forbiddenAddr(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		}
		if netip.MustParsePrefix("2002::/16").Contains(a) {
			return forbiddenAddr(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	switch {
	case a.IsLoopback():
		return "loopback"
	case a == netip.MustParseAddr("169.254.169.254"):
		return "cloud metadata"
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsPrivate():
		return "private"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast():
		return "multicast"
	}
	for _, p := range forbiddenPrefixes {
		if p.Contains(a) {
			return "reserved (" + p.String() + ")"
		}
	}
	return ""
}
