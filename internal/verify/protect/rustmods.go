package protect

import (
	"path"
	"sort"
	"strings"
)

// A Rust integration-test crate (tests/NAME.rs, tests/NAME/main.rs, or a
// declared [[test]] path) may hold no test itself and pull its tests in
// from other files with `mod` items (`#[path = "lexical/float.rs"] mod
// float;`, as serde_json does). Deleting that crate root, renaming it out
// of collection, or dropping one of its `mod` lines leaves the module
// files untouched on disk while cargo no longer builds them: each of their
// tests is gone. droppedRustModules reports those tests. dtolnay's
// automod::dir!("tests/regression") counts as a `mod` item for every .rs
// file in that folder.

// maxRustModules bounds the module walk of one crate.
const maxRustModules = 2000

func (c *comparer) droppedRustModules(files []string) []Violation {
	var out []Violation
	reported := map[string]bool{}
	for _, p := range files {
		if langOf(p) != "rust" || !c.isTestCrateRoot(c.det.base, p) {
			continue
		}
		b, ok, _ := read(c.base, p)
		if !ok {
			continue
		}
		was := rustModules(c.base, c.cur, c.det.base.cargoRulesFor(p).dir, p, b)
		if len(was) == 0 {
			continue
		}
		still := c.curRustModules(p)
		why := c.dropReason(p)
		for _, m := range sortedSet(was) {
			if still[m] || reported[m] {
				continue
			}
			if _, inCur, _ := read(c.cur, m); !inCur {
				continue // deleted: reported as a deleted test file itself
			}
			mb, ok, _ := read(c.base, m)
			if !ok {
				continue
			}
			bm := analyze("rust", m, mb)
			if bm == nil {
				continue
			}
			reported[m] = true
			for _, t := range bm.tests {
				out = append(out, Violation{File: m, Test: t.name, Line: t.line, Kind: TestRemoved,
					Message: "no longer built: " + why + "; " + Instruction})
			}
		}
	}
	return out
}

// dropReason says what happened to the crate root p.
func (c *comparer) dropReason(p string) string {
	if _, ok, _ := read(c.cur, p); !ok {
		return "its crate root " + p + " was deleted or moved away"
	}
	if !c.isTestCrateRoot(c.det.cur, p) {
		return "its crate root " + p + " is no longer collected"
	}
	return p + " no longer declares its module"
}

// isTestCrateRoot reports whether cargo builds p as a test crate of its
// package in the tree det describes.
func (c *comparer) isTestCrateRoot(det *Detector, p string) bool {
	r := det.cargoRulesFor(p)
	q := rel(r.dir, p)
	if r.paths[q] {
		return true
	}
	parts := strings.Split(q, "/")
	if parts[0] != "tests" || !(len(parts) == 2 || len(parts) == 3 && parts[2] == "main.rs") {
		return false
	}
	ok, _ := r.collects(p)
	return ok
}

// curRustModules is every file the current test crates of p's package
// build: the crate roots found under tests/ (when the tree can be
// listed; else the changed ones only) and the declared [[test]] paths.
func (c *comparer) curRustModules(p string) map[string]bool {
	r := c.det.cur.cargoRulesFor(p)
	roots := map[string]bool{}
	if _, ok, _ := read(c.cur, p); ok {
		roots[p] = true
	}
	for q := range r.paths {
		roots[path.Join(r.dir, q)] = true
	}
	for np := range c.models {
		if langOf(np) == "rust" {
			roots[np] = true
		}
	}
	if l, ok := c.cur.(DirLister); ok {
		tests := path.Join(r.dir, "tests")
		names, _ := l.ListDir(tests)
		for _, n := range names {
			if strings.HasSuffix(n, ".rs") {
				roots[path.Join(tests, n)] = true
			} else if _, ok, _ := read(c.cur, path.Join(tests, n, "main.rs")); ok {
				roots[path.Join(tests, n, "main.rs")] = true
			}
		}
	}
	all := map[string]bool{}
	for root := range roots {
		if !c.isTestCrateRoot(c.det.cur, root) {
			continue
		}
		b, ok, _ := read(c.cur, root)
		if !ok {
			continue
		}
		all[root] = true
		for m := range rustModules(c.cur, c.cur, r.dir, root, b) {
			all[m] = true
		}
	}
	return all
}

