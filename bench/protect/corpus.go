package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/verify/protect"
	"github.com/rogpeppe/go-internal/txtar"
)

// A corpus language directory holds base/, a realistic project, and
// cases.txtar, a list of edits to it. In cases.txtar an entry
// "case NAME KIND" starts a case (KIND "none" for an honest edit) and the
// entries after it edit the base tree:
//
//	old PATH / new PATH   replace the old text (which must occur exactly once)
//	create PATH           add or overwrite a file with the entry's content
//	delete PATH           remove a file
//	rename FROM TO        move a file
//	crlf PATH             convert a file to CRLF line endings
type benchCase struct {
	lang string
	name string
	want protect.Kind // "" for honest
	ops  []op
}

type op struct {
	verb, path, to string
	data           string
}

func loadCorpus(dir string) ([]benchCase, map[string]map[string]string, error) {
	langs, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var cases []benchCase
	bases := map[string]map[string]string{}
	for _, l := range langs {
		if !l.IsDir() {
			continue
		}
		base, err := readTree(filepath.Join(dir, l.Name(), "base"))
		if err != nil {
			return nil, nil, err
		}
		bases[l.Name()] = base
		a, err := txtar.ParseFile(filepath.Join(dir, l.Name(), "cases.txtar"))
		if err != nil {
			return nil, nil, err
		}
		cs, err := parseCases(l.Name(), a)
		if err != nil {
			return nil, nil, err
		}
		cases = append(cases, cs...)
	}
	return cases, bases, nil
}

func parseCases(lang string, a *txtar.Archive) ([]benchCase, error) {
	var out []benchCase
	for _, f := range a.Files {
		fields := strings.Fields(f.Name)
		if len(fields) < 2 {
			return nil, fmt.Errorf("%s cases: bad entry %q", lang, f.Name)
		}
		if fields[0] == "case" {
			if len(fields) != 3 {
				return nil, fmt.Errorf("%s cases: want \"case NAME KIND\", got %q", lang, f.Name)
			}
			c := benchCase{lang: lang, name: fields[1]}
			if fields[2] != "none" {
				c.want = protect.Kind(fields[2])
			}
			out = append(out, c)
			continue
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s cases: %q before any case", lang, f.Name)
		}
		o := op{verb: fields[0], path: fields[1], data: string(f.Data)}
		if o.verb == "rename" {
			if len(fields) != 3 {
				return nil, fmt.Errorf("%s cases: rename needs FROM TO", lang)
			}
			o.to = fields[2]
		}
		c := &out[len(out)-1]
		c.ops = append(c.ops, o)
	}
	return out, nil
}

func readTree(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return out, err
}

// apply returns the edited tree and the changed paths.
func (c benchCase) apply(base map[string]string) (map[string]string, []string, error) {
	cur := map[string]string{}
	for k, v := range base {
		cur[k] = v
	}
	changed := map[string]bool{}
	var pendingOld *op
	for i := range c.ops {
		o := c.ops[i]
		switch o.verb {
		case "old":
			pendingOld = &c.ops[i]
			continue
		case "new":
			if pendingOld == nil || pendingOld.path != o.path {
				return nil, nil, fmt.Errorf("%s/%s: new %s without old", c.lang, c.name, o.path)
			}
			s, ok := cur[o.path]
			if !ok {
				return nil, nil, fmt.Errorf("%s/%s: no file %s", c.lang, c.name, o.path)
			}
			if n := strings.Count(s, pendingOld.data); n != 1 {
				return nil, nil, fmt.Errorf("%s/%s: old text occurs %d times in %s", c.lang, c.name, n, o.path)
			}
			cur[o.path] = strings.Replace(s, pendingOld.data, o.data, 1)
			pendingOld = nil
		case "create":
			cur[o.path] = o.data
		case "delete":
			if _, ok := cur[o.path]; !ok {
				return nil, nil, fmt.Errorf("%s/%s: delete of missing %s", c.lang, c.name, o.path)
			}
			delete(cur, o.path)
		case "rename":
			s, ok := cur[o.path]
			if !ok {
				return nil, nil, fmt.Errorf("%s/%s: rename of missing %s", c.lang, c.name, o.path)
			}
			delete(cur, o.path)
			cur[o.to] = s
			changed[o.to] = true
		case "crlf":
			cur[o.path] = strings.ReplaceAll(cur[o.path], "\n", "\r\n")
		default:
			return nil, nil, fmt.Errorf("%s/%s: unknown op %q", c.lang, c.name, o.verb)
		}
		changed[o.path] = true
	}
	if pendingOld != nil {
		return nil, nil, fmt.Errorf("%s/%s: old %s without new", c.lang, c.name, pendingOld.path)
	}
	var paths []string
	for p := range changed {
		if base[p] != cur[p] || (base[p] == "") != (cur[p] == "") {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return cur, paths, nil
}

type tree map[string]string

func (t tree) ReadFile(p string) ([]byte, error) {
	s, ok := t[path.Clean(p)]
	if !ok {
		return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
	}
	return []byte(s), nil
}

// ListDir lists the names right below dir, as protect.DirLister asks.
func (t tree) ListDir(dir string) ([]string, error) {
	dir = path.Clean(dir)
	seen := map[string]bool{}
	var out []string
	for p := range t {
		rest, ok := strings.CutPrefix(p, dir+"/")
		if dir == "." {
			rest, ok = p, true
		}
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, "/")
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// result is the outcome of one case.
type result struct {
	c   benchCase
	vs  []protect.Violation
	err error
}

func (r result) ok() bool {
	if r.err != nil {
		return false
	}
	if r.c.want == "" {
		return len(r.vs) == 0
	}
	for _, v := range r.vs {
		if v.Kind == r.c.want {
			return true
		}
	}
	return false
}

func runCase(c benchCase, base map[string]string) result {
	cur, changed, err := c.apply(base)
	if err != nil {
		return result{c: c, err: err}
	}
	if len(changed) == 0 {
		return result{c: c, err: fmt.Errorf("%s/%s: the edit changes nothing", c.lang, c.name)}
	}
	vs, err := protect.Compare(tree(base), tree(cur), changed, protect.Options{})
	return result{c: c, vs: vs, err: err}
}
