// Command cli measures the chanto binary from the outside, as a user meets
// it: the start-up time of `chanto --version`, and the harness overhead per
// tool call of a print-mode run in which the scripted model makes ten
// sequential `echo hi` bash calls (wall time of the run, minus the time of
// the same ten commands run bare, divided by ten), with the peak RSS of that
// run.
//
//	go run ./bench/cli -version-runs 100 -step-runs 20
//
// It builds ./cmd/chanto into a temporary folder (or takes -bin) and
// executes a plain copy of that binary: the file the Go linker writes sits
// in the page cache in large folios, which a process maps whole, so its
// resident set counts 2 MB pieces of the binary it never touched (on Linux
// 6.18 a linked chanto waiting for its prompt had 38 MB of file pages, a
// copy of the same bytes 22 MB). One line reports --version run from the
// linked file itself, for comparison.
// Processes are started with os/exec directly, not internal/run: this is a
// measuring harness outside chanto, and it needs each child's rusage.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(benchMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	versionRuns int
	stepRuns    int
	steps       int
	sandbox     string
	bin         string
	keep        bool
}

func benchMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cli", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.versionRuns, "version-runs", 100, "timed runs of chanto --version")
	fs.IntVar(&o.stepRuns, "step-runs", 20, "timed print-mode runs")
	fs.IntVar(&o.steps, "steps", 10, "echo tool calls per print-mode run")
	fs.StringVar(&o.sandbox, "sandbox", "", "pass --sandbox MODE to the print-mode runs (empty: the default)")
	fs.StringVar(&o.bin, "bin", "", "measure this chanto binary instead of building ./cmd/chanto (to time two builds with one bench)")
	fs.BoolVar(&o.keep, "keep", false, "keep the work folder")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.versionRuns < 1 || o.stepRuns < 1 || o.steps < 1 {
		fmt.Fprintln(stderr, "cli: -version-runs, -step-runs and -steps must be at least 1")
		return 2
	}
	work, err := os.MkdirTemp("", "chanto-bench-cli-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if !o.keep {
		defer os.RemoveAll(work)
	}
	b := &bench{work: work, opts: o, log: stderr}
	if err := b.measure(ctx, stdout); err != nil {
		fmt.Fprintln(stderr, "cli:", err)
		return 1
	}
	return 0
}

type bench struct {
	work string
	opts options
	log  io.Writer
	bin  string
	env  []string
}

// sample is one child process: its wall time and peak RSS.
type sample struct {
	wall   time.Duration
	cpu    time.Duration // user+system, the process and its waited-for children
	maxRSS int64         // bytes
}

func (b *bench) measure(ctx context.Context, out io.Writer) error {
	linked := b.opts.bin
	if linked == "" {
		linked = filepath.Join(b.work, "chanto.linked")
		fmt.Fprintln(b.log, "building ./cmd/chanto ...")
		if o, err := exec.CommandContext(ctx, "go", "build", "-o", linked, "./cmd/chanto").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, o)
		}
	}
	b.bin = filepath.Join(b.work, "chanto")
	if err := copyFile(linked, b.bin); err != nil {
		return err
	}
	home := filepath.Join(b.work, "home")
	b.env = append(os.Environ(), "CHANTO_HOME="+home, "ANTHROPIC_API_KEY=", "OPENAI_API_KEY=")

	version, err := b.versionRuns(ctx, b.bin)
	if err != nil {
		return err
	}
	versionLinked, err := b.versionRuns(ctx, linked)
	if err != nil {
		return err
	}
	proj, err := b.project(ctx, "proj", true)
	if err != nil {
		return err
	}
	bare, err := b.bareRuns(ctx, proj)
	if err != nil {
		return err
	}
	full, err := b.printRuns(ctx, proj, "steps.script")
	if err != nil {
		return err
	}
	empty, err := b.printRuns(ctx, proj, "empty.script")
	if err != nil {
		return err
	}
	// Outside git the per-call change-set update walks the folder instead of
	// starting git: the difference is what git costs per step.
	plain, err := b.project(ctx, "plain", false)
	if err != nil {
		return err
	}
	noGit, err := b.printRuns(ctx, plain, "steps.script")
	if err != nil {
		return err
	}
	idle, err := b.idleMemory(ctx, proj)
	if err != nil {
		return err
	}
	b.report(out, version, bare, full, empty)
	fmt.Fprintf(out, "| print mode, %d echo calls, in a folder that is not a git repository, median wall | %s | — |\n", b.opts.steps, ms(median(walls(noGit))))
	fmt.Fprintf(out, "| memory of `chanto -p` waiting for its prompt on stdin (/proc status) | %s | — |\n", idle)
	fmt.Fprintf(out, "| peak RSS of `chanto --version` run from the file as the linker wrote it (median) | %.1f MB | — |\n", mb(medianInt(rssOf(versionLinked))))
	return nil
}

