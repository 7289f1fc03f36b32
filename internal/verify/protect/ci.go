package protect

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v4"
)

// testRun is one test command found in a harness file (a CI definition, a
// Makefile recipe, a tox or nox session, a package.json script).
type testRun struct {
	where  string   // the job, step, target or script it is in
	line   int      // 1-based line in the file
	tool   string   // go, pytest, jest, cargo, …
	args   []string // the words after the tool
	masked string   // why its failure cannot fail the run, "" if it can
	text   string   // the command as written, for the report
}

// ciKind names the kind of CI definition or task file p is, "" for none.
func ciKind(p string) string {
	base := path.Base(p)
	dir := path.Dir(p)
	switch {
	case path.Base(dir) == "workflows" && path.Base(path.Dir(dir)) == ".github" && (strings.HasSuffix(base, ".yml") || strings.HasSuffix(base, ".yaml")):
		return "yaml"
	case base == ".gitlab-ci.yml" || base == "azure-pipelines.yml" || base == "azure-pipelines.yaml" || base == "bitbucket-pipelines.yml":
		return "yaml"
	case base == "config.yml" && path.Base(dir) == ".circleci":
		return "yaml"
	case base == "Jenkinsfile":
		return "jenkins"
	case base == "noxfile.py":
		return "nox"
	case base == "justfile" || base == "Justfile" || base == ".justfile":
		return "just"
	}
	return ""
}

// testRuns returns the test commands of a harness file of the given kind;
// ok is false when the file does not parse (then nothing is compared: a
// broken CI file runs no test, and the check reports it).
func testRuns(kind string, src []byte) ([]testRun, bool) {
	var scripts []script
	switch kind {
	case "yaml":
		var doc yaml.Node
		if yaml.Unmarshal(src, &doc) != nil {
			return nil, false
		}
		yamlScripts(&doc, "", "", &scripts)
	case "jenkins":
		scripts = jenkinsScripts(src)
	case "nox":
		return noxRuns(src), true
	case "just":
		scripts = recipeScripts(src, false)
	case "make":
		scripts = recipeScripts(src, true)
	case "tox":
		scripts = toxScripts(src)
	case "package":
		if !json.Valid(src) {
			return nil, false
		}
		scripts = packageScripts(src)
	}
	var out []testRun
	for _, s := range scripts {
		out = append(out, s.testRuns()...)
	}
	return out, true
}

// script is a shell script found in a harness file.
type script struct {
	where  string
	line   int // line of the script's first line in the file
	text   string
	masked string // set by the file around it (continue-on-error, a - prefix)
}

func (s script) testRuns() []testRun {
	cmds, err := parseShell(s.text)
	if err != nil {
		return nil
	}
	var out []testRun
	lines := strings.Split(s.text, "\n")
	for _, c := range cmds {
		tool, args, ok := testCommand(c.args)
		if !ok {
			continue
		}
		m := s.masked
		if m == "" {
			m = c.masked
		}
		text := ""
		if c.line-1 < len(lines) {
			text = strings.TrimSpace(lines[c.line-1])
		}
		out = append(out, testRun{where: s.where, line: s.line + c.line - 1, tool: tool, args: args, masked: m, text: text})
	}
	return out
}

// yamlScripts collects the shell scripts of a CI definition: the values of
// run, script, command and the like, with continue-on-error (GitHub),
// allow_failure (GitLab) and continueOnError (Azure) marking what is in
// the mapping that carries them.
func yamlScripts(n *yaml.Node, where, masked string, out *[]script) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			yamlScripts(c, where, masked, out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			w := fmt.Sprintf("%s[%d]", where, i)
			if name := yamlValue(c, "name"); name != "" {
				w = where + "[" + name + "]"
			}
			yamlScripts(c, w, masked, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch k.Value {
			case "continue-on-error", "allow_failure", "continueOnError", "ignore_failure":
				if v.Value == "true" || v.Kind == yaml.MappingNode {
					masked = k.Value + ": " + yamlText(v)
				}
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if isScriptKey(k.Value) {
				addYAMLScript(v, where, masked, out)
				continue
			}
			yamlScripts(v, joinWhere(where, k.Value), masked, out)
		}
	}
}

