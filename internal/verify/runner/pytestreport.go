package runner

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
)

// pytest's --junitxml report costs 50-200 ms of pytest's CPU on a few
// hundred tests (it builds an XML tree with every test's captured output),
// and chanto reads only each test's name and outcome from it. A plugin of
// chanto's own (pytest_report.py) writes just that, one JSON line per
// test phase, and Finish turns those lines into the test cases --junitxml
// would have written, by the same rules (pytest's LogXML), so failures,
// passes and node ids are the same whichever report a run wrote. The
// plugin is loaded with -p from the report folder through PYTHONPATH;
// where that cannot work (the interpreter ignores PYTHONPATH, the command
// turns the plugin off) the run asks for --junitxml as before, and a run
// whose plugin failed to load is run again with it (Retry).

//go:embed pytest_report.py
var pytestPlugin []byte

const (
	pytestPluginModule = "chanto_pytest_report"
	pytestReportFile   = "pytest-report.jsonl"
	pytestXMLFile      = "pytest.xml"
)

// EnvCollector is a Collector whose run needs variables of its own.
// getenv looks a variable up in the environment the run starts from.
type EnvCollector interface {
	Env(getenv func(string) string) []string
}

// Retrier is a Collector that can tell from a finished run that the run
// must be made again, with the collector it returns (a report plugin that
// could not be loaded).
type Retrier interface {
	Retry(out []byte) (Collector, bool)
}

// pytestCollector asks for chanto's plugin report, else --junitxml, and
// reads whichever the run wrote.
type pytestCollector struct {
	dir    string // the report folder
	junit  junit
	plugin bool // Args asked for the plugin
}

func newPytestCollector(reportDir string) *pytestCollector {
	return &pytestCollector{dir: reportDir, junit: junit{file: filepath.Join(reportDir, pytestXMLFile), lp: lineParser{parse: parsePytestText}}}
}

var (
	_ EnvCollector = (*pytestCollector)(nil)
	_ Retrier      = (*pytestCollector)(nil)
)

func (c *pytestCollector) Args(user []string) []string {
	if !pluginLoads(user) || writePlugin(c.dir) != nil {
		c.plugin = false
		return c.junit.Args(user)
	}
	c.plugin = true
	return append(append([]string(nil), user...), "-p", pytestPluginModule)
}

func (c *pytestCollector) Env(getenv func(string) string) []string {
	if !c.plugin {
		return nil
	}
	pp := c.pluginDir()
	if old := getenv("PYTHONPATH"); old != "" {
		pp += string(os.PathListSeparator) + old // never an empty entry: that would add the working folder
	}
	return []string{"PYTHONPATH=" + pp, "CHANTO_PYTEST_REPORT=" + filepath.Join(c.dir, pytestReportFile)}
}

func (c *pytestCollector) Stdout() io.Writer { return c.junit.Stdout() }

// Retry: pytest names a plugin -p could not import ("Error importing
// plugin"); then the run is made again with --junitxml.
func (c *pytestCollector) Retry(out []byte) (Collector, bool) {
	if !c.plugin || !bytes.Contains(out, []byte(`plugin "`+pytestPluginModule+`"`)) {
		return nil, false
	}
	if _, err := os.Stat(filepath.Join(c.dir, pytestReportFile)); err == nil {
		return nil, false
	}
	return &junitOnly{newPytestCollector(c.dir)}, true
}

func (c *pytestCollector) pluginDir() string { return filepath.Join(c.dir, "chanto-py") }

// writePlugin puts the plugin's module in the report folder.
func writePlugin(reportDir string) error {
	d := filepath.Join(reportDir, "chanto-py")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(d, pytestPluginModule+".py"), pytestPlugin, 0o644)
}

// pluginLoads reports whether a -p plugin found through PYTHONPATH will
// load for the command argv: the interpreter reads PYTHONPATH (no -E or
// -I before -m pytest, nor on a pytest script's #! line) and the command
// does not turn the plugin off.
func pluginLoads(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	prog := path.Base(argv[0])
	rest := argv[1:]
	if strings.HasPrefix(prog, "python") {
		for len(rest) > 0 && rest[0] != "-m" {
			if ignoresEnv(rest[0]) {
				return false
			}
			rest = rest[1:]
		}
	} else if !shebangReadsEnv(argv[0]) {
		return false
	}
	off := "no:" + pytestPluginModule
	for i, a := range rest {
		if a == "-p" && i+1 < len(rest) && rest[i+1] == off || a == "-p"+off {
			return false // the command turns chanto's plugin off
		}
	}
	return true
}

// ignoresEnv reports whether a Python option makes the interpreter ignore
// PYTHONPATH: -E, -I, or a cluster holding one (-IS).
func ignoresEnv(opt string) bool {
	if !strings.HasPrefix(opt, "-") || strings.HasPrefix(opt, "--") {
		return false
	}
	return strings.ContainsAny(opt[1:], "EI")
}

// shebangReadsEnv reports whether the script prog (pytest, py.test) starts
// an interpreter that reads PYTHONPATH. prog is looked up on PATH.
func shebangReadsEnv(prog string) bool {
	p := prog
	if !strings.Contains(prog, "/") {
		p = lookPathEnv(prog)
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "#!") {
		return false
	}
	for _, w := range strings.Fields(line[2:])[1:] {
		if ignoresEnv(w) {
			return false
		}
	}
	return true
}

