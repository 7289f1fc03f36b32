package protect

import (
	"bytes"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellCmd is one simple command of a shell script (a package.json script,
// a CI step, a Makefile recipe line), with what keeps its failure from
// failing the script.
type shellCmd struct {
	args []string // words; a word that is not literal keeps its source text
	line int      // 1-based, within the script
	// masked says why a failure of this command cannot fail the script
	// ("|| true", "set +e", "; exit 0", "!"), "" when it can.
	masked string
}

// parseShell returns the simple commands of src in order.
func parseShell(src string) ([]shellCmd, error) {
	f, err := syntax.NewParser(syntax.KeepComments(false)).Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, err
	}
	w := &shellWalker{}
	w.stmts(f.Stmts, "")
	return w.out, nil
}

type shellWalker struct {
	out  []shellCmd
	sete string // "set +e" while errexit is off
}

func (w *shellWalker) stmts(list []*syntax.Stmt, masked string) {
	for i, st := range list {
		m := masked
		if m == "" && exitsZeroAfter(list[i+1:]) {
			m = "; exit 0"
		}
		w.stmt(st, m)
	}
}

// exitsZeroAfter reports whether a later statement of the list is exit 0
// (or a bare exit), which ends the script as passed whatever ran before.
func exitsZeroAfter(rest []*syntax.Stmt) bool {
	for _, st := range rest {
		c, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(c.Args) == 0 {
			continue
		}
		if wordString(c.Args[0]) == "exit" && (len(c.Args) == 1 || wordString(c.Args[1]) == "0") {
			return true
		}
	}
	return false
}

func (w *shellWalker) stmt(st *syntax.Stmt, masked string) {
	if st.Negated && masked == "" {
		masked = "!"
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		w.call(c, masked)
	case *syntax.BinaryCmd:
		if c.Op == syntax.OrStmt && masked == "" && alwaysSucceeds(c.Y) {
			w.stmt(c.X, "|| "+strings.Join(firstWords(c.Y), " "))
			w.stmt(c.Y, masked)
			return
		}
		w.stmt(c.X, masked)
		w.stmt(c.Y, masked)
	case *syntax.Block:
		w.stmts(c.Stmts, masked)
	case *syntax.Subshell:
		w.stmts(c.Stmts, masked)
	case *syntax.IfClause:
		for cl := c; cl != nil; cl = cl.Else {
			w.stmts(cl.Cond, masked)
			w.stmts(cl.Then, masked)
		}
	case *syntax.ForClause:
		w.stmts(c.Do, masked)
	case *syntax.WhileClause:
		w.stmts(c.Cond, masked)
		w.stmts(c.Do, masked)
	case *syntax.CaseClause:
		for _, it := range c.Items {
			w.stmts(it.Stmts, masked)
		}
	case *syntax.TimeClause:
		if c.Stmt != nil {
			w.stmt(c.Stmt, masked)
		}
	}
}

func (w *shellWalker) call(c *syntax.CallExpr, masked string) {
	if len(c.Args) == 0 {
		return
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = wordString(a)
	}
	if args[0] == "set" {
		for _, a := range args[1:] {
			switch {
			case strings.HasPrefix(a, "+") && strings.Contains(a, "e"):
				w.sete = "set +e"
			case strings.HasPrefix(a, "-") && strings.Contains(a, "e") && !strings.HasPrefix(a, "--"):
				w.sete = ""
			}
		}
	}
	if masked == "" {
		masked = w.sete
	}
	w.out = append(w.out, shellCmd{args: args, line: int(c.Pos().Line()), masked: masked})
}

// alwaysSucceeds reports whether st cannot fail: true, :, exit 0, echo.
func alwaysSucceeds(st *syntax.Stmt) bool {
	ws := firstWords(st)
	if len(ws) == 0 {
		return false
	}
	switch ws[0] {
	case "true", ":", "echo", "printf":
		return true
	case "exit":
		return len(ws) == 1 || ws[1] == "0"
	}
	return false
}

func firstWords(st *syntax.Stmt) []string {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	var out []string
	for _, a := range c.Args {
		out = append(out, wordString(a))
		if len(out) == 2 {
			break
		}
	}
	return out
}

// wordString returns a word's literal value, or its source text where a
// part is expanded at run time.
func wordString(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeLit(p.Value))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				} else {
					b.WriteString(nodeSource(q))
				}
			}
		default:
			b.WriteString(nodeSource(p))
		}
	}
	return b.String()
}

