// Package helper is the part of the sandbox that runs inside it: any
// binary that links it, started with Arg as its first argument, applies
// a process limit, Landlock and a seccomp filter to itself and then
// becomes the command (or, with the allowlist proxy, runs it and relays
// its connections). bubblewrap starts it (internal/sandbox builds that
// command line).
//
// It is a package of its own, with few imports, for the sake of start-up
// time: the Go runtime initializes a package only after every package it
// imports, and among the ready ones in import-path order, so the helper's
// init (which never returns) runs before the costly initializers of the
// rest of chanto (HTTP and SDK packages build their tables; chroma's
// lexer and style registries and a JSON-schema library's meta-schemas were
// here too, until they stopped being linked).
// Keep its imports to the standard library, x/sys and go-landlock, and
// never package net: net waits for vendored packages, whose paths sort
// after every other, so importing it put the helper behind 70 other
// initializers (about 100 ms under load). The allowlist case, which needs
// net, is package bridge's.
package helper

// Arg, as the first argument, turns the binary into the helper.
const Arg = "__sandbox-exec"

// BridgeAddr is where, inside the sandbox, the helper listens and relays
// to the allowlist proxy's Unix socket.
const BridgeAddr = "127.0.0.1:3128"
