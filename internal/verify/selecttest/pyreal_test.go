package selecttest

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/verify/pytestconf"
)

// faultScript lists, as JSON, one fault per function or method body of
// the given files: a line to insert before the body's first statement.
const faultScript = `
import ast, json, sys
out = []
for f in sys.argv[1:]:
    try:
        tree = ast.parse(open(f).read())
    except Exception:
        continue
    def visit(body, depth):
        for n in body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = n.body[0]
                if isinstance(first, ast.Expr) and isinstance(getattr(first, 'value', None), ast.Constant) and len(n.body) > 1:
                    first = n.body[1]
                if first.lineno == n.lineno:
                    continue
                kind = 'return' if any(isinstance(x, ast.Return) and x.value is not None for x in ast.walk(n)) and 'yield' not in ast.dump(n) else 'raise'
                out.append({'file': f, 'line': first.lineno, 'col': first.col_offset, 'name': n.name, 'kind': kind})
            elif isinstance(n, ast.ClassDef) and depth == 0:
                visit(n.body, 1)
    visit(tree.body, 0)
json.dump(out, sys.stdout)
`

type realFault struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// TestPyNodesRealWorld injects faults into the function bodies of real
// projects and checks that function-level selection catches every fault
// the file-level selection catches, timing both runs:
//
//	PYNODES_REALWORLD=/tmp/p/toolz:/tmp/p/boltons PYNODES_MAX=60 \
//	  go test ./internal/verify/selecttest -run TestPyNodesRealWorld -v -timeout 0
//
// PYNODES_ARGS adds pytest arguments (--ignore of a test red at HEAD);
// PYNODES_PYTHONPATH sets PYTHONPATH for src layouts. Each project must be a
// clean git work tree; faults are undone with git checkout.
func TestPyNodesRealWorld(t *testing.T) {
	dirs := os.Getenv("PYNODES_REALWORLD")
	if dirs == "" {
		t.Skip("PYNODES_REALWORLD not set")
	}
	defer func(n int) { pyMinTestFiles = n }(pyMinTestFiles)
	pyMinTestFiles = 0
	max, _ := strconv.Atoi(os.Getenv("PYNODES_MAX"))
	if max == 0 {
		max = 40
	}
	for _, dir := range filepath.SplitList(dirs) {
		t.Run(filepath.Base(dir), func(t *testing.T) { realProject(t, dir, max) })
	}
}

type realStats struct {
	faults, fileCaught, nodeCaught, missed, nodeLevel, testsMissed, ruleKept int
	fileSecs, nodeSecs, fileCPU, nodeCPU, ruleSecs, ruleCPU                  []float64
}

