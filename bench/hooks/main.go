// Command hooks measures `chanto hook claude` as Claude Code runs it: one
// process per event, the turn kept on disk between them.
//
//	go run ./bench/hooks -n 20 [-sandbox off]
//
// Figures (medians of n runs, wall time of the whole process):
//   - start-up: `/bin/true` as a hook (what the agent pays for any hook),
//     and chanto answering an event it ignores (start-up, config, runner);
//   - Stop through a covering own run: a 12-package Go module, the model
//     edited one package and ran go vet ./... and go test ./... itself
//     (PostToolUse, success), so the gate runs no check (target: ≤ 50 ms
//     beyond the start-up);
//   - UserPromptSubmit on a committed 10,000-file repository: the turn
//     snapshot taken and saved (target: ≤ 150 ms).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 20, "runs per figure")
	chanto := flag.String("chanto", "", "chanto binary (default: build ./cmd/chanto)")
	sandbox := flag.String("sandbox", "", "[sandbox] mode for the checks and git (default: chanto's default)")
	flag.Parse()
	tmp, err := os.MkdirTemp("", "bench-hooks-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if *chanto == "" {
		*chanto = filepath.Join(tmp, "chanto")
		if out, err := exec.Command("go", "build", "-o", *chanto, "./cmd/chanto").CombinedOutput(); err != nil {
			log.Fatalf("build: %v\n%s", err, out)
		}
	}
	home := filepath.Join(tmp, "home")
	os.MkdirAll(home, 0o755)
	if *sandbox != "" {
		os.WriteFile(filepath.Join(home, "config.toml"), []byte("[sandbox]\nmode = \""+*sandbox+"\"\n"), 0o644)
	}
	b := &bench{chanto: *chanto, env: append(os.Environ(), "CHANTO_HOME="+home)}

	mod := goModule(tmp, 12)
	trueHook := b.median(*n, func(int) time.Duration { return timed(exec.Command("/bin/true"), nil) })
	ignored := b.median(*n, func(i int) time.Duration {
		_, d := b.hook(event(mod, fmt.Sprintf("ign-%d", i), "Notification", nil))
		return d
	})
	stop := b.median(*n, func(i int) time.Duration { return b.stopThroughOwnRun(mod, i) })
	big := gitRepo(filepath.Join(tmp, "big"), 10000)
	prompt := b.median(*n, func(i int) time.Duration {
		_, d := b.hook(event(big, fmt.Sprintf("ups-%d", i), "UserPromptSubmit", nil))
		return d
	})

	fmt.Printf("| figure | wall (median of %d) | target |\n|---|---|---|\n", *n)
	fmt.Printf("| `/bin/true` as a hook | %s | |\n", ms(trueHook))
	fmt.Printf("| `chanto hook claude`, an event it ignores (start-up, config, runner) | %s | |\n", ms(ignored))
	fmt.Printf("| Stop through the model's covering own runs (12-package module) | %s | |\n", ms(stop))
	fmt.Printf("| … beyond chanto's start-up | %s | ≤ 50 ms |\n", ms(stop-ignored))
	fmt.Printf("| … beyond `/bin/true` | %s | |\n", ms(stop-trueHook))
	fmt.Printf("| UserPromptSubmit, 10,000-file repository (snapshot taken and saved) | %s | ≤ 150 ms |\n", ms(prompt))
	fmt.Printf("| … beyond chanto's start-up | %s | |\n", ms(prompt-ignored))
}

type bench struct {
	chanto string
	env    []string
}

// hook runs one event and returns the answer and the wall time.
func (b *bench) hook(payload []byte) (string, time.Duration) {
	cmd := exec.Command(b.chanto, "hook", "claude")
	cmd.Env = b.env
	var out bytes.Buffer
	cmd.Stdout = &out
	d := timed(cmd, payload)
	return out.String(), d
}

// stopThroughOwnRun plays one turn and times its Stop: the prompt, an
// edit, the model's own go vet and go test (both passed), the stop.
func (b *bench) stopThroughOwnRun(mod string, i int) time.Duration {
	session := fmt.Sprintf("stop-%d", i)
	file := filepath.Join(mod, "pkg05", "pkg.go")
	orig, _ := os.ReadFile(file)
	defer os.WriteFile(file, orig, 0o644)
	b.hook(event(mod, session, "UserPromptSubmit", nil))
	os.WriteFile(file, bytes.Replace(orig, []byte("return 5"), []byte("return 5 + 0"), 1), 0o644)
	for _, c := range []string{"go vet ./...", "go test ./..."} {
		b.hook(event(mod, session, "PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": c},
			"tool_response": map[string]any{"stdout": "ok", "stderr": "", "interrupted": false}}))
	}
	out, d := b.hook(event(mod, session, "Stop", map[string]any{"stop_hook_active": false}))
	if !strings.Contains(out, "Verified") || !strings.Contains(out, "your own run, not repeated") {
		log.Fatalf("stop did not stand on the own runs: %s", out)
	}
	return d
}

func event(dir, session, name string, fields map[string]any) []byte {
	p := map[string]any{"session_id": session, "cwd": dir, "prompt_id": "p-" + session, "hook_event_name": name}
	for k, v := range fields {
		p[k] = v
	}
	data, _ := json.Marshal(p)
	return data
}

func timed(cmd *exec.Cmd, stdin []byte) time.Duration {
	cmd.Stdin = bytes.NewReader(stdin)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		log.Fatalf("%v: %v", cmd.Args, err)
	}
	return time.Since(start)
}

func (b *bench) median(n int, f func(int) time.Duration) time.Duration {
	f(-1) // warm caches
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = f(i)
	}
	slices.Sort(ds)
	return ds[n/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// goModule writes a committed Go module of pkgs packages, each with a test.
func goModule(tmp string, pkgs int) string {
	dir := filepath.Join(tmp, "mod")
	files := map[string]string{"go.mod": "module bench\n\ngo 1.22\n"}
	for i := 0; i < pkgs; i++ {
		p := fmt.Sprintf("pkg%02d", i)
		files[p+"/pkg.go"] = fmt.Sprintf("package %s\n\n// V returns %d.\nfunc V() int { return %d }\n", p, i, i)
		files[p+"/pkg_test.go"] = fmt.Sprintf("package %s\n\nimport \"testing\"\n\nfunc TestV(t *testing.T) {\n\tif V() != %d {\n\t\tt.Fatal(V())\n\t}\n}\n", p, i)
	}
	writeAll(dir, files)
	commit(dir)
	return dir
}

// gitRepo writes a committed repository of n small Go files.
func gitRepo(dir string, n int) string {
	files := map[string]string{}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("pkg%03d/f%d.go", i/50, i)] = fmt.Sprintf("package pkg%03d\n\n// F%d returns %d.\nfunc F%d() int { return %d }\n%s", i/50, i, i, i, i, strings.Repeat("// padding line\n", 40))
	}
	writeAll(dir, files)
	commit(dir)
	return dir
}

func writeAll(dir string, files map[string]string) {
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

func commit(dir string) {
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@b", "-c", "gc.auto=0", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			log.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
