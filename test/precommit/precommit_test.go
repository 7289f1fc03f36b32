// Package precommit tests .pre-commit-hooks.yaml: the file reads as the
// pre-commit framework's hook list, and the real pre-commit (scripts/test
// installs it) runs its entry, chanto verify, on the change being
// committed and stops a commit the project's checks do not agree with.
package precommit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// hook is one entry of .pre-commit-hooks.yaml, with the keys pre-commit
// reads.
type hook struct {
	ID            string `yaml:"id"`
	Name          string `yaml:"name"`
	Entry         string `yaml:"entry"`
	Language      string `yaml:"language"`
	PassFilenames *bool  `yaml:"pass_filenames"`
	AlwaysRun     bool   `yaml:"always_run"`
	RequireSerial bool   `yaml:"require_serial"`
	Description   string `yaml:"description"`
}

var root = filepath.Join("..", "..")

func TestHooksFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []hook
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&hooks); err != nil {
		t.Fatalf("not a list of hooks: %v", err)
	}
	langs := map[string]string{}
	for _, h := range hooks {
		if h.ID == "" || h.Name == "" || h.Entry == "" || h.Language == "" {
			t.Errorf("%+v lacks a required key", h)
		}
		// chanto verify finds the change itself; file names would be
		// taken for arguments it does not have.
		if h.PassFilenames == nil || *h.PassFilenames || !h.AlwaysRun || !h.RequireSerial {
			t.Errorf("%s: want pass_filenames: false, always_run and require_serial", h.ID)
		}
		if h.Entry != "chanto verify" {
			t.Errorf("%s: entry %q", h.ID, h.Entry)
		}
		langs[h.Language] = h.ID
	}
	if langs["golang"] != "chanto-verify" || langs["system"] != "chanto-verify-system" {
		t.Errorf("hooks by language: %v", langs)
	}
}

// TestPreCommitRunsVerify runs the system hook with the real pre-commit
// (try-repo, from this repository) on a Go project: a staged change that
// breaks a test stops the commit with the evidence line, even with a fix
// lying unstaged in the tree (pre-commit checks what is committed); the
// staged fix passes.
func TestPreCommitRunsVerify(t *testing.T) {
	precommit, err := exec.LookPath("pre-commit")
	if err != nil {
		t.Fatal("pre-commit is needed for this test (scripts/test installs it: apt-get install pre-commit)")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "chanto"), "./cmd/chanto")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "PRE_COMMIT_HOME="+t.TempDir(),
		"GIT_AUTHOR_NAME=chanto test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=chanto test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "GOFLAGS=-mod=mod")
	sh := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = proj, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(proj, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	good := "package calc\n\n// Add returns a plus b.\nfunc Add(a, b int) int { return a + b }\n"
	bad := strings.Replace(good, "a + b", "a - b", 1)
	write("go.mod", "module example.com/calc\n\ngo 1.22\n")
	write("calc/calc.go", good)
	write("calc/calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Errorf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "init"}} {
		if out, err := sh("git", args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run := func() (string, error) { return sh(precommit, "try-repo", repo, "chanto-verify-system") }

	// The break is staged, the fix only in the tree.
	write("calc/calc.go", bad)
	if out, err := sh("git", "add", "calc/calc.go"); err != nil {
		t.Fatal(out)
	}
	write("calc/calc.go", good)
	out, err := run()
	if err == nil || !strings.Contains(out, "⚠ Not verified: go test ./... failed: TestAdd.") || !strings.Contains(out, "exit code: 3") {
		t.Errorf("the staged break passed pre-commit (%v):\n%s", err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(proj, "calc", "calc.go")); string(data) != good {
		t.Errorf("pre-commit lost the unstaged fix: %s", data)
	}

	// The fix staged: the commit may go.
	if out, err := sh("git", "add", "calc/calc.go"); err != nil {
		t.Fatal(out)
	}
	out, err = run()
	if err != nil || !strings.Contains(out, "Passed") {
		t.Errorf("the staged fix did not pass (%v):\n%s", err, out)
	}
}