func realProject(t *testing.T, dir string, max int) {
	check := pytestCheck(dir)
	check.Args = append(check.Args, "-q", "-p", "no:cacheprovider", "-p", "no:randomly")
	check.Args = append(check.Args, strings.Fields(os.Getenv("PYNODES_ARGS"))...)
	base := func(rel string) ([]byte, error) {
		return exec.Command("git", "-C", dir, "show", "HEAD:"+rel).Output()
	}
	red, _, _ := realRun(dir, check.Args)
	t.Logf("red at HEAD: %v", red)
	// The time rule, judged as the gate would after a whole run at HEAD;
	// the comparison below narrows every fault it can.
	t.Setenv("CHANTO_HOME", t.TempDir())
	recordHeadTimes(t, dir, check.Args)
	defer func(s float64) { MinPyNodeSecs = s }(MinPyNodeSecs)
	rule := MinPyNodeSecs
	MinPyNodeSecs = 0
	var sources []string
	proj := loadPyProject(dir, readPytestConfig(dir, pytestconf.Version{}), nil)
	isTest := map[string]bool{}
	for _, f := range proj.testFiles(false) {
		isTest[f] = true
	}
	for _, f := range proj.sortedFiles("") {
		if !isTest[f] && !strings.Contains(f, "test") && filepath.Base(f) != "conftest.py" && filepath.Base(f) != "setup.py" && !strings.HasPrefix(f, "docs/") {
			sources = append(sources, f)
		}
	}
	cmd := exec.Command("python3", append([]string{"-c", faultScript}, sources...)...)
	cmd.Dir = dir
	data, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var faults []realFault
	if err := json.Unmarshal(data, &faults); err != nil {
		t.Fatal(err)
	}
	rand.New(rand.NewSource(1)).Shuffle(len(faults), func(i, j int) { faults[i], faults[j] = faults[j], faults[i] })
	var st realStats
	for _, f := range faults {
		if st.faults >= max {
			break
		}
		orig, _ := os.ReadFile(filepath.Join(dir, f.File))
		lines := strings.SplitAfter(string(orig), "\n")
		stmt := "raise RuntimeError('chanto fault')"
		if f.Kind == "return" {
			stmt = "return None"
		}
		lines[f.Line-1] = strings.Repeat(" ", f.Col) + stmt + "\n" + lines[f.Line-1]
		os.WriteFile(filepath.Join(dir, f.File), []byte(strings.Join(lines, "")), 0o644)
		in := Input{Check: check, Changed: []string{f.File}}
		fileSel := mustSelect(t, in)
		in.Base = base
		nodeSel := mustSelect(t, in)
		if fileSel.Full || !slices.ContainsFunc(nodeSel.Targets, func(s string) bool { return strings.Contains(s, "::") }) && slices.Equal(fileSel.Targets, nodeSel.Targets) {
			if fileSel.Full {
				os.WriteFile(filepath.Join(dir, f.File), orig, 0o644)
				t.Logf("%s:%d: full (%s)", f.File, f.Line, fileSel.Reason)
				continue // no file-level narrowing to compare with
			}
			st.faults++
			r := proj.narrowToNodes(base, []string{f.File}, fileSel.Targets, isTest, nil, nil)
			var first string
			for _, k := range sortedKeys(selectedOnly(r.whole)) {
				first = k + ": " + r.whole[k]
				break
			}
			t.Logf("%s:%d %s: not below the file: %s (%d whole, e.g. %s)", f.File, f.Line, f.Name, r.why, len(r.whole), first)
			os.WriteFile(filepath.Join(dir, f.File), orig, 0o644)
			continue // the same run either way
		}
		st.faults++
		st.nodeLevel++
		fileFail, fs, fc := realRun(dir, fileSel.Args)
		nodeFail, ns, nc := realRun(dir, nodeSel.Args)
		os.WriteFile(filepath.Join(dir, f.File), orig, 0o644)
		st.fileSecs, st.nodeSecs = append(st.fileSecs, fs), append(st.nodeSecs, ns)
		st.fileCPU, st.nodeCPU = append(st.fileCPU, fc), append(st.nodeCPU, nc)
		recorded := pytestSecs(dir, fileSel.Targets)
		if recorded >= rule {
			st.ruleKept++
			st.ruleSecs, st.ruleCPU = append(st.ruleSecs, ns), append(st.ruleCPU, nc)
		} else {
			st.ruleSecs, st.ruleCPU = append(st.ruleSecs, fs), append(st.ruleCPU, fc)
		}
		t.Logf("%s:%d: the selected files' tests took %.2fs at HEAD (rule: node ids from %.0fs)", f.File, f.Line, recorded, rule)
		newFile, newNode := minus(fileFail, red), minus(nodeFail, red)
		if len(newFile) > 0 {
			st.fileCaught++
			if len(newNode) == 0 {
				st.missed++
				t.Errorf("MISSED %s:%d %s (%s): file-level fails %v; node-level ran %v", f.File, f.Line, f.Name, f.Kind, newFile, nodeSel.Targets)
			}
			for _, id := range newFile {
				if !slices.Contains(newNode, id) {
					st.testsMissed++
					t.Logf("test not run: %s for %s:%d %s", id, f.File, f.Line, f.Name)
				}
			}
		}
		if len(newNode) > 0 {
			st.nodeCaught++
		}
		t.Logf("%s:%d %s: file %.1fs %d failing, node %.1fs %d failing: %s", f.File, f.Line, f.Name, fs, len(newFile), ns, len(newNode), strings.Join(nodeSel.Targets, " "))
	}
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("SUMMARY %s: %d faults with a related run; %d narrowed below the file; file-level caught %d, node-level %d, missed %d (tests not run %d); "+
		"wall Σ file %.1fs node %.1fs (ratio %.2f, median %.2f); CPU Σ file %.1fs node %.1fs (ratio %.2f); load %s",
		filepath.Base(dir), st.faults, st.nodeLevel, st.fileCaught, st.nodeCaught, st.missed, st.testsMissed,
		sum(st.fileSecs), sum(st.nodeSecs), sum(st.nodeSecs)/sum(st.fileSecs), medianRatio(st.nodeSecs, st.fileSecs),
		sum(st.fileCPU), sum(st.nodeCPU), sum(st.nodeCPU)/sum(st.fileCPU), strings.TrimSpace(string(load)))
	t.Logf("SUMMARY %s, time rule (%.0fs): node ids kept for %d of %d; wall Σ ratio %.2f, CPU Σ ratio %.2f against the file level",
		filepath.Base(dir), rule, st.ruleKept, st.nodeLevel, sum(st.ruleSecs)/sum(st.fileSecs), sum(st.ruleCPU)/sum(st.fileCPU))
}