func lookPathEnv(name string) string {
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func (c *pytestCollector) Finish(res run.Result) Outcome {
	data, err := os.ReadFile(filepath.Join(c.dir, pytestReportFile))
	if err != nil && c.plugin {
		// Asked for the plugin's report, the run wrote none (a project
		// pytest.py shadowing pytest): name that report, not --junitxml,
		// which this run was never given.
		o := pytestStopped(c.junit.lp.Finish(res), res.ExitCode)
		o.Text = dropContaining(string(res.Output), filepath.Base(c.dir))
		o.NoReport = "the report it was asked for (chanto's pytest plugin, -p " + pytestPluginModule + ")"
		return o
	}
	if err != nil {
		return c.junit.Finish(res) // no plugin report: --junitxml's, or the text
	}
	o := pytestStopped(c.junit.lp.Finish(res), res.ExitCode)
	o.Text = dropContaining(string(res.Output), filepath.Base(c.dir))
	cases, err := pytestCases(data)
	if err != nil {
		o.NoReport = "a readable report from chanto's pytest plugin"
		return o
	}
	return junitOutcome(o, cases)
}

// junitOnly is the collector of a run made again without the plugin.
type junitOnly struct{ c *pytestCollector }

func (j *junitOnly) Args(user []string) []string   { return j.c.junit.Args(user) }
func (j *junitOnly) Stdout() io.Writer             { return j.c.junit.Stdout() }
func (j *junitOnly) Finish(res run.Result) Outcome { return j.c.junit.Finish(res) }

// pluginRecord is one line of the plugin's report.
type pluginRecord struct {
	NodeID  string  `json:"n"`
	When    string  `json:"w"`
	Outcome string  `json:"o"`
	XFail   int     `json:"x"`
	Secs    float64 `json:"d"`
	Message string  `json:"m"`
	End     int     `json:"end"`
}

// pytestCases replays the plugin's records through the rules pytest's
// LogXML writes test cases by (_pytest/junitxml.py): a case opens at a
// test's first reported phase and closes at its teardown; a failed call
// is a failure (a skip when the test was xfail-marked: strict XPASS); a
// failed setup or teardown an error, in a case of its own when the call
// had failed too; a skip is a skip; every phase's time counts to the open
// case (pytest's default, junit_duration_report = "total"); a collection that failed or was
// skipped is a case named by its node id; pytest's internal error one
// named pytest.internal.
func pytestCases(data []byte) ([]junitCase, error) {
	var cases []junitCase
	open := map[string]int{}
	callFailed := map[string]bool{}
	opened := func(nodeid string) *junitCase {
		if i, ok := open[nodeid]; ok {
			return &cases[i]
		}
		cls, name := mangleNodeID(nodeid)
		cases = append(cases, junitCase{Classname: cls, Name: name})
		open[nodeid] = len(cases) - 1
		return &cases[len(cases)-1]
	}
	mark := new(struct{})
	ended := false
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if ended {
			return nil, fmt.Errorf("line %d: records after the end", n+1)
		}
		var r pluginRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("line %d: %v", n+1, err)
		}
		switch {
		case r.End == 1:
			ended = true
		case r.When == "internal":
			cases = append(cases, junitCase{Classname: "pytest", Name: "internal", Error: mark})
		case r.When == "collect":
			c := opened(r.NodeID)
			if r.Outcome == "failed" {
				c.Error, c.Collect = mark, true
			} else if r.Outcome == "skipped" {
				c.Skipped = mark
			}
		default:
			switch r.Outcome {
			case "passed":
				if r.When == "call" {
					opened(r.NodeID)
				}
			case "failed":
				if r.When == "teardown" && callFailed[r.NodeID] {
					delete(open, r.NodeID) // a second case for the teardown's error
				}
				c := opened(r.NodeID)
				switch {
				case r.When == "call" && r.XFail == 1:
					c.Skipped = mark
				case r.When == "call":
					c.Failure = mark
				default:
					c.Error = mark
				}
				if r.When == "call" {
					callFailed[r.NodeID] = true
				}
			case "skipped":
				opened(r.NodeID).Skipped = mark
			}
			// Every phase's time goes to the case open for the test
			// (junit_duration_report = "total", pytest's default).
			opened(r.NodeID).Time += r.Secs
			if r.When == "teardown" {
				delete(open, r.NodeID)
				delete(callFailed, r.NodeID)
			}
		}
	}
	if !ended {
		return nil, fmt.Errorf("no end line: the report was cut short")
	}
	return cases, nil
}

// mangleNodeID is pytest's mangle_test_address: the node id's file with
// dots for slashes and no ".py", the classes after it, dotted, make the
// classname; the last part, parameters included, the name (escaped as
// bin_xml_escape does).
func mangleNodeID(nodeid string) (classname, name string) {
	p, params, hasParams := strings.Cut(nodeid, "[")
	names := strings.Split(p, "::")
	names[0] = strings.TrimSuffix(strings.ReplaceAll(names[0], "/", "."), ".py")
	if hasParams {
		names[len(names)-1] += "[" + params
	}
	return strings.Join(names[:len(names)-1], "."), xmlEscapeInvalid(names[len(names)-1])
}

// xmlEscapeInvalid writes characters XML cannot hold as pytest's
// bin_xml_escape does (#x1B).
func xmlEscapeInvalid(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == 0x9 || r == 0xA || r == 0xD || 0x20 <= r && r <= 0x7E || 0x80 <= r && r <= 0xD7FF || 0xE000 <= r && r <= 0xFFFD || 0x10000 <= r && r <= 0x10FFFF:
			b.WriteRune(r)
		case r <= 0xFF:
			fmt.Fprintf(&b, "#x%02X", r)
		default:
			fmt.Fprintf(&b, "#x%04X", r)
		}
	}
	return b.String()
}
