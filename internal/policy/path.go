package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// pathInput is the union of the path fields the file tools take.
type pathInput struct {
	Path     string `json:"path"`
	FilePath string `json:"file_path"`
	Pattern  string `json:"pattern"`
}

// decidePath rules on Read, Edit, Write, Glob and Grep.
func (p *Policy) decidePath(tool string, input json.RawMessage) outcome {
	var in pathInput
	_ = json.Unmarshal(input, &in)
	raw := in.FilePath
	if raw == "" {
		raw = in.Path
	}
	if tool == "Glob" {
		raw = filepath.Join(raw, staticPrefix(in.Pattern))
	}
	write := tool == "Edit" || tool == "Write"
	if raw == "" && write {
		return outcome{verdict: Ask, reason: strings.ToLower(tool) + " call without a path", rule: "mode:" + p.mode, subject: "(no path)"}
	}
	if raw == "" {
		raw = "."
	}
	if strings.ContainsRune(raw, 0) {
		return outcome{verdict: Deny, reason: "path contains a NUL byte", rule: "builtin:nul", subject: raw}
	}
	cands := p.candidates(raw)
	subject := raw
	if rel, ok := p.rel(cands[0]); ok {
		subject = rel
	}
	suggest := fmt.Sprintf("%s(%s)", tool, subject)
	if write {
		for _, c := range cands {
			if what := p.protectedPath(c); what != "" {
				return outcome{verdict: Deny, reason: fmt.Sprintf("%s refused: %q is inside %s, which the model may not edit", strings.ToLower(tool), raw, what), rule: "builtin:" + what, subject: subject}
			}
		}
	}
	if r, ok := firstMatch(p.deny, tool, func(r rule) bool { return p.matchAny(r, cands) }); ok {
		return outcome{verdict: Deny, reason: fmt.Sprintf("%s refused: %q matches deny rule %s", strings.ToLower(tool), raw, r.text), rule: r.text, subject: subject}
	}
	if write && p.mode == ModePlan {
		return outcome{verdict: Deny, reason: "plan mode: files are not changed", rule: "mode:plan", subject: subject}
	}
	if r, ok := firstMatch(p.ask, tool, func(r rule) bool { return p.matchAny(r, cands) }); ok {
		return outcome{verdict: Ask, reason: fmt.Sprintf("%q needs approval (rule %s)", subject, r.text), rule: r.text, subject: subject, suggest: suggest}
	}
	if p.mode == ModeBypass {
		return outcome{verdict: Allow, reason: "bypass mode", rule: "mode:bypass", subject: subject}
	}
	if r, ok := firstMatch(p.allow, tool, func(r rule) bool { return p.matchAll(r, cands) }); ok {
		return outcome{verdict: Allow, reason: "allowed by " + r.text, rule: r.text, explicit: true, subject: subject}
	}
	inside := true
	for _, c := range cands {
		if _, ok := p.rel(c); !ok {
			inside = false
		}
	}
	switch {
	case !write && inside:
		return outcome{verdict: Allow, reason: "reads inside the project are allowed", rule: "mode:" + p.mode, subject: subject, suggest: suggest}
	case write && inside && p.mode == ModeAcceptEdits:
		return outcome{verdict: Allow, reason: "accept-edits mode allows edits inside the project", rule: "mode:accept-edits", subject: subject, suggest: suggest}
	case !inside:
		return outcome{verdict: Ask, reason: fmt.Sprintf("%q is outside the project", raw), rule: "mode:" + p.mode, subject: raw, suggest: fmt.Sprintf("%s(%s)", tool, cands[len(cands)-1])}
	}
	return outcome{verdict: Ask, reason: fmt.Sprintf("%s of %q needs approval", strings.ToLower(tool), subject), rule: "mode:" + p.mode, subject: subject, suggest: suggest}
}

// PathDenied reports whether a deny rule of tool covers an absolute path,
// for tools that walk folders (grep, glob) and must skip such files.
func (p *Policy) PathDenied(tool, abs string) bool {
	canon := toolNames[strings.ToLower(tool)]
	_, ok := firstMatch(p.deny, canon, func(r rule) bool { return p.matchAny(r, p.candidates(abs)) })
	return ok
}

// candidates are the places a path may designate: cleaned lexically then
// resolved, and resolved as the kernel would walk it (symlink before "..").
func (p *Policy) candidates(raw string) []string {
	// "~" is not expanded: the file tools take it literally, as a name.
	joined := raw
	if !filepath.IsAbs(raw) {
		joined = p.rootLex + string(filepath.Separator) + raw
	}
	lex := resolvePath(filepath.Clean(joined))
	kern := resolvePath(joined)
	if kern == lex {
		return []string{lex}
	}
	return []string{lex, kern}
}