// idleMemory starts a print-mode run whose prompt comes from stdin, lets it
// start up, and reads its resident set split into anonymous memory (the
// heap, stacks: what chanto itself allocated) and file-backed pages (the
// mapped binary, shared with every other chanto and dropped under memory
// pressure).
func (b *bench) idleMemory(ctx context.Context, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, b.bin, "-p", "--model", "scripted:empty.script", "--permission-mode", "bypass")
	cmd.Dir = dir
	cmd.Env = b.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	time.Sleep(500 * time.Millisecond)
	status, readErr := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	stdin.Write([]byte("bench\n"))
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return "", fmt.Errorf("chanto -p from stdin: %v", err)
	}
	if readErr != nil {
		return "", readErr
	}
	var parts []string
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && (k == "VmRSS" || k == "RssAnon" || k == "RssFile") {
			parts = append(parts, k+" "+strings.Join(strings.Fields(v), " "))
		}
	}
	return strings.Join(parts, ", "), nil
}

// versionRuns times chanto --version after a few untimed warm-up runs (the
// page cache, not chanto, is what the first run measures).
func (b *bench) versionRuns(ctx context.Context, bin string) ([]sample, error) {
	fmt.Fprintf(b.log, "%s --version x %d ...\n", bin, b.opts.versionRuns)
	var s []sample
	for i := 0; i < b.opts.versionRuns+5; i++ {
		smp, out, err := b.exec(ctx, "", bin, "--version")
		if err != nil {
			return nil, fmt.Errorf("chanto --version: %v\n%s", err, out)
		}
		if i >= 5 {
			s = append(s, smp)
		}
	}
	return s, nil
}

