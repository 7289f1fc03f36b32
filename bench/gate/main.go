// Command gate measures what verified mode costs beyond the test commands
// themselves, on a generated Go module of 10,000 files in a git repository:
// the turn snapshot, the update after each tool call (change detection,
// content digest, test protection on the changed files), related-test
// selection, and the final gate run (verify.Run) with a trivial configured
// check (`true`, whose own time is subtracted) and with the detected Go
// checks settled by the model's own passing run (nothing executed). It then
// runs the built binary once in print mode with --verify on a small module,
// where the scripted model runs `go vet ./...` and `go test ./...` itself
// after its edit, and counts the verify.check events that came from the
// model's run against those the gate executed.
//
//	go run ./bench/gate -n 20
//
// Each figure has a wall and a CPU column (this process plus the children
// it waited for): on a loaded machine the wall time stretches, the CPU
// time much less.
//
// The lead's bench/snapshot has the same Take and Changes figures as Go
// benchmarks on a plain 10,000-file tree.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
)

func main() {
	os.Exit(benchMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	n       int // repetitions of each warm measurement
	cold    int // repetitions of cold selection (go list)
	pkgs    int
	perPkg  int
	e2e     bool
	e2ePkgs int
	keep    bool
	chanto  string // a built binary for the end-to-end run
}

func benchMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.n, "n", 20, "repetitions of each measurement")
	fs.IntVar(&o.cold, "cold", 3, "repetitions of cold selection (go list, no cache)")
	fs.IntVar(&o.pkgs, "pkgs", 200, "packages in the generated module")
	fs.IntVar(&o.perPkg, "files", 50, "files per package (two are tests)")
	fs.BoolVar(&o.e2e, "e2e", true, "also run the built binary with --verify on a small module")
	fs.IntVar(&o.e2ePkgs, "e2e-pkgs", 12, "packages in the end-to-end module")
	fs.StringVar(&o.chanto, "chanto", "", "use this chanto binary for the end-to-end run instead of building one")
	fs.BoolVar(&o.keep, "keep", false, "keep the work folder")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.n < 1 || o.cold < 1 || o.pkgs < 2 || o.perPkg < 4 || o.e2ePkgs < 4 {
		fmt.Fprintln(stderr, "gate: -n and -cold must be at least 1, -pkgs at least 2, -e2e-pkgs at least 4, -files at least 4")
		return 2
	}
	work, err := os.MkdirTemp("", "chanto-bench-gate-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if !o.keep {
		defer os.RemoveAll(work)
	}
	// Selection caches Go graphs under CHANTO_HOME; keep them in the work
	// folder so "cold" means cold.
	home := filepath.Join(work, "home")
	os.Setenv("CHANTO_HOME", home)
	b := &bench{work: work, home: home, opts: o, log: stderr, r: &run.Runner{}}
	fmt.Fprintf(stdout, "machine: %s/%s, %d CPUs, load %s, %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), loadAvg(), time.Now().UTC().Format("2006-01-02 15:04 MST"))
	rows, err := b.components(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "gate:", err)
		return 1
	}
	printRows(stdout, rows)
	if o.e2e {
		e, err := b.endToEnd(ctx)
		if err != nil {
			fmt.Fprintln(stderr, "gate: end to end:", err)
			return 1
		}
		fmt.Fprintln(stdout)
		printEndToEnd(stdout, e)
	}
	return 0
}

type bench struct {
	work, home string
	opts       options
	log        io.Writer
	r          *run.Runner
}

// row is one line of the results table.
type row struct {
	figure string
	value  cost
	note   string
	target string
}

func printRows(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| figure | median wall | median CPU | target | note |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range rows {
		t := r.target
		if t == "" {
			t = "—"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.figure, r.value, t, r.note)
	}
}

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
