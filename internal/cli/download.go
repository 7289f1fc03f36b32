package cli

import (
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/sandbox"
)

// downloadSandbox is the sandbox dependency downloads run in (go mod
// download or cargo fetch, after a check failed for want of a dependency
// it could not download): the checks' own confinement, with the network.
// Only the package manager runs there, never project code, and no
// allowlist is used because registries and their mirrors often resolve
// to addresses the allowlist proxy refuses (a company mirror on a private
// network). It is nil, and checks get no download step, when the checks
// have the network already, when the user limited it to an allowlist,
// when the sandbox is read-only (a download writes the caches) and under
// lockdown.
func downloadSandbox(cfg config.Config, root string) (*sandbox.Sandbox, error) {
	sb := cfg.Sandbox
	if sb.Mode == sandbox.ModeOff || sb.Mode == sandbox.ModeReadOnly || sb.Network != sandbox.NetDeny || cfg.Permissions.Lockdown {
		return nil, nil
	}
	sb.Network, sb.AllowDomains = sandbox.NetAllow, nil
	return sandbox.New(sb, config.FindProjectRoot(root), sandboxOptions...)
}
