package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeadCodeEliminationStaysOn guards the binary's size and resident
// memory: if anything linked in can call reflect.Value.Method or
// MethodByName (cobra's custom templates, text/template execution), the
// linker keeps every exported method of every reachable type, and the
// provider SDKs alone then double the binary and push peak RSS past its
// target (docs/benchmarks.md).
func TestDeadCodeEliminationStaysOn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "chanto")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/chanto").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	for _, sym := range []string{" reflect.Value.MethodByName", " reflect.Value.Method\n"} {
		if strings.Contains(string(out), sym) {
			t.Errorf("the binary links%s: dead-code elimination of methods is off", strings.TrimSpace(sym))
		}
	}
}
