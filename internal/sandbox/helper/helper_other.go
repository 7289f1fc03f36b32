//go:build !(linux && (amd64 || arm64))

package helper

// Supported is false: the sandbox needs Linux on amd64 or arm64.
const Supported = false
