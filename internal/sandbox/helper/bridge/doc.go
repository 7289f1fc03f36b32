// Package bridge is the part of the in-sandbox helper that serves the
// allowlist proxy: it runs the command as a child, relays each TCP
// connection on the sandbox's loopback to the proxy's Unix socket, and
// returns the command's exit status. It is apart from package helper
// because it needs package net, which the Go runtime initializes late (its
// vendored dependencies sort last): the helper's common case must not wait
// for it.
package bridge
