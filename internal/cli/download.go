package cli

import (
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/sandbox"
)

// downloadSandbox is the sandbox dependency downloads run in (go mod
// download or cargo fetch, after a check failed for want of a dependency
// it could not download): the checks' own confinement, with the network
// only through the allowlist proxy to the package registries, so a
// project-named source cannot make it reach loopback, a private range or
// any other host. Only the package manager runs there, never project
// code. It is nil, and checks get no download step, when the checks have
// the network already, when the user limited it to an allowlist, when the
// sandbox is read-only (a download writes the caches) and under lockdown.
func downloadSandbox(cfg config.Config, root string) (*sandbox.Sandbox, error) {
	sb := cfg.Sandbox
	if sb.Mode == sandbox.ModeOff || sb.Mode == sandbox.ModeReadOnly || sb.Network != sandbox.NetDeny || cfg.Permissions.Lockdown {
		return nil, nil
	}
	sb.Network, sb.AllowDomains = sandbox.NetAllowlist, registryDomains(os.Getenv("GOPROXY"), os.Getenv("GOSUMDB"))
	return sandbox.New(sb, config.FindProjectRoot(root), sandboxOptions...)
}

// registries are the hosts go mod download and cargo fetch need.
var registries = []string{"proxy.golang.org", "sum.golang.org", "index.crates.io", "static.crates.io", "crates.io"}

// registryDomains adds the hosts of the user's own GOPROXY and GOSUMDB
// (the environment chanto was started with, never the project's).
func registryDomains(goproxy, gosumdb string) []string {
	out := append([]string(nil), registries...)
	fields := strings.FieldsFunc(goproxy, func(r rune) bool { return r == ',' || r == '|' })
	if f := strings.Fields(gosumdb); len(f) > 0 {
		fields = append(fields, f[len(f)-1])
	}
	for _, f := range fields {
		u, err := url.Parse(f)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" {
			continue
		}
		host := u.Hostname()
		if p := u.Port(); p != "" {
			host += ":" + p
		}
		if !slices.Contains(out, host) {
			out = append(out, host)
		}
	}
	return out
}