// rustModules follows the out-of-line `mod` items from the crate root
// root through the files they name, and returns those files. pkg is the
// package folder (automod's paths are relative to it); an automod folder
// is listed from src, or from alt when src cannot list (a snapshot).
func rustModules(src, alt Source, pkg, root string, b []byte) map[string]bool {
	found := map[string]bool{}
	type item struct {
		file  string
		src   []byte
		owner bool // a crate root or mod.rs: its modules sit beside it
	}
	queue := []item{{root, b, true}}
	for len(queue) > 0 && len(found) < maxRustModules {
		it := queue[0]
		queue = queue[1:]
		for _, d := range rustModDecls(it.src) {
			if d.automod != "" {
				for _, f := range automodFiles(src, alt, path.Join(pkg, d.automod)) {
					if mb, ok, _ := read(src, f); ok && !found[f] && f != root {
						found[f] = true
						queue = append(queue, item{f, mb, false})
					}
				}
				continue
			}
			for _, cand := range modCandidates(it.file, it.owner, d) {
				if found[cand] || cand == root {
					break
				}
				mb, ok, _ := read(src, cand)
				if !ok {
					continue
				}
				found[cand] = true
				base := path.Base(cand)
				queue = append(queue, item{cand, mb, base == "mod.rs" || d.path != ""})
				break
			}
		}
	}
	return found
}

// modDecl is one `mod NAME;` item, with its #[path] when it has one, or
// an automod::dir! folder.
type modDecl struct{ name, path, automod string }

// automodFiles lists the .rs files automod::dir! makes modules of.
func automodFiles(src, alt Source, dir string) []string {
	l, ok := src.(DirLister)
	if !ok {
		l, ok = alt.(DirLister)
	}
	if !ok {
		return nil
	}
	names, _ := l.ListDir(dir)
	var out []string
	for _, n := range names {
		if strings.HasSuffix(n, ".rs") {
			out = append(out, path.Join(dir, n))
		}
	}
	return out
}

// modCandidates are the files `mod` d in file may name, in cargo's order.
func modCandidates(file string, owner bool, d modDecl) []string {
	dir := path.Dir(file)
	if d.path != "" {
		return []string{path.Clean(path.Join(dir, d.path))}
	}
	if !owner {
		dir = path.Join(dir, strings.TrimSuffix(path.Base(file), ".rs"))
	}
	return []string{path.Join(dir, d.name+".rs"), path.Join(dir, d.name, "mod.rs")}
}

// rustModDecls lists a file's top-level out-of-line module items and the
// automod::dir! folders anywhere in it.
func rustModDecls(src []byte) []modDecl {
	src = normalizeNewlines(src)
	root, _ := parseTS(grammarOf("rust"), src)
	if root == nil {
		return nil
	}
	var out []modDecl
	root.walk(func(n *node) bool {
		if n.kind != "macro_invocation" {
			return true
		}
		if m := n.child("macro"); m != nil && strings.ReplaceAll(m.text(src), " ", "") == "automod::dir" {
			if lit := n.firstOf("token_tree"); lit != nil {
				if s := lit.firstOf("string_literal"); s != nil {
					out = append(out, modDecl{automod: path.Clean(stringValue(s, src))})
				}
			}
		}
		return false
	})
	var attrs []*node
	for _, n := range root.children {
		switch n.kind {
		case "attribute_item":
			attrs = append(attrs, n)
			continue
		case "line_comment", "block_comment":
			continue
		case "mod_item":
			name := n.child("name")
			if name != nil && n.child("body") == nil {
				d := modDecl{name: name.text(src)}
				for _, at := range attrs {
					if v := pathAttr(at, src); v != "" {
						d.path = v
					}
				}
				out = append(out, d)
			}
		}
		attrs = nil
	}
	return out
}

// pathAttr returns the file of a #[path = "..."] attribute.
func pathAttr(at *node, src []byte) string {
	attr := at.firstOf("attribute")
	if attr == nil {
		return ""
	}
	id := attr.firstOf("identifier")
	v := attr.child("value")
	if id == nil || id.text(src) != "path" || v == nil {
		return ""
	}
	return stringValue(v, src)
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
