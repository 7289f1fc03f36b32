package protect

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v4"
)

// jsConfig is what a jest, vitest or mocha configuration says about which
// files are tests. doubt is set when it could not be read with certainty
// (a computed export, a spread, a value that is not a literal); what was
// read is then only what the config seems to say.
type jsConfig struct {
	// vitest: test.include, test.includeSource, test.exclude, each joined
	// to the root and test.dir of the object it is in
	include, includeSource, exclude []string
	// jest: testMatch, testRegex, testPathIgnorePatterns (also in projects)
	testMatch, testRegex, ignore []string
	// mocha: spec, recursive, extension, ignore
	spec, extension []string
	recursive       bool
	doubt           string
	// karma: files (strings, or the pattern of {pattern: …} objects)
	karmaFiles []string
	karmaDoubt bool
}

func (c *jsConfig) doubtf(format string, args ...any) {
	if c.doubt == "" {
		c.doubt = fmt.Sprintf(format, args...)
	}
}

// readJSConfig reads a runner configuration written in JavaScript,
// TypeScript (any of .js .cjs .mjs .ts .cts .mts), JSON or YAML.
func readJSConfig(name string, b []byte) jsConfig {
	switch path.Ext(name) {
	case ".json", ".jsonc":
		var m map[string]any
		if err := json.Unmarshal(stripJSONComments(b), &m); err != nil {
			return jsConfig{doubt: "does not parse as JSON"}
		}
		return jsonRunnerConfig(m)
	case ".yml", ".yaml":
		var m map[string]any
		if err := yaml.Unmarshal(b, &m); err != nil {
			return jsConfig{doubt: "does not parse as YAML"}
		}
		return jsonRunnerConfig(m)
	}
	lang := "javascript"
	if strings.Contains(path.Ext(name), "ts") {
		lang = "typescript"
	}
	root, _ := parseTS(lang, b)
	var c jsConfig
	if root == nil {
		c.doubt = "does not parse"
		return c
	}
	r := &configReader{src: b, cfg: &c, decls: topDecls(root, b)}
	exp := exportedValue(root, b)
	if exp == nil {
		c.doubtf("exports no configuration object that can be read")
	} else if v := r.unwrap(exp); v == nil || (v.kind != "object" && v.kind != "array") {
		c.doubtf("its exported configuration is computed (%s)", clip(exp.text(b), 60))
	}
	r.walk(root, nil)
	return c
}

// jsonRunnerConfig reads the same settings from decoded JSON or YAML
// (package.json "jest", jest.config.json, .mocharc.json/.yml).
func jsonRunnerConfig(m map[string]any) jsConfig {
	var c jsConfig
	var walk func(m map[string]any, parent string)
	walk = func(m map[string]any, parent string) {
		for k, v := range m {
			vals := flattenValue(v)
			c.set(parent, k, vals, "")
			switch v := v.(type) {
			case map[string]any:
				walk(v, k)
			case []any:
				for _, e := range v {
					if o, ok := e.(map[string]any); ok {
						walk(o, "")
					}
				}
			}
		}
	}
	walk(m, "")
	return c
}

// set records one setting by its key and its parent's key; vitest globs
// are joined to prefix (the root and test.dir around them).
func (c *jsConfig) set(parent, key string, vals []string, prefix string) {
	joined := func() []string {
		var out []string
		for _, v := range vals {
			neg := strings.HasPrefix(v, "!")
			v = strings.TrimPrefix(strings.TrimPrefix(v, "!"), "./")
			if prefix != "" && !strings.HasPrefix(v, "**/") {
				v = path.Join(prefix, v)
			}
			if neg {
				v = "!" + v
			}
			out = append(out, v)
		}
		return out
	}
	switch key {
	case "include":
		if parent == "test" {
			c.include = append(c.include, joined()...)
		}
	case "includeSource":
		if parent == "test" {
			c.includeSource = append(c.includeSource, joined()...)
		}
	case "exclude":
		if parent == "test" {
			c.exclude = append(c.exclude, joined()...)
		}
	case "testMatch":
		c.testMatch = append(c.testMatch, vals...)
	case "testRegex":
		c.testRegex = append(c.testRegex, vals...)
	case "testPathIgnorePatterns":
		c.ignore = append(c.ignore, vals...)
	case "spec":
		c.spec = append(c.spec, vals...)
	case "extension":
		c.extension = append(c.extension, vals...)
	case "recursive":
		c.recursive = len(vals) == 1 && vals[0] == "true"
	}
}

