package selecttest

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// writeTree creates files (slash paths → content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// mustSelect runs Select and fails the test on error.
func mustSelect(t *testing.T, in Input) Selection {
	t.Helper()
	sel, err := Select(context.Background(), &run.Runner{}, in)
	if err != nil {
		t.Fatalf("Select: %v", err)
	}
	return sel
}

// wantNarrow checks a related selection's command and targets.
func wantNarrow(t *testing.T, sel Selection, command string) {
	t.Helper()
	if sel.Full {
		t.Fatalf("got full suite (%s), want %s", sel.Reason, command)
	}
	if sel.Command != command {
		t.Fatalf("command = %q, want %q (reason %q)", sel.Command, command, sel.Reason)
	}
}

// wantFull checks a full selection's reason.
func wantFull(t *testing.T, sel Selection, reason string) {
	t.Helper()
	if !sel.Full {
		t.Fatalf("got related %q, want full suite (%s)", sel.Command, reason)
	}
	if sel.Reason.String() != reason {
		t.Fatalf("reason = %q, want %q", sel.Reason, reason)
	}
}

func setHome(t *testing.T) {
	t.Helper()
	t.Setenv("CHANTO_HOME", t.TempDir())
}

func goCheck(dir string) detect.Check {
	return detect.Check{Command: "go test ./...", Args: []string{"go", "test", "./..."}, Dir: dir,
		Runner: detect.Go, Narrowable: true}
}

// equal compares string lists, nil and empty alike.
func equal(a, b []string) bool { return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b) }
