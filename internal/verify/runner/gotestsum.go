package runner

import (
	"bytes"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// gotestsum is `gotestsum [flags] [-- go test flags and packages]`: go
// test behind a friendlier printer. Its words after "--" are go test's,
// so it reads them with go test's table, and a run stands in for a go
// test check; results come from its --jsonfile.
type gotestsum struct{ base }

var _ Runner = gotestsum{}

// Gotestsum is the runner's name.
const Gotestsum Name = "gotestsum"

// gotestsumFlags are gotestsum's own flags, before "--".
var gotestsumFlags = Flags{
	Valued:  []string{"--format", "-f", "--jsonfile", "--junitfile", "--no-summary", "--hide-summary", "--packages", "--post-run-command", "--rerun-fails", "--rerun-fails-max-failures"},
	Filters: []string{"--rerun-fails", "--watch", "--raw-command", "--post-run-command"},
	Safe:    []string{"--format", "-f", "--jsonfile", "--junitfile", "--no-summary", "--hide-summary", "--format-hide-empty-pkg", "--no-color", "--debug"},
}

func init() {
	g := goTestBase
	g.name = Gotestsum
	register(gotestsum{g})
}

func (g gotestsum) Recognize(args []string) (Invocation, bool) {
	if path.Base(at(args, 0)) != "gotestsum" {
		return Invocation{}, false
	}
	dash := slices.Index(args, "--")
	own := args[1:]
	if dash >= 0 {
		own = args[1:dash]
	}
	if inv := read(g.name, NoTargets, gotestsumFlags, append([]string{"gotestsum"}, own...), 1); !inv.Plain {
		return inv, true
	}
	if slices.ContainsFunc(own, func(a string) bool { return a == "--packages" || strings.HasPrefix(a, "--packages=") }) {
		return Invocation{Runner: g.name, Args: args, WhyNot: "names its packages with --packages, which chanto does not read"}, true
	}
	if dash < 0 {
		return Invocation{Runner: g.name, Args: args, Skip: len(args), Plain: true, All: true}, true
	}
	inv := g.read(append([]string{"go", "test"}, args[dash+1:]...), 2)
	inv.Args, inv.Skip = args, dash+1
	if !inv.Plain || len(args) == dash+1 || !slices.ContainsFunc(args[dash+1:], func(a string) bool { return !strings.HasPrefix(a, "-") }) {
		// No package after "--": gotestsum tests ./... .
		if inv.Plain {
			inv.All, inv.Targets = true, nil
		}
	}
	return inv, true
}

// StandsFor: a gotestsum run is a go test run.
func (gotestsum) StandsFor(check Name) bool { return check == Go || check == Gotestsum }

func (gotestsum) Download() Download { return goDownload }

func (g gotestsum) Fallback(exit int, output []byte) (scope.Reason, bool) {
	return goTest{g.base}.Fallback(exit, output)
}

// NarrowTests passes -run to go test after "--".
func (gotestsum) NarrowTests(dir string, args []string, tests []Failure) ([]string, bool) {
	dash := slices.Index(args, "--")
	if dash < 0 {
		args, dash = append(append([]string(nil), args...), "--"), len(args)
	}
	inner, ok := goTest{}.NarrowTests(dir, append([]string{"go", "test"}, args[dash+1:]...), tests)
	if !ok {
		return nil, false
	}
	return append(append([]string(nil), args[:dash+1]...), inner[2:]...), true
}

func (gotestsum) Collector(reportDir, _ string) Collector {
	if reportDir == "" {
		return &lineParser{}
	}
	return &gotestsumJSON{file: filepath.Join(reportDir, "gotestsum.json")}
}

// gotestsumJSON reads the go test -json stream gotestsum saved with
// --jsonfile; its own printed text is kept for display.
type gotestsumJSON struct {
	file string
	out  bytes.Buffer
}

func (g *gotestsumJSON) Args(user []string) []string {
	out := append([]string(nil), user[:1]...)
	return append(append(out, "--jsonfile="+g.file), user[1:]...)
}

func (g *gotestsumJSON) Stdout() io.Writer { return io.Discard }

func (g *gotestsumJSON) Finish(res run.Result) Outcome {
	data, err := os.ReadFile(g.file)
	if err != nil {
		return Outcome{Tests: -1}
	}
	j := goTest{}.Collector("", "").(*goJSON)
	w := j.Stdout()
	w.Write(data)
	o := j.Finish(res)
	o.Text = ""
	return o
}
