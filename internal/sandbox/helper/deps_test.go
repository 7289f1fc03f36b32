package helper

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoLateInitializers keeps the helper's init ahead of the rest of
// chanto's: a dependency on package net (whose vendored imports sort
// last) would make every sandboxed command wait for some 70 other
// package initializers first.
func TestNoLateInitializers(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "net" || strings.HasPrefix(dep, "vendor/") {
			t.Errorf("package helper depends on %s; keep it to the standard library without net, x/sys and go-landlock (see doc.go)", dep)
		}
	}
}
