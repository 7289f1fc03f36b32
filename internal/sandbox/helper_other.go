//go:build !(linux && (amd64 || arm64))

package sandbox

import "errors"

// platformErr refuses to run: without bubblewrap, Landlock and seccomp
// there is no sandbox, and commands never run silently unconfined.
var platformErr = errors.New("sandbox unavailable: the sandbox needs Linux on amd64 or arm64; set [sandbox] mode = \"off\" to run commands unconfined")
