package cli

import (
	"os/exec"
	"path/filepath"
	"slices"
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

// Go runs the package initializer of every package a binary links, before
// main, in every process: verify, hooks, --version and the sandbox
// helper's parent. These filled registries there (chroma's 240 lexers and
// 70 styles, five JSON-schema drafts' meta-schemas: about 40 ms of CPU
// and 8 MB of heap); docs/benchmarks.md, "Start-up".
func TestCostlyInitializersStayUnlinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cmd/chanto").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range []string{
		"github.com/alecthomas/chroma/v2/lexers", "github.com/alecthomas/chroma/v2/styles",
		"charm.land/glamour/v2/ansi", "github.com/santhosh-tekuri/jsonschema/v6",
	} {
		if slices.Contains(strings.Fields(string(out)), pkg) {
			t.Errorf("chanto links %s, whose package init runs in every process", pkg)
		}
	}
}
