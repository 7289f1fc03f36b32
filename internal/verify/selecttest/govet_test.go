package selecttest

import (
	"testing"

	"github.com/chanto-dev/chanto/internal/verify/detect"
)

func vetCheck(dir string) detect.Check {
	return detect.Check{Command: "go vet ./...", Args: []string{"go", "vet", "./..."}, Dir: dir,
		Runner: detect.GoVet, Narrowable: true}
}

// TestGoVetSelection: vet looks at the changed packages and everything
// that imports them (code or tests, directly or not), since its facts flow
// to importers; the usual rules vet the whole module.
func TestGoVetSelection(t *testing.T) {
	setHome(t)
	dir := goModule(t)
	cases := []struct {
		name    string
		changed []string
		added   []string
		command string // empty: the whole module
		reason  string
	}{
		{"importers by code, by tests and programs", []string{"a/a.go"}, nil, "go vet ./a ./b ./c ./cmd/tool", ""},
		{"an external test package's import", []string{"c/c.go"}, nil, "go vet ./c ./x", ""},
		{"a changed test file is vetted with its package", []string{"b/b_test.go"}, nil, "go vet ./b", ""},
		{"a test file alone gives importers no fact", []string{"a/a_test.go"}, nil, "go vet ./a", ""},
		{"a test file beside code: the code's importers", []string{"a/a_test.go", "c/c.go"}, nil, "go vet ./a ./c ./x", ""},
		{"a package without tests", []string{"notest/n.go"}, nil, "go vet ./notest", ""},
		{"test data: its package only", []string{"d/testdata/in.txt"}, nil, "go vet ./d", ""},
		{"nested module files belong to that module", []string{"d/d.go", "nested/n.go"}, nil, "go vet ./d", ""},
		{"not Go code", []string{"a/a.go", "README.md"}, nil, "", "README.md is not Go code"},
		{"go.mod", []string{"go.mod", "a/a.go"}, nil, "", "go.mod changed"},
		{"only another module changed", []string{"nested/n.go"}, nil, "", "no Go package changed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sel := mustSelect(t, Input{Check: vetCheck(dir), Changed: tc.changed, Added: tc.added})
			if tc.command == "" {
				wantFull(t, sel, tc.reason)
				return
			}
			wantNarrow(t, sel, tc.command)
		})
	}
}

func TestGoVetSmallProjectRunsFull(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"go.mod":      "module example.com/s\n\ngo 1.22\n",
		"a/a.go":      "package a\n",
		"a/a_test.go": "package a\n",
		"b/b.go":      "package b\n",
	})
	sel := mustSelect(t, Input{Check: vetCheck(dir), Changed: []string{"a/a.go"}})
	wantFull(t, sel, "the project has 20 or fewer test files")
}
