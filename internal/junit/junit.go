// Package junit renders a chanto verify report as JUnit XML, the report
// format CI systems (GitHub Actions reporters, GitLab, Jenkins, Buildkite)
// show natively: one test case per check the gate planned and one per
// test-protection violation. A check that failed carries its trimmed
// output, the same text the user and the model are shown; a check that
// never ran (an earlier one failed, or protection failed first) is
// skipped, saying why.
//
// The elements and attributes are the common subset of the JUnit schemas
// CI tools read (testsuites > testsuite > testcase with failure, error,
// skipped and system-out), so no reader needs an extension.
package junit

import (
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/durable"
	"github.com/chanto-dev/chanto/internal/verify"
)

// Suites is the document root.
type Suites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []Suite  `xml:"testsuite"`
}

// Suite is one chanto verify run.
type Suite struct {
	Name       string     `xml:"name,attr"`
	Tests      int        `xml:"tests,attr"`
	Failures   int        `xml:"failures,attr"`
	Errors     int        `xml:"errors,attr"`
	Skipped    int        `xml:"skipped,attr"`
	Time       string     `xml:"time,attr"`
	Timestamp  string     `xml:"timestamp,attr,omitempty"`
	Properties []Property `xml:"properties>property"`
	Cases      []Case     `xml:"testcase"`
	SystemOut  string     `xml:"system-out,omitempty"`
}

// Property is a name and value of the run: verdict, evidence, base.
type Property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// Case is one check or one protection violation.
type Case struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	Failure   *Problem `xml:"failure"`
	Error     *Problem `xml:"error"`
	Skipped   *Skip    `xml:"skipped"`
	SystemOut string   `xml:"system-out,omitempty"`
}

// Problem is a failure (the check's tests failed, a test was tampered
// with) or an error (the check could not tell: not installed, timed out,
// refused, no tests).
type Problem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// MarshalXML writes the text with its line breaks as they are (a field
// tagged chardata would write each as &#xA;): the output stays readable
// in the file as well as in a CI page.
func (p *Problem) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	start.Attr = []xml.Attr{{Name: xml.Name{Local: "message"}, Value: p.Message}, {Name: xml.Name{Local: "type"}, Value: p.Type}}
	if err := e.EncodeToken(start); err != nil {
		return err
	}
	if err := e.EncodeToken(xml.CharData(p.Text)); err != nil {
		return err
	}
	return e.EncodeToken(start.End())
}

// Skip says why a case did not run.
type Skip struct {
	Message string `xml:"message,attr"`
}

// The classnames group the cases in a CI report.
const (
	classCheck   = "chanto.check"
	classProtect = "chanto.protection"
	classGate    = "chanto.verify"
)

// Options are what the report does not hold.
type Options struct {
	// Planned are the commands of every check the gate planned, in order,
	// as verify.started names them; the ones after the last check run
	// are reported skipped. Nil reports only the checks that ran.
	Planned []string
	// Timestamp is when the run started; zero leaves it out.
	Timestamp time.Time
}

// Build turns a report into the JUnit document.
func Build(rep *verify.Report, opts Options) Suites {
	s := Suite{Name: "chanto verify", Properties: properties(rep)}
	if !opts.Timestamp.IsZero() {
		s.Timestamp = opts.Timestamp.UTC().Format("2006-01-02T15:04:05")
	}
	for _, v := range rep.Violations {
		s.Cases = append(s.Cases, Case{Name: v.Short(), Classname: classProtect, Time: seconds(0),
			Failure: &Problem{Message: oneLine(v.Message), Type: string(v.Kind), Text: v.String()}})
	}
	if rep.Problem != "" {
		s.Cases = append(s.Cases, Case{Name: "chanto verify", Classname: classGate, Time: seconds(0),
			Error: &Problem{Message: oneLine(rep.Problem), Type: "problem", Text: rep.Problem}})
	}
	var total time.Duration
	for _, c := range rep.Checks {
		total += c.Duration
		s.Cases = append(s.Cases, checkCase(rep, c))
	}
	s.Cases = append(s.Cases, notRun(rep, opts.Planned)...)
	for _, c := range s.Cases {
		s.Tests++
		switch {
		case c.Failure != nil:
			s.Failures++
		case c.Error != nil:
			s.Errors++
		case c.Skipped != nil:
			s.Skipped++
		}
	}
	s.Time = seconds(total)
	s.SystemOut = rep.Evidence
	return Suites{Name: s.Name, Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Skipped: s.Skipped, Time: s.Time, Suites: []Suite{s}}
}

