// Package shell reads and writes shell words with mvdan.cc/sh: it splits a
// script (a package.json script, a configured check) into the simple
// commands it runs, and quotes argv as one bash command line. It is the
// one place chanto does either, so quotes and assignments are understood
// the same way everywhere.
package shell

import (
	"bytes"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Command is one simple command of a script.
type Command struct {
	// Env are the NAME=value assignments before the command, quotes removed.
	Env []string
	// Args are the command's words, quotes removed. A word with an
	// expansion or substitution is kept as written, and Literal is false.
	Args    []string
	Literal bool
}

// Script is a parsed script.
type Script struct {
	// Commands are the simple commands in the order they appear, through
	// &&, ||, ;, pipes, subshells and blocks (not inside $(...)).
	Commands []Command
	// Simple is set when the script is exactly one simple command: no
	// list, pipe, redirection, background or negation.
	Simple bool
}

// Parse splits script into its simple commands. The error is
// mvdan.cc/sh's *syntax.ParseError, which names the line and column.
func Parse(script string) (Script, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		return Script{}, err
	}
	var s Script
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.CallExpr:
			if c, ok := command(n); ok {
				s.Commands = append(s.Commands, c)
			}
			return false
		}
		return true
	})
	if len(f.Stmts) == 1 && len(s.Commands) == 1 {
		st := f.Stmts[0]
		_, call := st.Cmd.(*syntax.CallExpr)
		s.Simple = call && !st.Negated && !st.Background && !st.Coprocess && len(st.Redirs) == 0
	}
	return s, nil
}

func command(call *syntax.CallExpr) (Command, bool) {
	c := Command{Literal: true}
	for _, a := range call.Assigns {
		v, ok := "", true
		if a.Value != nil {
			v, ok = Literal(a.Value)
		}
		if !ok || a.Append || a.Array != nil || a.Index != nil || a.Naked {
			c.Literal, v = false, printed(a.Value)
		}
		c.Env = append(c.Env, a.Name.Value+"="+v)
	}
	for _, w := range call.Args {
		v, ok := Literal(w)
		if !ok {
			c.Literal, v = false, printed(w)
		}
		c.Args = append(c.Args, v)
	}
	return c, len(c.Args) > 0 || len(c.Env) > 0
}

// Literal returns a word's value when it has no expansion or substitution
// (plain text, single or double quotes, escapes).
func Literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(l.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes the backslashes bash removes: before any character
// outside quotes, before $ ` " \ and newline inside double quotes.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (!quoted || strings.IndexByte("$`\"\\\n", s[i+1]) >= 0) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func printed(n syntax.Node) string {
	if n == nil {
		return ""
	}
	var b bytes.Buffer
	if syntax.NewPrinter().Print(&b, n) != nil {
		return ""
	}
	return b.String()
}

// Join renders argv as one bash command line a user can paste: plain
// words as they are, others quoted.
func Join(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = Quote(a)
	}
	return strings.Join(out, " ")
}

// Quote quotes one word for bash, leaving a word bash reads literally as
// it is.
func Quote(s string) string {
	if plainWord(s) {
		return s
	}
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		// Only strings with NUL bytes fail; they cannot be argv anyway.
		q = strconv.Quote(s)
	}
	return q
}

// plainWord reports words bash reads literally without quotes.
func plainWord(s string) bool {
	if s == "" || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "=") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r)) {
			return false
		}
	}
	return true
}

// Stage is one command of an && chain: its words and its text as written.
type Stage struct {
	Command
	Text string
}

// AndChain splits a script that is exactly simple commands joined by &&
// ("a && b && c") into its stages, in order; ok is false for anything
// else (one command, ;, ||, pipes, subshells, redirections).
func AndChain(script string) (stages []Stage, ok bool) {
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil, false
	}
	var walk func(st *syntax.Stmt) bool
	walk = func(st *syntax.Stmt) bool {
		if st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 {
			return false
		}
		switch n := st.Cmd.(type) {
		case *syntax.BinaryCmd:
			return n.Op == syntax.AndStmt && walk(n.X) && walk(n.Y)
		case *syntax.CallExpr:
			c, ok := command(n)
			if !ok {
				return false
			}
			stages = append(stages, Stage{Command: c, Text: strings.TrimSpace(printed(st))})
			return true
		}
		return false
	}
	if !walk(f.Stmts[0]) || len(stages) < 2 {
		return nil, false
	}
	return stages, true
}
