package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// mutation replaces old with new at offset in file.
type mutation struct {
	file     string
	offset   int
	old, new string
	kind     string
}

func (m mutation) String() string {
	return fmt.Sprintf("%s:%d %s %q→%q", m.file, m.offset, m.kind, m.old, m.new)
}

func (m mutation) apply(src []byte) []byte {
	if m.offset+len(m.old) > len(src) || string(src[m.offset:m.offset+len(m.old)]) != m.old {
		return nil
	}
	out := append([]byte{}, src[:m.offset]...)
	out = append(out, m.new...)
	return append(out, src[m.offset+len(m.old):]...)
}

var flips = map[string]string{"==": "!=", "!=": "==", "<": ">=", ">": "<=", "<=": ">", ">=": "<",
	"===": "!==", "!==": "==="}

// goSites lists mutations of one Go file: flipped comparisons, integer
// constants plus one, and dropped statements.
func goSites(dir, rel string) []mutation {
	src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	// Generated code: marked, or carrying //line directives back to its
	// source (ragel, goyacc), whose tables would drown the sample in
	// constants no test can tell apart.
	if err != nil || strings.Contains(string(src), "Code generated") || strings.Contains(string(src), "DO NOT EDIT") ||
		lineDirective.Match(src) {
		return nil
	}
	var out []mutation
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(rel, -1, len(src)), src, nil, 0)
	inImport := false
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		off := fset.Position(pos).Offset
		switch {
		case tok == token.IMPORT:
			inImport = true
		case tok == token.FUNC || tok == token.TYPE || tok == token.VAR || tok == token.CONST:
			inImport = false
		case inImport:
		case tok == token.EQL || tok == token.NEQ || tok == token.LSS || tok == token.GTR || tok == token.LEQ || tok == token.GEQ:
			out = append(out, mutation{rel, off, tok.String(), flips[tok.String()], "flip"})
		case tok == token.INT:
			if n, err := strconv.ParseInt(lit, 0, 64); err == nil && n < 1<<30 {
				out = append(out, mutation{rel, off, lit, strconv.FormatInt(n+1, 10), "constant"})
			}
		}
	}
	f, err := parser.ParseFile(fset, rel, src, 0)
	if err != nil {
		return out
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var st ast.Stmt
		switch n := n.(type) {
		case *ast.ExprStmt:
			st = n
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				st = n
			}
		case *ast.IncDecStmt:
			st = n
		}
		if st != nil {
			a, z := fset.Position(st.Pos()).Offset, fset.Position(st.End()).Offset
			out = append(out, mutation{rel, a, string(src[a:z]), "", "drop"})
		}
		return true
	})
	return out
}

var lineDirective = regexp.MustCompile(`(?m)^//line `)

var (
	scriptCompare = regexp.MustCompile(` (===|!==|==|!=|<=|>=|<|>) `)
	scriptNumber  = regexp.MustCompile(`\b\d+\b`)
	pyAssign      = regexp.MustCompile(`(?m)^([ \t]+)([A-Za-z_][\w.]*(\[[^\]]*\])? *[-+*]?= [^=].*)$`)
	jsAssign      = regexp.MustCompile(`(?m)^([ \t]+)((?:[A-Za-z_$][\w.$]* *[-+*]?= [^=].*|[A-Za-z_$][\w.$]*\(.*\));)$`)
)

// scriptSites lists mutations of a Python or JavaScript file, line by line
// outside comments and strings (string-free lines only, for simplicity).
func scriptSites(dir, rel string, js bool) []mutation {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil
	}
	src := string(data)
	var out []mutation
	off := 0
	for _, line := range strings.SplitAfter(src, "\n") {
		code := strings.TrimSpace(line)
		skip := code == "" || strings.HasPrefix(code, "#") || strings.HasPrefix(code, "//") ||
			strings.ContainsAny(code, `"'`+"`") || strings.HasPrefix(code, "import") || strings.HasPrefix(code, "from") ||
			strings.Contains(code, "require(")
		if !skip {
			for _, m := range scriptCompare.FindAllStringSubmatchIndex(line, -1) {
				op := line[m[2]:m[3]]
				out = append(out, mutation{rel, off + m[2], op, flips[op], "flip"})
			}
			for _, m := range scriptNumber.FindAllStringIndex(line, -1) {
				n, _ := strconv.Atoi(line[m[0]:m[1]])
				out = append(out, mutation{rel, off + m[0], line[m[0]:m[1]], strconv.Itoa(n + 1), "constant"})
			}
		}
		off += len(line)
	}
	re, repl := pyAssign, "pass"
	if js {
		re, repl = jsAssign, ";"
	}
	for _, m := range re.FindAllStringSubmatchIndex(src, -1) {
		out = append(out, mutation{rel, m[4], src[m[4]:m[5]], repl, "drop"})
	}
	return out
}

// shuffled returns the sites in random order.
func shuffled(rng *rand.Rand, sites []mutation) []mutation {
	rng.Shuffle(len(sites), func(i, j int) { sites[i], sites[j] = sites[j], sites[i] })
	return sites
}
