//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// There are no pids cgroups off Linux (pidsHierarchy finds none, so
// these are never reached); they fail closed all the same.

var errNoCgroups = errors.New("sandbox: process limit: cgroups are Linux-only")

func startIntoCgroup(*exec.Cmd, string) error           { return errNoCgroups }
func startFromThreadIn(*exec.Cmd, string, string) error { return errNoCgroups }