// recordHeadTimes runs the whole suite with a JUnit report and records its
// test times, as the gate does after a run of whole files.
func recordHeadTimes(t *testing.T, dir string, args []string) {
	report := filepath.Join(t.TempDir(), "head.xml")
	cmd := exec.Command(args[0], append(args[1:], "--junitxml="+report)...)
	cmd.Dir = dir
	if pp := os.Getenv("PYNODES_PYTHONPATH"); pp != "" {
		cmd.Env = append(os.Environ(), "PYTHONPATH="+pp)
	}
	_ = cmd.Run()
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("no JUnit report from the whole run: %v", err)
	}
	var doc struct {
		Cases []struct {
			Classname string  `xml:"classname,attr"`
			Name      string  `xml:"name,attr"`
			Time      float64 `xml:"time,attr"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	secs := map[string]float64{}
	for _, c := range doc.Cases {
		secs[c.Classname+"::"+c.Name] += c.Time
	}
	RecordPytestTimes(dir, secs, nil)
	t.Logf("whole run at HEAD: %d tests, %.2fs of test time", len(doc.Cases), sum(slices.Collect(maps.Values(secs))))
}

var realFailed = regexp.MustCompile(`(?m)^(?:FAILED|ERROR) (\S+)`)

// realRun runs pytest and returns the failing node ids (a parametrized
// test by its function), wall and CPU seconds.
func realRun(dir string, args []string) ([]string, float64, float64) {
	cmd := exec.Command(args[0], append(args[1:], "-rfE")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	if pp := os.Getenv("PYNODES_PYTHONPATH"); pp != "" {
		cmd.Env = append(cmd.Env, "PYTHONPATH="+pp)
	}
	start := time.Now()
	out, _ := cmd.CombinedOutput()
	wall := time.Since(start).Seconds()
	cpu := 0.0
	if cmd.ProcessState != nil {
		cpu = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	}
	set := map[string]bool{}
	for _, m := range realFailed.FindAllStringSubmatch(string(out), -1) {
		id := m[1]
		if i := strings.IndexByte(id, '['); i >= 0 {
			id = id[:i]
		}
		set[id] = true
	}
	return sortedKeys(set), wall, cpu
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

func medianRatio(a, b []float64) float64 {
	if len(a) == 0 {
		return 0
	}
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	sort.Float64s(r)
	return r[len(r)/2]
}

var _ = fmt.Sprint

// TestPyNodesExplain prints how a name reaches a changed one:
//
//	PYNODES_EXPLAIN=dir:file:changedname:fromfile:fromname go test -run TestPyNodesExplain -v
func TestPyNodesExplain(t *testing.T) {
	spec := strings.Split(os.Getenv("PYNODES_EXPLAIN"), ":")
	if len(spec) != 5 {
		t.Skip("PYNODES_EXPLAIN not set")
	}
	p := loadPyProject(spec[0], readPytestConfig(spec[0], pytestconf.Version{}), nil)
	g := newPyNames(p)
	g.build(p.sortedFiles(""))
	to, from := nodeKey(spec[1], spec[2]), nodeKey(spec[3], spec[4])
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if k == to {
			var path []string
			for ; k != ""; k = prev[k] {
				path = append(path, strings.ReplaceAll(k, "\x00", ":"))
			}
			slices.Reverse(path)
			t.Logf("path: %s", strings.Join(path, " → "))
			return
		}
		for n := range g.fwd[k] {
			if _, ok := prev[n]; !ok {
				prev[n] = k
				queue = append(queue, n)
			}
		}
	}
	t.Logf("no path")
}

// TestPyNodesReach prints what a test file reaches through imports, and why:
//
//	PYNODES_REACH=dir:tests/test_x.py go test -run TestPyNodesReach -v
func TestPyNodesReach(t *testing.T) {
	spec := strings.Split(os.Getenv("PYNODES_REACH"), ":")
	if len(spec) != 2 {
		t.Skip("PYNODES_REACH not set")
	}
	p := loadPyProject(spec[0], readPytestConfig(spec[0], pytestconf.Version{}), nil)
	r := p.reach(spec[1])
	for _, f := range sortedKeys(selectedOnly(r.All)) {
		t.Logf("%s %q plain=%v", f, r.All[f], r.Plain[f])
	}
}

// TestPyNodesSelectCost times selection with and without the node level
// (a fault put in the first function of file, medians of five, warm memo):
//
//	PYNODES_COST=dir:pkg/mod.py go test -run TestPyNodesSelectCost -v
func TestPyNodesSelectCost(t *testing.T) {
	spec := strings.Split(os.Getenv("PYNODES_COST"), ":")
	if len(spec) != 2 {
		t.Skip("PYNODES_COST not set")
	}
	dir, file := spec[0], spec[1]
	orig, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	defer os.WriteFile(filepath.Join(dir, file), orig, 0o644)
	cmd := exec.Command("python3", "-c", faultScript, file)
	cmd.Dir = dir
	data, _ := cmd.Output()
	var faults []realFault
	if json.Unmarshal(data, &faults) != nil || len(faults) == 0 {
		t.Fatal("no function to fault")
	}
	f := faults[0]
	defer func(s float64) { MinPyNodeSecs = s }(MinPyNodeSecs)
	MinPyNodeSecs = 0 // the node level's own cost; the time rule skips it below 2s
	lines := strings.SplitAfter(string(orig), "\n")
	lines[f.Line-1] = strings.Repeat(" ", f.Col) + "raise RuntimeError('x')\n" + lines[f.Line-1]
	os.WriteFile(filepath.Join(dir, file), []byte(strings.Join(lines, "")), 0o644)
	in := Input{Check: pytestCheck(dir), Changed: []string{file}}
	base := func(rel string) ([]byte, error) { return exec.Command("git", "-C", dir, "show", "HEAD:"+rel).Output() }
	median := func(with bool) (float64, Selection) {
		var xs []float64
		var sel Selection
		for i := 0; i < 5; i++ {
			in.Base = nil
			if with {
				in.Base = base
			}
			start := time.Now()
			sel = mustSelect(t, in)
			xs = append(xs, time.Since(start).Seconds()*1000)
		}
		sort.Float64s(xs)
		return xs[2], sel
	}
	fileMS, fs := median(false)
	nodeMS, ns := median(true)
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("select %s %s: file level %.0f ms (%d targets, %s), node level %.0f ms (%d targets); load %s", dir, file, fileMS, len(fs.Targets), fs.Reason, nodeMS, len(ns.Targets), strings.TrimSpace(string(load)))
	t.Logf("node level: %s", strings.Join(ns.Targets, " "))
	proj := loadPyProject(dir, readPytestConfig(dir, pytestconf.Version{}), nil)
	isTest := map[string]bool{}
	for _, f := range proj.testFiles(false) {
		isTest[f] = true
	}
	r := proj.narrowToNodes(base, []string{file}, sortedKeys(isTest), isTest, nil, nil)
	t.Logf("why: %s; whole: %v", r.why, r.whole)
}
