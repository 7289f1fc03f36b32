package cli

import (
	"context"
	"errors"
	"fmt"
)

// Exit codes, the one place they are defined (DESIGN §1).
const (
	ExitOK          = 0 // verified, or nothing to verify
	ExitError       = 1 // error or interrupted
	ExitUsage       = 2 // bad usage
	ExitNotVerified = 3 // the checks do not agree
)

// exitError carries an exit code up to Main. A nil err means the code is
// the whole story (the command already printed what it had to say).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err (which may be nil) with an exit code.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// usageError marks a bad-usage mistake (exit 2).
func usageError(format string, args ...any) error {
	return withCode(ExitUsage, fmt.Errorf(format, args...))
}

// codeOf maps an error returned by a command to the process exit code.
func codeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if errors.Is(err, context.Canceled) {
		return ExitError
	}
	return ExitError
}