func unescapeLit(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func nodeSource(n syntax.Node) string {
	var buf bytes.Buffer
	_ = syntax.NewPrinter().Print(&buf, n)
	return buf.String()
}

// scriptCall is one call of a JavaScript test runner in a package.json
// test script: the runner and the words after it.
type scriptCall struct {
	runner string // jest, vitest, mocha, node, other
	args   []string
}

// runnerWords maps a command's base name to the runner it is.
var runnerWords = map[string]string{
	"jest": "jest", "react-scripts": "jest", "craco": "jest", "vitest": "vitest",
	"mocha": "mocha", "_mocha": "mocha", "ts-mocha": "mocha", "electron-mocha": "mocha",
	"ava": "other", "tap": "other", "karma": "karma", "playwright": "other", "cypress": "other",
	"jasmine": "other", "uvu": "other", "wtr": "other", "web-test-runner": "other", "bun": "other", "deno": "other",
}

// testScriptCalls follows the test script of a package.json through the
// scripts it runs (npm run x, pnpm x, yarn x, run-s x) and returns each
// runner called. A script calling no known runner gives one "other".
func testScriptCalls(scripts map[string]any) []scriptCall {
	var out []scriptCall
	seen := map[string]bool{}
	var follow func(name string, depth int)
	follow = func(name string, depth int) {
		s, _ := scripts[name].(string)
		if s == "" || seen[name] || depth > 4 {
			return
		}
		seen[name] = true
		cmds, err := parseShell(s)
		if err != nil {
			out = append(out, scriptCall{runner: "other"})
			return
		}
		for _, c := range cmds {
			if sub := scriptRun(c.args, scripts); len(sub) > 0 {
				for _, n := range sub {
					follow(n, depth+1)
				}
				continue
			}
			if call, ok := runnerCall(c.args); ok {
				out = append(out, call)
			}
		}
	}
	follow("test", 0)
	if len(out) == 0 {
		if s, _ := scripts["test"].(string); s != "" && !strings.Contains(s, "no test specified") {
			out = append(out, scriptCall{runner: "other"})
		}
	}
	return out
}

// scriptRun returns the scripts a command runs by name: npm run x, pnpm
// [run] x, yarn [run] x, npm-run-all/run-s/run-p x y (globs expanded).
func scriptRun(args []string, scripts map[string]any) []string {
	if len(args) < 2 {
		return nil
	}
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		i++
	}
	var names []string
	switch path.Base(args[0]) {
	case "npm":
		switch {
		case i+1 < len(args) && (args[i] == "run" || args[i] == "run-script"):
			names = []string{args[i+1]}
		case i < len(args) && (args[i] == "test" || args[i] == "t"):
			names = []string{"test"}
		}
	case "pnpm", "yarn", "bun":
		if i < len(args) && args[i] == "run" {
			i++
		}
		if i < len(args) {
			names = []string{args[i]}
		}
	case "npm-run-all", "run-s", "run-p":
		names = args[1:]
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, "-") {
			continue
		}
		for k := range scripts {
			if m, _ := path.Match(n, k); m || strings.HasSuffix(n, "*") && strings.HasPrefix(k, strings.TrimSuffix(n, "*")) {
				out = append(out, k)
			}
		}
	}
	return out
}

// runnerCall finds a runner among the words of one command (after npx,
// cross-env, c8 and other wrappers).
func runnerCall(args []string) (scriptCall, bool) {
	for i, a := range args {
		if strings.Contains(a, "=") && !strings.HasPrefix(a, "-") {
			continue // VAR=value
		}
		base := path.Base(a)
		if base == "node" || base == "tsx" {
			for _, b := range args[i+1:] {
				if b == "--test" {
					return scriptCall{runner: "node", args: positional(args[i+1:])}, true
				}
			}
			continue // node script.js mocha …: a wrapper, the runner may follow
		}
		if r, ok := runnerWords[base]; ok {
			return scriptCall{runner: r, args: args[i+1:]}, true
		}
	}
	return scriptCall{}, false
}

// positional returns the words that are not flags, skipping the values
// of the flags that take one.
func positional(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--import" || a == "--require" || a == "-r" || a == "--loader" || a == "--experimental-loader" || a == "--test-reporter" || a == "--test-reporter-destination":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			out = append(out, a)
		}
	}
	return out
}

// configFlag returns the --config (-c) value of the calls, "" for none.
func configFlag(calls []scriptCall) string {
	for _, c := range calls {
		for i, a := range c.args {
			switch {
			case (a == "--config" || a == "-c") && i+1 < len(c.args):
				return strings.TrimPrefix(c.args[i+1], "./")
			case strings.HasPrefix(a, "--config="):
				return strings.TrimPrefix(strings.TrimPrefix(a, "--config="), "./")
			}
		}
	}
	return ""
}
