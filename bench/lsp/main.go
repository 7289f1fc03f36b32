// Command lsp measures what checking an edit costs: the time from an edit
// to gopls's diagnostics with a warm gopls on a generated 200-package
// module, gofmt's overhead on a 1,000-line file, and that a session that
// never edits starts no language server. Results go in docs/benchmarks.md.
//
//	go run ./bench/lsp [-packages 200] [-edits 40] [-formats 30]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/format"
	"github.com/chanto-dev/chanto/internal/lsp"
	"github.com/chanto-dev/chanto/internal/run"
)

func main() {
	pkgs := flag.Int("packages", 200, "packages in the generated module")
	edits := flag.Int("edits", 40, "edits measured with a warm gopls")
	formats := flag.Int("formats", 30, "gofmt runs measured")
	flag.Parse()
	if err := bench(*pkgs, *edits, *formats); err != nil {
		fmt.Fprintln(os.Stderr, "bench/lsp:", err)
		os.Exit(1)
	}
}

func bench(pkgs, edits, formats int) error {
	root, err := os.MkdirTemp("", "chanto-bench-lsp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if err := generate(root, pkgs); err != nil {
		return err
	}
	cfg := config.Default().LSP
	cfg.WaitMS = 60_000
	m := lsp.New(lsp.Options{Config: cfg, Root: root, Runner: &run.Runner{}})
	fmt.Printf("module: %d packages, each importing the one before\n", pkgs)
	fmt.Printf("servers started before any edit: %d\n", m.Started())

	target := filepath.Join(root, fmt.Sprintf("p%03d", pkgs/2), "p.go")
	good, err := os.ReadFile(target)
	if err != nil {
		return err
	}
	bad := []byte(strings.Replace(string(good), "return n + 1", `return "x"`, 1))
	start := time.Now()
	if r := touch(m, target, good); !r.Checked {
		return fmt.Errorf("gopls did not answer the first edit: %s", r.Note)
	}
	fmt.Printf("cold start (initialize, workspace load, first diagnostics): %s\n", time.Since(start).Round(time.Millisecond))
	var times []time.Duration
	for i := 0; i < edits; i++ {
		content := good
		if i%2 == 0 {
			content = bad
		}
		t0 := time.Now()
		r := touch(m, target, content)
		times = append(times, time.Since(t0))
		if e, _, _ := r.Counts(); !r.Checked || (i%2 == 0) != (e > 0) {
			return fmt.Errorf("edit %d: unexpected report: %s", i, r.Text(m.Display))
		}
	}
	fmt.Printf("warm edit → diagnostics (%d edits, alternating error/fixed): median %s, p90 %s, max %s\n",
		edits, pct(times, 50), pct(times, 90), pct(times, 100))
	m.Close()

	long := filepath.Join(root, "long", "long.go")
	src := longFile(1000)
	set := format.New(format.Options{Config: config.Formatters{Enabled: true}, Root: root, Runner: &run.Runner{}})
	var ftimes []time.Duration
	for i := 0; i < formats; i++ {
		if err := os.WriteFile(long, src, 0o644); err != nil {
			return err
		}
		t0 := time.Now()
		o := set.Format(context.Background(), long, src)
		ftimes = append(ftimes, time.Since(t0))
		if o.Formatter != "gofmt" || !o.Changed {
			return fmt.Errorf("gofmt did not format: %+v", o)
		}
	}
	fmt.Printf("gofmt on a 1,000-line file (%d runs, go/format in process): median %s, p90 %s\n", formats, pct(ftimes, 50), pct(ftimes, 90))
	return nil
}

func touch(m *lsp.Manager, p string, content []byte) lsp.Report {
	if err := os.WriteFile(p, content, 0o644); err != nil {
		panic(err)
	}
	return m.Touch(context.Background(), p, content)
}

// generate writes a module of n packages; package i imports i-1, so an
// edit in the middle has dependents for gopls to re-check.
func generate(root string, n int) error {
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module bench.example/m\n\ngo 1.22\n"), 0o644); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		dir := filepath.Join(root, fmt.Sprintf("p%03d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "package p%03d\n\n", i)
		call := "n"
		if i > 0 {
			fmt.Fprintf(&b, "import \"bench.example/m/p%03d\"\n\n", i-1)
			call = fmt.Sprintf("p%03d.F(n)", i-1)
		}
		fmt.Fprintf(&b, "// F adds one.\nfunc F(n int) int {\n\t_ = %s\n\treturn n + 1\n}\n", call)
		for j := 0; j < 10; j++ {
			fmt.Fprintf(&b, "\n// G%d is filler.\nfunc G%d(s []int) int {\n\tt := 0\n\tfor _, v := range s {\n\t\tt += v\n\t}\n\treturn t\n}\n", j, j)
		}
		if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return os.MkdirAll(filepath.Join(root, "long"), 0o755)
}

// longFile is an unformatted Go file of about n lines.
func longFile(n int) []byte {
	var b strings.Builder
	b.WriteString("package long\n")
	for i := 0; b.Len() >= 0 && strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, "func  F%d( a,b int )int{\nif a>b {\n  return a-b}\n    x:=[]int{1,2,3}\n_ = x\nreturn  a+b }\n", i)
	}
	return []byte(b.String())
}

func pct(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s) - 1) * p / 100
	return s[i].Round(time.Millisecond)
}
