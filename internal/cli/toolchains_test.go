package cli

import (
	"os"
	"os/exec"
	"testing"
)

// TestToolchainsPresentInCI keeps the suite honest: the scripts skip a
// language whose toolchain is missing so a developer without cargo can
// still run the rest, but in CI (CI=true) a missing toolchain is a failure,
// never a silently skipped language. scripts/test installs them.
func TestToolchainsPresentInCI(t *testing.T) {
	if os.Getenv("CI") == "" {
		t.Skip("only enforced in CI (CI=true)")
	}
	for _, c := range [][]string{
		{"/usr/bin/python3", "-c", "import pytest"},
		{"cargo", "--version"},
		{"npm", "--version"},
		{"node", "--version"},
		{"go", "version"},
		{"git", "--version"},
		{"/usr/bin/bwrap", "--version"},
		{"rg", "--version"},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Errorf("%v: %v\n%s\n(scripts/test installs the toolchains the tests need)", c, err, out)
		}
	}
}
