package sandbox

import (
	"errors"

	"github.com/chanto-dev/chanto/internal/sandbox/helper"
)

// platformErr refuses to run where the helper is not implemented: without
// bubblewrap, Landlock and seccomp there is no sandbox, and commands never
// run silently unconfined.
var platformErr = func() error {
	if helper.Supported {
		return nil
	}
	return errors.New("sandbox unavailable: the sandbox needs Linux on amd64 or arm64; set [sandbox] mode = \"off\" to run commands unconfined")
}()
