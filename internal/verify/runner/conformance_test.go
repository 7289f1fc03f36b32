package runner

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"mvdan.cc/sh/v3/syntax"

	"github.com/chanto-dev/chanto/internal/run"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/output/*/*.txtar")

// The conformance suite: every registered runner is run over the argv
// cases in testdata/argv/NAME.txt and the recorded outputs in
// testdata/output/NAME/*.txtar. A runner without cases fails it, so a
// new runner comes with its cases.

// TestConformanceArgv reads testdata/argv/NAME.txt: each line is a
// command, "=>", and what Recognize must make of it: "none", or the
// runner, "plain" or "filtered", then "all" or the targets.
func TestConformanceArgv(t *testing.T) {
	for _, r := range All() {
		t.Run(string(r.Name()), func(t *testing.T) {
			file := filepath.Join("testdata", "argv", string(r.Name())+".txt")
			cases := readArgvCases(t, file)
			if len(cases) == 0 {
				t.Fatalf("%s has no argv cases; add them to %s", r.Name(), file)
			}
			for _, c := range cases {
				got := "none"
				if inv, ok := Recognize(c.args); ok {
					got = describe(inv)
				}
				if got != c.want {
					t.Errorf("%s:%d: %s => %s, want %s", file, c.line, c.cmd, got, c.want)
				}
			}
		})
	}
}

type argvCase struct {
	line      int
	cmd, want string
	args      []string
}

func readArgvCases(t *testing.T, file string) []argvCase {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []argvCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmd, want, ok := strings.Cut(line, "=>")
		if !ok {
			t.Fatalf("%s:%d: no =>", file, n)
		}
		cmd = strings.TrimSpace(cmd)
		out = append(out, argvCase{line: n, cmd: cmd, want: strings.Join(strings.Fields(want), " "), args: words(t, cmd)})
	}
	return out
}

// words parses a command line into its literal words.
func words(t *testing.T, cmd string) []string {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) != 1 {
		t.Fatalf("%q: not one command", cmd)
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		t.Fatalf("%q: not a simple command", cmd)
	}
	var out []string
	for _, w := range call.Args {
		var b strings.Builder
		for _, p := range w.Parts {
			switch p := p.(type) {
			case *syntax.Lit:
				b.WriteString(p.Value)
			case *syntax.SglQuoted:
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				for _, q := range p.Parts {
					b.WriteString(q.(*syntax.Lit).Value)
				}
			}
		}
		out = append(out, b.String())
	}
	return out
}

func describe(inv Invocation) string {
	parts := []string{string(inv.Runner)}
	switch {
	case !inv.Plain:
		parts = append(parts, "filtered")
	case inv.All:
		parts = append(parts, "plain", "all")
	default:
		parts = append(parts, "plain")
		parts = append(parts, inv.Targets...)
	}
	return strings.Join(parts, " ")
}

// TestConformanceOutput runs each runner's collector over the recorded
// outputs in testdata/output/NAME/*.txtar. The comment holds "exit N"
// and, optionally, "args WORDS…" (the check's argv, for narrowing) and
// "report" (a report folder is given). Files: "stdout", "report/NAME"
// (written to the report folder), "dir/PATH" (written to the run's
// folder; $DIR in a report is that folder), and "want", which -update rewrites: the test count, each
// failure's ID and name, whether it counts as no tests, the fallback
// reason, and the narrowed argv.
func TestConformanceOutput(t *testing.T) {
	for _, r := range All() {
		t.Run(string(r.Name()), func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join("testdata", "output", string(r.Name()), "*.txtar"))
			if len(files) == 0 {
				t.Fatalf("%s has no recorded outputs; add testdata/output/%s/*.txtar", r.Name(), r.Name())
			}
			for _, file := range files {
				runOutputCase(t, r, file)
			}
		})
	}
}

func runOutputCase(t *testing.T, r Runner, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	exit, args, withReport := 0, []string(nil), false
	for _, l := range strings.Split(string(ar.Comment), "\n") {
		switch k, v, _ := strings.Cut(strings.TrimSpace(l), " "); k {
		case "exit":
			exit, _ = strconv.Atoi(v)
		case "args":
			args = words(t, v)
		case "report":
			withReport = true
		}
	}
	dir, reportDir := t.TempDir(), ""
	if withReport {
		reportDir = t.TempDir()
	}
	var stdout, want string
	wantAt := -1
	for i, f := range ar.Files {
		switch {
		case f.Name == "stdout":
			stdout = string(f.Data)
		case f.Name == "want":
			want, wantAt = string(f.Data), i
		case strings.HasPrefix(f.Name, "report/"):
			// Reports name files by absolute path: $DIR is the run's folder.
			data := strings.ReplaceAll(string(f.Data), "$DIR", dir)
			writeFile(t, filepath.Join(reportDir, strings.TrimPrefix(f.Name, "report/")), []byte(data))
		case strings.HasPrefix(f.Name, "dir/"):
			writeFile(t, filepath.Join(dir, strings.TrimPrefix(f.Name, "dir/")), f.Data)
		}
	}
	c := r.Collector(reportDir, dir)
	w := c.Stdout()
	// Write in odd-sized pieces: lines may arrive split.
	for i := 0; i < len(stdout); i += 7 {
		w.Write([]byte(stdout[i:min(i+7, len(stdout))]))
	}
	o := c.Finish(run.Result{ExitCode: exit, Output: []byte(stdout)})
	got := outcomeText(r, dir, exit, args, stdout, o)
	if *update {
		if wantAt < 0 {
			ar.Files = append(ar.Files, txtar.File{Name: "want"})
			wantAt = len(ar.Files) - 1
		}
		ar.Files[wantAt].Data = []byte(got)
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != want {
		t.Errorf("%s:\ngot:\n%swant:\n%s", file, got, want)
	}
}

func outcomeText(r Runner, dir string, exit int, args []string, stdout string, o Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tests %d\n", o.Tests)
	for _, f := range o.Failures {
		fmt.Fprintf(&b, "failure %q %q\n", f.ID, f.Name)
	}
	text := o.Text
	if text == "" {
		text = stdout
	}
	if o.Interrupted != "" {
		fmt.Fprintf(&b, "interrupted %s\n", o.Interrupted)
	}
	fmt.Fprintf(&b, "notests %v\n", len(o.Failures) == 0 && r.NoTests(exit, o.Tests, text))
	why, ok := r.Fallback(exit, []byte(stdout))
	shown := why.String()
	if !ok {
		shown = "-"
	}
	fmt.Fprintf(&b, "fallback %s\n", shown)
	if args != nil {
		narrowed, ok := r.NarrowTests(dir, args, o.Failures)
		if ok {
			fmt.Fprintf(&b, "narrow %s\n", quoteWords(narrowed))
		} else {
			b.WriteString("narrow -\n")
		}
	}
	return b.String()
}

func quoteWords(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"$`\\|&;()<>*?[]^{}") {
			a = strconv.Quote(a)
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEveryRunnerIsComplete checks what each runner must answer.
func TestEveryRunnerIsComplete(t *testing.T) {
	for _, r := range All() {
		if For(r.Name()).Name() != r.Name() {
			t.Errorf("%s: For does not find it", r.Name())
		}
		if r.FullOnly().IsZero() && len(r.Collects()) == 0 {
			t.Errorf("%s: narrowable but collects no files", r.Name())
		}
		if !r.StandsFor(r.Name()) && !slices.Contains([]Name{NodeTest, Mocha}, r.Name()) {
			t.Errorf("%s: does not stand for its own checks", r.Name())
		}
	}
}

// TestConformanceCovers reads testdata/covers.txt: a model's run, the
// run the gate would make, and whether the first covers the second. A
// run no runner recognises is a configured check's; a configured check
// on the right is "custom" and its words.
func TestConformanceCovers(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "covers.txt"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Name]bool{}
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		have, rest, _ := strings.Cut(line, "|")
		wantText, result, _ := strings.Cut(rest, "=>")
		hw := words(t, strings.TrimSpace(have))
		inv, ok := Recognize(hw)
		if !ok {
			// A configured check's run: its words.
			inv = Invocation{Runner: Custom, Args: hw, Plain: true, All: true}
		}
		seen[inv.Runner] = true
		f := strings.Fields(wantText)
		want := Want{Runner: Name(f[0])}
		if want.Runner == Custom {
			want.Full, want.Args = true, f[1:]
		} else if len(f) > 1 && f[1] == "full" {
			want.Full = true
		} else {
			want.Targets = f[1:]
		}
		if got := fmt.Sprint(Covers(inv, want)); got != strings.TrimSpace(result) {
			t.Errorf("covers.txt:%d: %s covers %s = %s", n+1, strings.TrimSpace(have), strings.TrimSpace(wantText), got)
		}
	}
	for _, r := range All() {
		if !seen[r.Name()] {
			t.Errorf("%s has no case in testdata/covers.txt", r.Name())
		}
	}
}