// resolvePath resolves symlinks the way the kernel walks a path,
// component by component, dangling links included; the part that does not
// exist yet is appended as written.
func resolvePath(path string) string {
	return resolveDepth(path, 0)
}

func resolveDepth(path string, depth int) string {
	if depth > 40 {
		return path
	}
	comps := strings.Split(strings.TrimPrefix(path, "/"), "/")
	cur := "/"
	for i, c := range comps {
		if c == "" || c == "." {
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, comps[i+1:]...)...)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(next)
			if err != nil {
				return filepath.Join(append([]string{next}, comps[i+1:]...)...)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(cur, target)
			}
			return resolveDepth(target+"/"+strings.Join(comps[i+1:], "/"), depth+1)
		}
		cur = next
	}
	return cur
}

// rel returns abs relative to the project root when it is inside it.
func (p *Policy) rel(abs string) (string, bool) {
	r, err := filepath.Rel(p.root, abs)
	if p.foldCase {
		r, err = filepath.Rel(strings.ToLower(p.root), strings.ToLower(abs))
	}
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// protectedPath names the protected location holding abs, or "".
func (p *Policy) protectedPath(abs string) string {
	under := func(dir string) bool {
		a, d := abs, dir
		if p.foldCase {
			a, d = strings.ToLower(a), strings.ToLower(d)
		}
		return a == d || strings.HasPrefix(a, d+string(filepath.Separator))
	}
	switch {
	case under(filepath.Join(p.root, ".chanto")):
		return ".chanto/"
	case under(filepath.Join(p.root, ".git", "hooks")):
		return ".git/hooks"
	case under(filepath.Join(p.root, ".git", "config")):
		return ".git/config"
	case p.chantoHome != "" && under(p.chantoHome):
		return "chanto's home folder"
	}
	if rel, ok := p.rel(abs); ok && protectedWord(rel) != "" {
		return protectedWord(rel)
	}
	return ""
}

func (p *Policy) matchAny(r rule, cands []string) bool {
	for _, c := range cands {
		if p.matchPath(r, c) {
			return true
		}
	}
	return false
}

func (p *Policy) matchAll(r rule, cands []string) bool {
	for _, c := range cands {
		if !p.matchPath(r, c) {
			return false
		}
	}
	return true
}

// matchPath applies a path rule to a resolved absolute path. "/x" is
// absolute, "~/x" is in the home folder, "a/b" is relative to the project,
// and a name without a slash matches at any depth; a pattern naming a
// folder covers everything under it.
func (p *Policy) matchPath(r rule, abs string) bool {
	if r.pattern == "" {
		return true
	}
	pat := expandHome(r.pattern, p.home)
	pat = strings.TrimPrefix(pat, "./")
	var target string
	switch {
	case filepath.IsAbs(pat):
		target = filepath.ToSlash(abs)
		pat = filepath.ToSlash(resolvePath(staticDir(pat))) + pat[len(staticDir(pat)):]
	case !strings.Contains(pat, "/"):
		pat = "**/" + pat
		if rel, ok := p.rel(abs); ok {
			target = rel
		} else {
			target = strings.TrimPrefix(filepath.ToSlash(abs), "/")
		}
	default:
		rel, ok := p.rel(abs)
		if !ok {
			return false
		}
		target = rel
	}
	if p.foldCase {
		pat, target = strings.ToLower(pat), strings.ToLower(target)
	}
	if ok, _ := doublestar.Match(pat, target); ok {
		return true
	}
	ok, _ := doublestar.Match(strings.TrimSuffix(pat, "/")+"/**", target)
	return ok
}

func expandHome(s, home string) string {
	if home != "" && (s == "~" || strings.HasPrefix(s, "~/")) {
		return filepath.Join(home, s[1:])
	}
	return s
}

// staticPrefix is the part of a glob pattern before its first wildcard
// component.
func staticPrefix(pattern string) string {
	var keep []string
	for _, c := range strings.Split(filepath.ToSlash(pattern), "/") {
		if strings.ContainsAny(c, "*?[{") {
			break
		}
		keep = append(keep, c)
	}
	return strings.Join(keep, "/")
}

// staticDir is the longest wildcard-free folder prefix of an absolute pattern.
func staticDir(pat string) string {
	s := staticPrefix(pat)
	if s == pat {
		return pat
	}
	if i := strings.LastIndexByte(s, '/'); i > 0 {
		return s[:i]
	}
	return "/"
}

// caseInsensitive reports whether the file system under dir folds case.
func caseInsensitive(dir string) bool {
	base := filepath.Base(dir)
	swapped := strings.ToUpper(base)
	if swapped == base {
		swapped = strings.ToLower(base)
	}
	if swapped == base {
		return false
	}
	a, err1 := os.Stat(dir)
	b, err2 := os.Stat(filepath.Join(filepath.Dir(dir), swapped))
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}
