package policy

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// simpleCmd is one command of a parsed command line with its words
// reduced to what bash would pass after quote removal.
type simpleCmd struct {
	args []string
	// dynamic[i] is set when args[i] is not fully known before running:
	// it holds a parameter expansion, a glob, a brace pattern or $'...'.
	dynamic []bool
}

// shellLine is what the parser learned about a command line.
type shellLine struct {
	cmds []simpleCmd
	// opaque lists constructs that hide what will run; any of them makes
	// the line impossible to allow by pattern.
	opaque []string
	// paths are literal words and redirection targets, for the .chanto check.
	paths []string
}

// opaqueCommands run code given as data or run another command whose
// argv a prefix rule cannot see, so they never match an allow pattern.
var opaqueCommands = map[string]string{
	"eval": "eval", "source": "source", ".": "source", "exec": "exec",
	"sh": "a nested shell", "bash": "a nested shell", "zsh": "a nested shell",
	"dash": "a nested shell", "ksh": "a nested shell", "fish": "a nested shell",
	"busybox": "busybox", "xargs": "xargs", "parallel": "parallel",
	"env": "env", "sudo": "sudo", "doas": "doas", "su": "su",
	"command": "command", "builtin": "builtin", "nohup": "nohup",
	"timeout": "timeout", "nice": "nice", "ionice": "ionice", "stdbuf": "stdbuf",
	"time": "time", "watch": "watch", "setsid": "setsid", "chroot": "chroot",
	"unshare": "unshare", "nsenter": "nsenter", "trap": "trap", "alias": "alias",
	"enable": "enable", "shopt": "shopt", "set": "set", "export": "export",
	"unset": "unset", "declare": "declare", "typeset": "typeset", "local": "local",
	"readonly": "readonly", "let": "let", "coproc": "coproc", "script": "script",
	"strace": "strace", "ltrace": "ltrace", "gdb": "gdb",
}

// wrappers run their arguments as a command; deny rules look behind them.
var wrappers = map[string]bool{
	"exec": true, "env": true, "sudo": true, "doas": true, "command": true, "builtin": true,
	"nohup": true, "timeout": true, "nice": true, "ionice": true, "stdbuf": true, "time": true,
	"watch": true, "setsid": true, "xargs": true, "parallel": true, "strace": true, "ltrace": true,
	"chroot": true, "unshare": true, "nsenter": true, "busybox": true,
}

// parseLine parses a bash command line and collects every simple command,
// including those nested in substitutions, so deny rules see them all.
func parseLine(line string) (shellLine, error) {
	var sl shellLine
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return sl, err
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			sl.addCall(n)
		case *syntax.Stmt:
			sl.addRedirs(n.Redirs)
			if n.Coprocess {
				sl.opaque = append(sl.opaque, "coproc")
			}
		case *syntax.CmdSubst:
			sl.opaque = append(sl.opaque, "command substitution")
		case *syntax.ProcSubst:
			sl.opaque = append(sl.opaque, "process substitution")
		case *syntax.ArithmExp:
			sl.opaque = append(sl.opaque, "arithmetic expansion")
		case *syntax.ArithmCmd:
			sl.opaque = append(sl.opaque, "arithmetic command")
		case *syntax.LetClause:
			sl.opaque = append(sl.opaque, "let")
		case *syntax.DeclClause:
			sl.opaque = append(sl.opaque, "declaration")
		case *syntax.FuncDecl:
			sl.opaque = append(sl.opaque, "function definition")
		case *syntax.CoprocClause:
			sl.opaque = append(sl.opaque, "coproc")
		case *syntax.TestClause:
			sl.opaque = append(sl.opaque, "[[ ]] test")
		case *syntax.ParamExp:
			if !simpleParam(n) {
				sl.opaque = append(sl.opaque, "parameter expansion with operators")
			}
		case *syntax.SglQuoted:
			if n.Dollar {
				sl.opaque = append(sl.opaque, "$'...' quoting")
			}
		case *syntax.DblQuoted:
			if n.Dollar {
				sl.opaque = append(sl.opaque, "$\"...\" quoting")
			}
		}
		return true
	})
	return sl, nil
}

func simpleParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Flags == nil && !p.Excl && !p.Length && !p.Width && !p.IsSet &&
		p.NestedParam == nil && p.Index == nil && len(p.Modifiers) == 0 && p.Slice == nil &&
		p.Repl == nil && p.Names == 0 && p.Exp == nil && p.Param.Value != "IFS"
}

func (sl *shellLine) addCall(c *syntax.CallExpr) {
	if len(c.Assigns) > 0 {
		sl.opaque = append(sl.opaque, "variable assignment")
	}
	var sc simpleCmd
	for _, w := range c.Args {
		v, dyn := wordValue(w)
		sc.args = append(sc.args, v)
		sc.dynamic = append(sc.dynamic, dyn)
		sl.paths = append(sl.paths, v)
	}
	if len(sc.args) == 0 {
		return
	}
	if sc.dynamic[0] {
		sl.opaque = append(sl.opaque, "a command name that is computed")
	}
	if reason := opaqueUse(sc); reason != "" {
		sl.opaque = append(sl.opaque, reason)
	}
	sl.cmds = append(sl.cmds, sc)
}

// opaqueUse names why a simple command hides what it runs, or "".
func opaqueUse(sc simpleCmd) string {
	name := baseName(sc.args[0])
	if r, ok := opaqueCommands[name]; ok {
		return r
	}
	switch name {
	case "find":
		for _, a := range sc.args[1:] {
			switch a {
			case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprintf", "-fls":
				return "find " + a
			}
		}
	case "git":
		for _, a := range sc.args[1:] {
			if a == "-c" || strings.HasPrefix(a, "--config-env") || strings.HasPrefix(a, "--exec-path") {
				return "git " + a
			}
		}
	}
	return ""
}

func (sl *shellLine) addRedirs(rs []*syntax.Redirect) {
	for _, r := range rs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			continue
		}
		if r.Word == nil {
			continue
		}
		v, dyn := wordValue(r.Word)
		sl.paths = append(sl.paths, v)
		if r.Op == syntax.DplOut || r.Op == syntax.DplIn {
			if !dyn && (v == "-" || isDigits(v)) {
				continue
			}
		}
		if !dyn && v == "/dev/null" {
			continue
		}
		sl.opaque = append(sl.opaque, fmt.Sprintf("redirection %s %s", r.Op, v))
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// wordValue returns a word after quote removal and whether any part of it
// is only known at run time.
func wordValue(w *syntax.Word) (string, bool) {
	var b strings.Builder
	dyn := false
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if strings.ContainsAny(v, "*?[") || (strings.Contains(v, "{") && (strings.Contains(v, ",") || strings.Contains(v, ".."))) {
				dyn = true
			}
			if i == 0 && strings.HasPrefix(v, "~") {
				dyn = true
			}
			b.WriteString(unescapeUnquoted(v))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
			dyn = dyn || p.Dollar
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(l.Value))
				} else {
					dyn = true
				}
			}
		default:
			dyn = true
		}
	}
	return b.String(), dyn
}

func unescapeUnquoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func baseName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// nestedScripts returns the literal script arguments of eval, sh -c and
// bash -c, so deny rules can look inside them.
func nestedScripts(sc simpleCmd) []string {
	name := baseName(sc.args[0])
	switch name {
	case "eval":
		if !anyDynamic(sc.dynamic[1:]) {
			return []string{strings.Join(sc.args[1:], " ")}
		}
	case "sh", "bash", "zsh", "dash", "ksh":
		for i := 1; i+1 < len(sc.args); i++ {
			if strings.HasPrefix(sc.args[i], "-") && strings.Contains(sc.args[i], "c") && !sc.dynamic[i+1] {
				return []string{sc.args[i+1]}
			}
		}
	}
	return nil
}

func anyDynamic(d []bool) bool {
	for _, x := range d {
		if x {
			return true
		}
	}
	return false
}
