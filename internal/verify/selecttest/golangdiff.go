package selecttest

import (
	"crypto/sha256"
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// goDiff is what changed in the Go files of a change set, declaration by
// declaration.
type goDiff struct {
	// changes are the functions and methods whose declaration changed,
	// came or went, with the names the new version mentions.
	changes []goChange
	// mentions are the package-level variables a changed function names:
	// a test that reads one may see what the change wrote there.
	mentions []string
	// direct are tests (by package) that are new or changed themselves.
	direct map[string][]string
	// whole are packages whose tests all run, with the reason: a test
	// file's imports, variables or TestMain changed.
	whole map[string]string
}

// diffGo compares the changed Go files of the module with their base
// versions. A non-empty reason means the change is beyond function bodies
// (a package-level variable, an init, imports, a build constraint, a
// directive) and test names cannot be narrowed.
func diffGo(in Input, byDir map[string]*goPkg) (*goDiff, string) {
	d := &goDiff{direct: map[string][]string{}, whole: map[string]string{}}
	for _, f := range cleanChanged(in.Changed) {
		if inNestedModule(in.Check.Dir, f) {
			continue
		}
		p := byDir[path.Dir(f)]
		if p == nil {
			continue // testdata, files read by tests: planGo's business
		}
		if !strings.HasSuffix(f, ".go") {
			if contains(p.Files, path.Base(f)) {
				return nil, f + " changed (not Go source)"
			}
			continue
		}
		if reason := d.file(in, p, f); reason != "" {
			return nil, reason
		}
	}
	return d, ""
}

// file compares one changed Go file.
func (d *goDiff) file(in Input, p *goPkg, f string) string {
	base, err := in.Base(f)
	if errors.Is(err, fs.ErrNotExist) {
		base, err = nil, nil
	}
	if err != nil {
		return "the base of " + f + " could not be read"
	}
	work, err := os.ReadFile(filepath.Join(in.Check.Dir, filepath.FromSlash(f)))
	if errors.Is(err, fs.ErrNotExist) {
		work, err = nil, nil
	}
	if err != nil {
		return f + " could not be read"
	}
	test := strings.HasSuffix(f, "_test.go")
	old, ok1 := declsOf(base, test)
	cur, ok2 := declsOf(work, test)
	if !ok1 || !ok2 {
		return f + " does not parse"
	}
	switch {
	case base != nil && work != nil && old.header != cur.header && test:
		d.whole[p.ImportPath] = "its imports changed"
	case base != nil && work != nil && old.header != cur.header:
		return "the imports, build constraints or directives of " + f + " changed"
	case base == nil && !test && !cur.onlyPlainImports:
		// A new file's plain imports only serve its new code; a blank,
		// dot or cgo import can run code or change names.
		return f + " is new and has a blank, dot or cgo import"
	}
	if why := d.funcs(p, f, old, cur, test); why != "" {
		return why
	}
	if why := otherDecls(old, cur); why != "" {
		if test {
			d.whole[p.ImportPath] = why
			return ""
		}
		return why + " in " + f
	}
	return ""
}

// funcs records the functions and methods that differ.
func (d *goDiff) funcs(p *goPkg, f string, old, cur fileDecls, test bool) string {
	keys := map[string]bool{}
	for k := range old.funcs {
		keys[k] = true
	}
	for k := range cur.funcs {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		o, c := old.funcs[k], cur.funcs[k]
		if o.hash == c.hash {
			continue
		}
		fn := c
		if fn.name == "" {
			fn = o
		}
		switch {
		case fn.name == "init":
			return "an init function changed in " + f
		case test && fn.recv == "" && fn.name == "TestMain":
			d.whole[p.ImportPath] = "TestMain changed"
		case test && fn.recv == "" && isTestFunc(fn.name):
			if c.name != "" {
				d.direct[p.ImportPath] = append(d.direct[p.ImportPath], fn.name)
			}
		default:
			d.changes = append(d.changes, goChange{Pkg: p.ImportPath, Name: fn.name, Recv: fn.recv})
			d.mentions = append(d.mentions, c.refs...)
		}
	}
	return ""
}

// otherDecls compares the var, const and type declarations: only new types
// and constants are allowed (nothing ran or named them before).
func otherDecls(old, cur fileDecls) string {
	left := slices.Clone(old.others)
	for _, c := range cur.others {
		if i := slices.IndexFunc(left, func(o otherDecl) bool { return o.hash == c.hash }); i >= 0 {
			left = slices.Delete(left, i, i+1)
			continue
		}
		if c.tok == token.VAR {
			return "a package-level variable changed"
		}
		for _, n := range c.names {
			if old.names[n] {
				return "a package-level " + c.tok.String() + " changed"
			}
		}
	}
	if len(left) > 0 {
		return "a package-level " + left[0].tok.String() + " was removed or changed"
	}
	return ""
}

// fileDecls is a Go file's declarations as comparable hashes.
type fileDecls struct {
	// header covers the package clause, imports, build constraints and
	// every //go: directive.
	header           string
	onlyPlainImports bool
	funcs            map[string]funcDecl
	others           []otherDecl
	names            map[string]bool
}

type funcDecl struct {
	name, recv, hash string
	refs             []string
}

type otherDecl struct {
	tok   token.Token
	names []string
	hash  string
}

// declsOf parses src (nil: no file) and hashes each declaration's tokens;
// comments count in test files only (an Example's "Output:" is a comment).
func declsOf(src []byte, withComments bool) (fileDecls, bool) {
	fd := fileDecls{funcs: map[string]funcDecl{}, names: map[string]bool{}, onlyPlainImports: true}
	if src == nil {
		return fd, true
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return fd, false
	}
	var head strings.Builder
	head.WriteString(tokensOf(src[:fset.Position(f.Name.End()).Offset], false))
	for _, im := range f.Imports {
		if im.Name != nil {
			head.WriteString(" " + im.Name.Name)
			if im.Name.Name == "_" || im.Name.Name == "." {
				fd.onlyPlainImports = false
			}
		}
		head.WriteString(" " + im.Path.Value)
		if im.Path.Value == `"C"` {
			fd.onlyPlainImports = false
		}
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:") || strings.HasPrefix(c.Text, "//export ") || strings.HasPrefix(c.Text, "//line ") ||
				strings.HasPrefix(c.Text, "// +build") {
				head.WriteString("\n" + c.Text)
			}
		}
	}
	fd.header = head.String()
	span := func(n ast.Node) string {
		return tokensOf(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset], withComments)
	}
	for i, decl := range f.Decls {
		switch x := decl.(type) {
		case *ast.FuncDecl:
			fn := funcDecl{name: x.Name.Name, hash: span(x), refs: refsOf(x)}
			if x.Recv != nil && len(x.Recv.List) > 0 {
				fn.recv = recvName(x.Recv.List[0].Type)
			}
			key := fn.recv + "." + fn.name
			if fn.name == "init" || fn.name == "_" {
				key += "#" + strconv.Itoa(i)
			}
			if _, dup := fd.funcs[key]; dup {
				key += "#" + strconv.Itoa(i)
			}
			fd.funcs[key] = fn
			fd.names[fn.name] = true
		case *ast.GenDecl:
			if x.Tok == token.IMPORT {
				continue
			}
			od := otherDecl{tok: x.Tok, hash: span(x)}
			for _, s := range x.Specs {
				for _, gd := range specDecls(x.Tok, s) {
					od.names = append(od.names, gd.Name)
					fd.names[gd.Name] = true
				}
			}
			fd.others = append(fd.others, od)
		}
	}
	return fd, true
}

// tokensOf hashes the token stream of src: layout never counts, comments
// only when asked.
func tokensOf(src []byte, withComments bool) string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	mode := scanner.Mode(0)
	if withComments {
		mode = scanner.ScanComments
	}
	s.Init(fset.AddFile("", -1, len(src)), src, func(token.Position, string) {}, mode)
	h := sha256.New()
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			lit = ";" // an inserted semicolon is layout
		}
		h.Write([]byte(tok.String()))
		h.Write([]byte{0})
		h.Write([]byte(lit))
		h.Write([]byte{0})
	}
	return string(h.Sum(nil))
}