// collectionKeys are the settings whose values must be literals for the
// configuration to be understood.
var collectionKeys = map[string]bool{"include": true, "includeSource": true, "exclude": true, "dir": true, "root": true,
	"testMatch": true, "testRegex": true, "testPathIgnorePatterns": true, "spec": true, "extension": true, "recursive": true,
	"projects": true, "workspace": true, "roots": true}

type configReader struct {
	src    []byte
	cfg    *jsConfig
	decls  map[string]*node // top-level const/let/var initialisers by name
	prefix string           // root and test.dir of the object being read
}

// walk visits the pairs of every object, with the keys of the objects
// around them (arrays and calls are transparent).
func (r *configReader) walk(n *node, keys []string) {
	parent := ""
	if len(keys) > 0 {
		parent = keys[len(keys)-1]
	}
	switch n.kind {
	case "pair":
		k, v := n.child("key"), n.child("value")
		if k == nil || v == nil {
			return
		}
		key := keyName(k, r.src)
		if k.kind == "computed_property_name" {
			r.cfg.doubtf("a computed key %s", clip(k.text(r.src), 40))
		}
		if key == "files" || key == "pattern" && parent == "files" {
			r.karmaFiles(key, v)
		}
		if collectionKeys[key] && (parent == "test" || parent == "" || !vitestOnly(key)) {
			vals, ok := r.literalValues(v)
			if !ok && key != "projects" && key != "workspace" {
				r.cfg.doubtf("%s is computed (%s)", key, clip(v.text(r.src), 60))
			}
			r.cfg.set(parent, key, vals, r.prefix)
		}
		r.walk(v, append(keys, key))
		return
	case "object":
		// root (vite's, or a project's test.root) and test.dir move the
		// globs of the object below them.
		saved := r.prefix
		defer func() { r.prefix = saved }()
		for _, c := range n.children {
			if c.kind != "pair" || c.child("key") == nil || c.child("value") == nil {
				continue
			}
			key := keyName(c.child("key"), r.src)
			if key == "root" || key == "dir" && parent == "test" {
				if vals, ok := r.literalValues(c.child("value")); ok && len(vals) == 1 {
					r.prefix = strings.TrimPrefix(path.Join(r.prefix, vals[0]), "./")
					if r.prefix == "." {
						r.prefix = ""
					}
				}
			}
		}
	case "array":
		// Projects named by values imported from other files hold
		// settings this file does not show.
		if parent == "" || parent == "projects" || parent == "workspace" {
			for _, e := range n.namedChildren() {
				if e.kind == "identifier" && r.decls[e.text(r.src)] == nil || e.kind == "call_expression" && !definesConfig(jsCallName(e, r.src)) {
					r.cfg.doubtf("projects include %s, defined elsewhere", clip(e.text(r.src), 40))
				}
			}
		}
	case "shorthand_property_identifier":
		if name := n.text(r.src); collectionKeys[name] || name == "test" {
			r.cfg.doubtf("%s is taken from a variable", name)
		}
	case "spread_element":
		if parent == "" || parent == "test" || parent == "projects" || parent == "workspace" || collectionKeys[parent] {
			r.cfg.doubtf("settings are spread from %s", clip(n.text(r.src), 40))
		}
	case "identifier":
		// A config object or array built elsewhere in the file is read
		// where it is used.
		if d := r.decls[n.text(r.src)]; d != nil && (parent == "" || parent == "test" || parent == "projects" || parent == "workspace") && n.parent != nil && n.parent.kind != "variable_declarator" {
			delete(r.decls, n.text(r.src)) // once: no cycles
			r.walk(d, keys)
		}
	}
	for _, c := range n.children {
		r.walk(c, keys)
	}
}