// project makes a small folder, a git repository when git is set, with the
// two model scripts: one with opts.steps echo calls, one that only answers
// (the fixed cost of a print-mode run with no tool call).
func (b *bench) project(ctx context.Context, name string, git bool) (string, error) {
	dir := filepath.Join(b.work, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var sb strings.Builder
	for i := 0; i < b.opts.steps; i++ {
		sb.WriteString("call bash {\"command\":\"echo hi\"}\n---\n")
	}
	sb.WriteString("say done\n")
	files := map[string]string{
		"steps.script": sb.String(),
		"empty.script": "say done\n",
		"README.md":    "bench project\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	if !git {
		return dir, nil
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "init"}} {
		if _, out, err := b.exec(ctx, dir, "git", args...); err != nil {
			return "", fmt.Errorf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir, nil
}

// bareRuns times opts.steps sequential `bash -c 'echo hi'`, per repetition.
func (b *bench) bareRuns(ctx context.Context, dir string) ([]sample, error) {
	fmt.Fprintf(b.log, "%d bare bash -c 'echo hi' x %d ...\n", b.opts.steps, b.opts.stepRuns)
	var s []sample
	for i := 0; i < b.opts.stepRuns+2; i++ {
		start := time.Now()
		var cpu time.Duration
		for j := 0; j < b.opts.steps; j++ {
			smp, out, err := b.exec(ctx, dir, "bash", "-c", "echo hi")
			if err != nil {
				return nil, fmt.Errorf("bash: %v\n%s", err, out)
			}
			cpu += smp.cpu
		}
		if i >= 2 {
			s = append(s, sample{wall: time.Since(start), cpu: cpu})
		}
	}
	return s, nil
}

// printRuns times the print-mode run of one script.
func (b *bench) printRuns(ctx context.Context, dir, script string) ([]sample, error) {
	fmt.Fprintf(b.log, "chanto -p with %s x %d ...\n", script, b.opts.stepRuns)
	args := []string{"-p", "bench", "--model", "scripted:" + script, "--permission-mode", "bypass"}
	if b.opts.sandbox != "" {
		args = append(args, "--sandbox", b.opts.sandbox)
	}
	var s []sample
	for i := 0; i < b.opts.stepRuns+2; i++ {
		smp, out, err := b.exec(ctx, dir, b.bin, args...)
		if err != nil {
			return nil, fmt.Errorf("chanto %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if !strings.Contains(out, "done") {
			return nil, fmt.Errorf("chanto %s: unexpected output:\n%s", strings.Join(args, " "), out)
		}
		if i >= 2 {
			s = append(s, smp)
		}
	}
	return s, nil
}

// exec runs one process and reports its wall time and peak RSS.
func (b *bench) exec(ctx context.Context, dir, name string, args ...string) (sample, string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = b.env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	smp := sample{wall: wall}
	if cmd.ProcessState == nil {
		return smp, string(out), err
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		smp.maxRSS = ru.Maxrss * 1024 // kilobytes on Linux
		smp.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return smp, string(out), err
}

func (b *bench) report(out io.Writer, version, bare, full, empty []sample) {
	n := b.opts.steps
	vMed := median(walls(version))
	bareMed := median(walls(bare))
	fullMed := median(walls(full))
	emptyMed := median(walls(empty))
	perStep := (fullMed - bareMed) / time.Duration(n)
	marginal := (fullMed - emptyMed - bareMed) / time.Duration(n)
	peak := slices.Max(rssOf(full))
	cpuStep := (median(cpus(full)) - median(cpus(bare))) / time.Duration(n)
	fmt.Fprintf(out, "machine: %s/%s, %d CPUs, load %s, %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), loadAvg(), time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(out, "sandbox flag: %q\n\n", b.opts.sandbox)
	fmt.Fprintln(out, "| figure | value | target |")
	fmt.Fprintln(out, "|---|---|---|")
	fmt.Fprintf(out, "| `chanto --version` median wall (%d runs; p90 %s) | %s | ≤ 20 ms |\n", len(version), ms(pct(walls(version), 90)), ms(vMed))
	fmt.Fprintf(out, "| print mode, %d echo calls, median wall (%d runs) | %s | — |\n", n, len(full), ms(fullMed))
	fmt.Fprintf(out, "| print mode, no tool call (`say done`), median wall | %s | — |\n", ms(emptyMed))
	fmt.Fprintf(out, "| %d bare `bash -c 'echo hi'`, median wall | %s | — |\n", n, ms(bareMed))
	fmt.Fprintf(out, "| overhead per step: (run − bare) / %d, start-up included | %s | ≤ 5 ms |\n", n, ms(perStep))
	fmt.Fprintf(out, "| overhead per step: (run − no-tool run − bare) / %d | %s | — |\n", n, ms(marginal))
	fmt.Fprintf(out, "| CPU per step: (run CPU − bare CPU) / %d, start-up included | %s | — |\n", n, ms(cpuStep))
	fmt.Fprintf(out, "| CPU of `chanto --version` (median) | %s | — |\n", ms(median(cpus(version))))
	fmt.Fprintf(out, "| peak RSS of `chanto --version` (median) | %.1f MB | — |\n", mb(medianInt(rssOf(version))))
	fmt.Fprintf(out, "| peak RSS of the %d-call run (max of %d; median %.1f MB) | %.1f MB | ≤ 40 MB |\n", n, len(full), mb(medianInt(rssOf(full))), mb(peak))
}

func walls(s []sample) []time.Duration {
	var d []time.Duration
	for _, x := range s {
		d = append(d, x.wall)
	}
	return d
}

func cpus(s []sample) []time.Duration {
	var d []time.Duration
	for _, x := range s {
		d = append(d, x.cpu)
	}
	return d
}

func rssOf(s []sample) []int64 {
	var r []int64
	for _, x := range s {
		r = append(r, x.maxRSS)
	}
	return r
}

func median(d []time.Duration) time.Duration { return pct(d, 50) }

// pct is the p-th percentile (nearest rank) of d.
func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	if i < 1 {
		i = 1
	}
	return s[i-1]
}

func medianInt(v []int64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// loadAvg is the 1-, 5- and 15-minute load average, so a reader can tell a
// quiet machine from a busy one.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// copyFile copies the binary with plain writes (io.Copy kept from
// copy_file_range), so the page cache holds the copy in small folios.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(struct{ io.Writer }{out}, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