// yamlValue returns the scalar value of key in mapping n, "" for none.
func yamlValue(n *yaml.Node, key string) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return ""
}

func joinWhere(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func isScriptKey(k string) bool {
	switch k {
	case "run", "script", "before_script", "after_script", "bash", "sh", "command", "commands", "pwsh", "powershell":
		return true
	}
	return false
}

func addYAMLScript(v *yaml.Node, where, masked string, out *[]script) {
	switch v.Kind {
	case yaml.ScalarNode:
		line := v.Line
		if v.Style == yaml.LiteralStyle || v.Style == yaml.FoldedStyle {
			line++ // the text starts below the | or >
		}
		*out = append(*out, script{where: where, line: line, text: ciExpr.ReplaceAllString(v.Value, "CI_EXPR"), masked: masked})
	case yaml.SequenceNode:
		for _, e := range v.Content {
			addYAMLScript(e, where, masked, out)
		}
	case yaml.MappingNode:
		// CircleCI's run: {command: ...}
		yamlScripts(v, where, masked, out)
	}
}

func yamlText(v *yaml.Node) string {
	if v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return "…"
}

// ciExpr is a GitHub or Azure template expression, ${{ … }}, replaced by
// a placeholder word before the shell parser reads the script.
var ciExpr = regexp.MustCompile(`\$\{\{.*?\}\}`)

// recipeScripts returns the recipe lines of a Makefile (tab-indented) or
// justfile (indented), by target; a - prefix ignores the line's failure.
func recipeScripts(src []byte, make bool) []script {
	var out []script
	target := ""
	lines := strings.Split(string(normalizeNewlines(src)), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		start := i + 1
		indented := strings.HasPrefix(line, "\t") || !make && strings.HasPrefix(line, " ")
		if !indented {
			t := strings.TrimSpace(line)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			if j := strings.Index(t, ":"); j > 0 && !strings.HasPrefix(t[j:], ":=") && !strings.Contains(t[:j], "=") {
				target = strings.Fields(t[:j])[0]
				if target == ".IGNORE" {
					out = append(out, script{where: ".IGNORE", line: start, text: "true", masked: ".IGNORE"})
				}
			} else {
				target = ""
			}
			continue
		}
		if target == "" {
			continue
		}
		text := strings.TrimSpace(line)
		for strings.HasSuffix(text, "\\") && i+1 < len(lines) {
			i++
			text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(lines[i])
		}
		masked := ""
		for len(text) > 0 && strings.ContainsRune("@-+", rune(text[0])) {
			if text[0] == '-' {
				masked = "- prefix on the recipe line"
			}
			text = strings.TrimSpace(text[1:])
		}
		text = strings.ReplaceAll(text, "$$", "$")
		out = append(out, script{where: target, line: start, text: text, masked: masked})
	}
	return out
}

// toxScripts returns the commands of each [testenv*] section; tox ignores
// the exit code of a command prefixed with -.
func toxScripts(src []byte) []script {
	var out []script
	section := ""
	inCommands := false
	for i, raw := range strings.Split(string(normalizeNewlines(src)), "\n") {
		t := strings.TrimSpace(raw)
		switch {
		case strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]"):
			section, inCommands = t[1:len(t)-1], false
			continue
		case t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";"):
			continue
		}
		if !strings.HasPrefix(section, "testenv") {
			continue
		}
		cont := raw[0] == ' ' || raw[0] == '\t'
		if !cont {
			inCommands = false
			k, v, ok := strings.Cut(t, "=")
			if !ok || strings.TrimSpace(k) != "commands" {
				continue
			}
			inCommands = true
			t = strings.TrimSpace(v)
			if t == "" {
				continue
			}
		}
		if !inCommands {
			continue
		}
		masked := ""
		if strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") {
			masked, t = "- prefix on the tox command", strings.TrimSpace(t[1:])
		}
		if j := strings.Index(t, ": "); j > 0 && !strings.ContainsAny(t[:j], " \"'") {
			t = t[j+2:] // a factor condition: py311: pytest
		}
		out = append(out, script{where: section, line: i + 1, text: t, masked: masked})
	}
	return out
}