// karmaFiles records the string entries of karma's files array and the
// pattern of its object entries.
func (r *configReader) karmaFiles(key string, v *node) {
	if key == "pattern" {
		if vals, ok := r.literalValues(v); ok {
			r.cfg.karmaFiles = append(r.cfg.karmaFiles, vals...)
		} else {
			r.cfg.karmaDoubt = true
		}
		return
	}
	if v.kind != "array" {
		r.cfg.karmaDoubt = true
		return
	}
	for _, e := range v.namedChildren() {
		switch e.kind {
		case "string":
			r.cfg.karmaFiles = append(r.cfg.karmaFiles, jsString(e, r.src))
		case "object":
		default:
			r.cfg.karmaDoubt = true
		}
	}
}

func jsCallName(n *node, src []byte) string {
	if f := n.child("function"); f != nil {
		return f.text(src)
	}
	return ""
}

func vitestOnly(key string) bool {
	switch key {
	case "include", "includeSource", "exclude", "dir":
		return true
	}
	return false
}

// literalValues returns the strings, regexes and booleans of v, and
// whether v is made of literals only.
func (r *configReader) literalValues(v *node) ([]string, bool) {
	switch v.kind {
	case "string":
		return []string{jsString(v, r.src)}, true
	case "template_string":
		ok := v.firstOf("template_substitution") == nil
		return []string{stringValue(v, r.src)}, ok
	case "regex":
		if p := v.child("pattern"); p != nil {
			return []string{p.text(r.src)}, true
		}
		return []string{v.text(r.src)}, true
	case "true", "false", "number":
		return []string{v.text(r.src)}, true
	case "array":
		var out []string
		ok := true
		for _, e := range v.namedChildren() {
			vals, eok := r.literalValues(e)
			if e.kind == "object" {
				continue // a project: its pairs are read by walk
			}
			out = append(out, vals...)
			ok = ok && eok
		}
		return out, ok
	case "parenthesized_expression", "as_expression", "satisfies_expression":
		if named := v.namedChildren(); len(named) > 0 {
			return r.literalValues(named[0])
		}
	case "identifier":
		if d := r.decls[v.text(r.src)]; d != nil {
			return r.literalValues(d)
		}
	}
	return literals(v, r.src), false
}

// exportedValue returns the expression a module exports as its default
// (export default X, module.exports = X), nil when none.
func exportedValue(root *node, src []byte) *node {
	var out *node
	root.walk(func(n *node) bool {
		if out != nil {
			return false
		}
		switch n.kind {
		case "export_statement":
			if v := n.child("value"); v != nil {
				out = v
			} else if d := n.child("declaration"); d != nil && strings.Contains(n.text(src), "default") {
				out = d
			}
			return false
		case "assignment_expression":
			if l := n.child("left"); l != nil && (l.text(src) == "module.exports" || l.text(src) == "exports.default") {
				out = n.child("right")
			}
			return false
		}
		return true
	})
	return out
}

// unwrap follows an exported expression to the object or array it stands
// for: through defineConfig(...), parentheses, as/satisfies casts and
// top-level constants; nil when it is computed.
func (r *configReader) unwrap(n *node) *node {
	for depth := 0; n != nil && depth < 8; depth++ {
		switch n.kind {
		case "object", "array":
			return n
		case "parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression":
			named := n.namedChildren()
			if len(named) == 0 {
				return nil
			}
			n = named[0]
		case "identifier":
			n = r.decls[n.text(r.src)]
		case "call_expression":
			f := n.child("function")
			args := n.child("arguments")
			if f == nil || args == nil || !definesConfig(f.text(r.src)) {
				return nil
			}
			named := args.namedChildren()
			if len(named) != 1 {
				return nil
			}
			n = named[0]
		default:
			return nil
		}
	}
	return nil
}

// definesConfig reports whether a function only returns its argument
// (vitest's and vite's defineConfig and friends).
func definesConfig(name string) bool {
	switch name {
	case "defineConfig", "defineProject", "defineWorkspace", "defineVitestConfig", "defineJestConfig":
		return true
	}
	return false
}

