// Package agents runs chanto's hook gate inside the real Claude Code and
// Codex CLIs, installed from npm into a cache folder, each pointed at a
// local fake model that speaks its wire format and follows a script.
package agents

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The agents' versions are pinned: a new release can change payloads,
// and the fixtures of internal/hookgate are recorded from these.
const (
	claudePackage = "@anthropic-ai/claude-code@2.1.332"
	codexPackage  = "@openai/codex@0.171.0"
)

var chantoBin string

// agentMinutes bounds one agent run.
var agentMinutes = 4

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "chanto-agents-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	chantoBin = filepath.Join(dir, "chanto")
	build := exec.Command("go", "build", "-o", chantoBin, "../../cmd/chanto")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build chanto: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cacheDir is where the agents are installed: $CHANTO_AGENTS_CACHE, else
// the user's cache folder. A second run reuses the installation.
func cacheDir(t *testing.T) string {
	if d := os.Getenv("CHANTO_AGENTS_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("no cache folder for the agents: %v (set CHANTO_AGENTS_CACHE)", err)
	}
	return filepath.Join(d, "chanto-test-agents")
}

var installMu sync.Mutex

// install puts pkg (name@version) into the cache with npm and returns the
// path of its native binary, rel below node_modules.
func install(t *testing.T, pkg, rel string) string {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Fatalf("the agent tests know the linux-x64 packages only (this is %s/%s)", runtime.GOOS, runtime.GOARCH)
	}
	installMu.Lock()
	defer installMu.Unlock()
	prefix := filepath.Join(cacheDir(t), strings.NewReplacer("@", "", "/", "-").Replace(pkg))
	bin := filepath.Join(prefix, "node_modules", rel)
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm is needed to install %s (scripts/test installs it): %v", pkg, err)
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", prefix, pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s: %v\n%s", pkg, err, out)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("npm installed %s but %s is missing: %v", pkg, bin, err)
	}
	return bin
}

func claudeBinary(t *testing.T) string {
	return install(t, claudePackage, "@anthropic-ai/claude-code-linux-x64/claude")
}

func codexBinary(t *testing.T) string {
	return install(t, codexPackage, "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex")
}

// project is the Go module the scripted models work on, with calc.go as
// given (brokenCalc: TestAdd fails).
func project(t *testing.T, calc string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":       "module calc\n\ngo 1.22\n",
		"calc.go":      calc,
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

const (
	brokenCalc = "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a - b }\n"
	fixedCalc  = "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n"
)

// wrongCalc is calc.go with Add computing expr.
func wrongCalc(expr string) string {
	return "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return " + expr + " }\n"
}

// writeFile is a shell command that writes content to name.
func writeFile(name, content string) string {
	return "cat > " + name + " <<'EOF'\n" + content + "EOF"
}

// chantoHome is a fresh chanto home for one test: its own history, and
// max_attempts when the test sets it.
func chantoHome(t *testing.T, config string) string {
	t.Helper()
	home := t.TempDir()
	if config != "" {
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// goEnv keeps the Go caches warm when HOME is a temp folder.
func goEnv(t *testing.T) []string {
	var env []string
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, v+"="+strings.TrimSpace(string(out)))
	}
	return env
}

// agentContext bounds one agent run: a hung agent fails its test with
// what it printed instead of stalling the suite.
func agentContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(agentMinutes)*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