// Render is Build as indented XML with its declaration.
func Render(rep *verify.Report, opts Options) ([]byte, error) {
	data, err := xml.MarshalIndent(Build(rep, opts), "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(data, '\n')...), nil
}

// Write renders the report into path atomically (internal/durable): a CI
// step reading it sees the old file or the whole new one.
func Write(path string, rep *verify.Report, opts Options) error {
	data, err := Render(rep, opts)
	if err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	if err := durable.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	return nil
}

func properties(rep *verify.Report) []Property {
	ps := []Property{{Name: "verdict", Value: string(rep.Verdict)}, {Name: "evidence", Value: rep.Evidence}}
	if rep.Base != "" {
		ps = append(ps, Property{Name: "base", Value: rep.Base})
	}
	if rep.Root != "" {
		ps = append(ps, Property{Name: "root", Value: rep.Root})
	}
	return ps
}

// checkCase is one check as it ran.
func checkCase(rep *verify.Report, c verify.CheckRun) Case {
	tc := Case{Name: checkName(c.Dir, c.Command), Classname: classCheck, Time: seconds(c.Duration)}
	if !c.Scope.Reason.IsZero() {
		tc.SystemOut = c.Scope.Summary()
	}
	out := verify.TrimOutput(c.Output)
	switch o := c.Outcome(); o {
	case verify.CheckPassed:
	case verify.CheckFailed:
		if old := c.AlreadyFailing; len(old) > 0 && len(old) == len(c.Failures) {
			// Failures that were there before the change are failures
			// still, told apart by their type.
			tc.Failure = &Problem{Message: "already failing before the change: " + names(old), Type: "already_failing", Text: out}
			break
		}
		msg := "failed (exit " + fmt.Sprint(c.ExitCode) + ")"
		if len(c.Failures) > 0 {
			msg = "failed: " + names(c.Failures)
		}
		tc.Failure = &Problem{Message: msg, Type: "failed", Text: out}
	default:
		msg := o.String()
		switch {
		case c.NotFound != "":
			msg += ": " + c.NotFound
		case c.CouldNotRun != "":
			msg += ": " + c.CouldNotRun
		}
		tc.Error = &Problem{Message: oneLine(msg), Type: strings.ReplaceAll(o.String(), " ", "_"), Text: out}
	}
	return tc
}

// notRun are the planned checks after the last one that ran: skipped,
// with the reason the chain stopped.
func notRun(rep *verify.Report, planned []string) []Case {
	why := "not run: an earlier check failed"
	if len(rep.Violations) > 0 {
		why = "not run: test protection failed"
	}
	var out []Case
	for i := len(rep.Checks); i < len(planned); i++ {
		out = append(out, Case{Name: planned[i], Classname: classCheck, Time: seconds(0), Skipped: &Skip{Message: why}})
	}
	if len(rep.Violations) > 0 && len(planned) == 0 {
		// Protection failing first leaves the checks unplanned: one case
		// says they did not run, so the report does not read as all tests.
		out = append(out, Case{Name: "checks", Classname: classCheck, Time: seconds(0), Skipped: &Skip{Message: why}})
	}
	return out
}

// checkName is the command as pasteable from the root.
func checkName(dir, command string) string {
	if dir == "" || dir == "." {
		return command
	}
	return "cd " + dir + " && " + command
}

func names(fs []verify.Failure) string {
	const max = 10
	var ns []string
	for i, f := range fs {
		if i == max {
			ns = append(ns, fmt.Sprintf("and %d more", len(fs)-max))
			break
		}
		n := f.Name
		if n == "" {
			n = f.ID
		}
		ns = append(ns, n)
	}
	return strings.Join(ns, ", ")
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%.3f", d.Seconds())
}

// CheckPath tells, before the checks run, whether a report could be
// written at path: its folder must exist. A long run should not end in
// "no such file" for a typo in the flag.
func CheckPath(path string) error {
	st, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("--junit %s: %w", path, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("--junit %s: %s is not a folder", path, filepath.Dir(path))
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("--junit %s: is a folder", path)
	}
	return nil
}