// topDecls maps the names of top-level const/let/var declarations to
// their initialisers.
func topDecls(root *node, src []byte) map[string]*node {
	out := map[string]*node{}
	for _, st := range root.children {
		if st.kind == "export_statement" {
			if d := st.child("declaration"); d != nil {
				st = d
			}
		}
		if st.kind != "lexical_declaration" && st.kind != "variable_declaration" {
			continue
		}
		for _, d := range st.children {
			if d.kind != "variable_declarator" {
				continue
			}
			name, val := d.child("name"), d.child("value")
			if name != nil && val != nil && name.kind == "identifier" {
				out[name.text(src)] = val
			}
		}
	}
	return out
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// stripJSONComments removes // and /* */ comments outside strings, as
// .mocharc.jsonc and tsconfig-style files allow.
func stripJSONComments(b []byte) []byte {
	var out []byte
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr:
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			i += 2
			for i+1 < len(b) && !(b[i] == '*' && b[i+1] == '/') {
				i++
			}
			i++
		default:
			out = append(out, c)
		}
	}
	return out
}

// mochaRunner: ./test/*.{js,cjs,mjs} unless a spec (in the script, in
// .mocharc.* or package.json "mocha") says otherwise; --recursive descends.
func (d *Detector) mochaRunner(dir string, pkg *packageJSON, calls []scriptCall) *jsRunner {
	run := &jsRunner{name: "mocha"}
	var cfg jsConfig
	file := configFlag(calls)
	if file == "" {
		file = d.anyAt(dir, mochaConfigNames)
	}
	switch {
	case file != "":
		if b := d.readAt(dir, file); b != nil {
			cfg = readJSConfig(file, b)
		} else {
			cfg.doubt = "the config it names is not there"
		}
	case pkg.Mocha != nil:
		file = "package.json"
		cfg = jsonRunnerConfig(pkg.Mocha)
	}
	spec := cfg.spec
	recursive := cfg.recursive
	exts := cfg.extension
	for _, c := range calls {
		for i := 0; i < len(c.args); i++ {
			a := c.args[i]
			switch {
			case a == "--recursive":
				recursive = true
			case (a == "--extension") && i+1 < len(c.args):
				exts = append(exts, c.args[i+1])
				i++
			case mochaValueFlag[a]:
				i++
			case strings.HasPrefix(a, "-"):
			default:
				spec = append(spec, a)
			}
		}
	}
	if len(exts) == 0 {
		exts = []string{"js", "cjs", "mjs"}
	}
	if cfg.doubt != "" {
		d.doubt(path.Join(dir, file), "mocha", cfg.doubt)
		spec = append(spec, "./test")
		recursive = true
	}
	if len(spec) == 0 {
		spec = []string{"./test"}
	}
	extGlob := "*.{" + strings.Join(exts, ",") + "}"
	for _, s := range spec {
		s = strings.TrimPrefix(path.Clean(s), "./")
		switch {
		case strings.ContainsAny(s, "*?{[") || langOf(s) != "":
			run.globs = append(run.globs, compileGlobs([]string{s}, "")...)
		case recursive:
			run.globs = append(run.globs, path.Join(s, "**", extGlob))
		default:
			run.globs = append(run.globs, path.Join(s, extGlob))
		}
	}
	return run
}

// mochaValueFlag are mocha's options that take a value.
var mochaValueFlag = map[string]bool{"--require": true, "-r": true, "--reporter": true, "-R": true, "--timeout": true, "-t": true,
	"--ui": true, "-u": true, "--grep": true, "-g": true, "--fgrep": true, "-f": true, "--config": true, "--package": true,
	"--ignore": true, "--exclude": true, "--file": true, "--slow": true, "-s": true, "--reporter-option": true, "--reporter-options": true,
	"-O": true, "--jobs": true, "-j": true, "--retries": true, "--node-option": true, "-n": true, "--loader": true, "--import": true}

// keyName returns an object key's name: an identifier as written, a
// string without its quotes.
func keyName(k *node, src []byte) string {
	if k.kind == "string" {
		return strings.Trim(k.text(src), "'\"`")
	}
	return k.text(src)
}

// jsString returns a JavaScript string literal's value, escapes decoded.
func jsString(n *node, src []byte) string {
	var b strings.Builder
	for _, c := range n.children {
		switch c.kind {
		case "string_fragment":
			b.WriteString(c.text(src))
		case "escape_sequence":
			e := c.text(src)
			switch e {
			case `\n`:
				b.WriteByte('\n')
			case `\t`:
				b.WriteByte('\t')
			default:
				b.WriteString(strings.TrimPrefix(e, `\`))
			}
		}
	}
	return b.String()
}
