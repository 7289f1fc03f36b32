package selecttest

import (
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// Reasons FallbackReason gives; the caller runs the full suite and shows one.
var (
	FallbackMissing = runner.FallbackMissing
	FallbackNoTests = runner.FallbackNoTests
)

// FallbackReason inspects the output of a narrowed run (Selection.Full
// false) and reports whether it could not really run: a path or package it
// named was missing, or it collected no tests. Then the caller runs the
// full suite instead (DESIGN §5), with the returned reason in the
// evidence. A narrowed run that ran tests and failed is a real failure and
// returns false. Each runner knows its own signs (runner.Runner.Fallback).
func FallbackReason(r detect.Runner, exitCode int, output []byte) (scope.Reason, bool) {
	return runner.For(r).Fallback(exitCode, output)
}