// jenkinsScripts returns the sh and bat steps of a Jenkinsfile: the string
// after the step name, or its script: argument. A step inside catchError
// or with returnStatus: true cannot fail the build.
func jenkinsScripts(src []byte) []script {
	s := string(normalizeNewlines(src))
	var out []script
	catchDepth, depth := -1, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth < catchDepth {
				catchDepth = -1
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '\'' || c == '"':
			_, end := groovyString(s, i)
			i = end - 1
		case isIdentStart(c) && (i == 0 || !isIdent(s[i-1])):
			j := i
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			word := s[i:j]
			if word == "catchError" || word == "warnError" {
				catchDepth = depth + 1
			}
			if word != "sh" && word != "bat" && word != "powershell" {
				i = j - 1
				continue
			}
			call := strings.TrimLeft(s[j:], " \t(")
			start := len(s) - len(call)
			if strings.HasPrefix(call, "script:") {
				call = strings.TrimLeft(call[len("script:"):], " \t")
				start = len(s) - len(call)
			}
			if start >= len(s) || (s[start] != '\'' && s[start] != '"') {
				i = j - 1
				continue
			}
			text, end := groovyString(s, start)
			masked := ""
			if catchDepth >= 0 {
				masked = "inside catchError"
			}
			if rest := s[end:min(len(s), end+200)]; strings.Contains(strings.SplitN(rest, "\n", 2)[0], "returnStatus: true") {
				masked = "returnStatus: true"
			}
			line := strings.Count(s[:start], "\n") + 1
			if strings.HasPrefix(text, "\n") {
				text, line = text[1:], line+1
			}
			out = append(out, script{where: "sh", line: line, text: text, masked: masked})
			i = end - 1
		}
	}
	return out
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// groovyString reads the string literal starting at s[i] (', ", ”' or
// """) and returns its text and the index after it.
func groovyString(s string, i int) (string, int) {
	q := s[i : i+1]
	if strings.HasPrefix(s[i:], strings.Repeat(q, 3)) {
		q = strings.Repeat(q, 3)
	}
	j := i + len(q)
	var b strings.Builder
	for j < len(s) {
		if strings.HasPrefix(s[j:], q) {
			return b.String(), j + len(q)
		}
		if s[j] == '\\' && j+1 < len(s) {
			b.WriteByte(s[j+1])
			j += 2
			continue
		}
		b.WriteByte(s[j])
		j++
	}
	return b.String(), len(s)
}

// noxRuns returns the session.run calls of a noxfile whose arguments are
// literals; success_codes= lets listed failures pass.
func noxRuns(src []byte) []testRun {
	root, _ := parseTS("python", src)
	if root == nil {
		return nil
	}
	var out []testRun
	root.walk(func(n *node) bool {
		if n.kind != "call" {
			return true
		}
		f := n.child("function")
		if f == nil || !strings.HasSuffix(f.text(src), ".run") {
			return true
		}
		var words []string
		masked := ""
		if args := n.child("arguments"); args != nil {
			for _, a := range args.namedChildren() {
				switch a.kind {
				case "string":
					words = append(words, stringValue(a, src))
				case "keyword_argument":
					if k := a.child("name"); k != nil && k.text(src) == "success_codes" {
						masked = "success_codes=" + clip(a.child("value").text(src), 20)
					}
				}
			}
		}
		if tool, rest, ok := testCommand(words); ok {
			out = append(out, testRun{where: enclosingDef(n, src), line: n.line, tool: tool, args: rest, masked: masked, text: clip(n.text(src), 100)})
		}
		return false
	})
	return out
}

func enclosingDef(n *node, src []byte) string {
	for p := n.parent; p != nil; p = p.parent {
		if p.kind == "function_definition" {
			if name := p.child("name"); name != nil {
				return name.text(src)
			}
		}
	}
	return ""
}
