package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSavedAllowsArePerFolder(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	a, b := t.TempDir(), t.TempDir()
	for _, r := range []string{"Bash(go test:*)", "Edit(calc.go)", "Bash(go test:*)"} {
		if err := SaveAllow(a, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := SavedAllows(a)
	if err != nil || !slices.Equal(got, []string{"Bash(go test:*)", "Edit(calc.go)"}) {
		t.Fatalf("SavedAllows(a) = %v, %v", got, err)
	}
	if got, err := SavedAllows(b); err != nil || len(got) != 0 {
		t.Fatalf("SavedAllows(b) = %v, %v", got, err)
	}
	// A symlink to the folder is the same folder.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	if got, _ := SavedAllows(link); len(got) != 2 {
		t.Errorf("SavedAllows(link) = %v", got)
	}
}

func TestSavedAllowsBrokenFileNamesIt(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	if err := os.WriteFile(AllowFile(), []byte("[1,2"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := SavedAllows(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "allowed.json: not a JSON object") {
		t.Fatalf("err = %v", err)
	}
}
