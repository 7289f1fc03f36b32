package cli

import "github.com/chanto-dev/chanto/internal/app"

// registryDomains is app.RegistryDomains, under the name its test uses.
func registryDomains(goproxy, gosumdb string) []string { return app.RegistryDomains(goproxy, gosumdb) }
