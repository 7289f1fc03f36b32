package hookinstall

import (
	"bytes"
	"encoding/json"
)

// This file changes a JSON text in place: a child appended to an object
// or a list, or one removed, touching no other byte. Each change returns
// a new text; callers parse it again before the next (the files are
// small).

// child is the span of one member or element: from its key (or its
// value) to the end of its value.
type child struct{ start, end int }

func children(c *value) []child {
	var out []child
	for _, m := range c.members {
		out = append(out, child{m.start, m.val.end})
	}
	for _, e := range c.elems {
		out = append(out, child{e.start, e.end})
	}
	return out
}

// lineIndent is the white space that starts the line holding pos.
func lineIndent(src []byte, pos int) string {
	ls := bytes.LastIndexByte(src[:pos], '\n') + 1
	i := ls
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return string(src[ls:i])
}

// startsLine reports whether only white space precedes pos on its line.
func startsLine(src []byte, pos int) bool {
	ls := bytes.LastIndexByte(src[:pos], '\n') + 1
	return len(bytes.Trim(src[ls:pos], " \t")) == 0
}

// indentUnit is the file's indentation step: the first child written on
// its own line, less its container's indentation; two spaces if none is.
func indentUnit(src []byte, v *value) string {
	var walk func(*value) string
	walk = func(c *value) string {
		kids := children(c)
		if len(kids) > 0 && startsLine(src, kids[0].start) {
			in, out := lineIndent(src, kids[0].start), lineIndent(src, c.start)
			if len(in) > len(out) && in[:len(out)] == out {
				return in[len(out):]
			}
		}
		for _, m := range c.members {
			if u := walk(m.val); u != "" {
				return u
			}
		}
		for _, e := range c.elems {
			if u := walk(e); u != "" {
				return u
			}
		}
		return ""
	}
	if u := walk(v); u != "" {
		return u
	}
	return "  "
}

// render writes x as JSON for a place indented by indent ("" and compact
// for a one-line container). HTML characters stay as they are: a command
// with & in it reads as written.
func render(x any, indent, unit string, compact bool) []byte {
	if g, ok := x.(group); ok {
		return renderGroup(g, indent, unit, compact)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if !compact {
		enc.SetIndent(indent, unit)
	}
	if err := enc.Encode(x); err != nil {
		panic(err) // the values are chanto's own structs
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// renderGroup writes a hook group with its handlers one to a line, the
// way the agents' own documentation writes them:
//
//	{
//	  "matcher": "Bash",
//	  "hooks": [{"type": "command", "command": "chanto hook claude", "timeout": 600}]
//	}
func renderGroup(g group, indent, unit string, compact bool) []byte {
	sep, comma := ": ", ", "
	if compact {
		sep, comma = ":", ","
	}
	var hs [][]byte
	for _, h := range g.Hooks {
		fields := [][]byte{field("type", h.Type, sep)}
		if h.Name != "" {
			fields = append(fields, field("name", h.Name, sep))
		}
		fields = append(fields, field("command", h.Command, sep))
		if h.Timeout > 0 {
			fields = append(fields, field("timeout", h.Timeout, sep))
		}
		hs = append(hs, append(append([]byte("{"), bytes.Join(fields, []byte(comma))...), '}'))
	}
	var members [][]byte
	if g.Matcher != "" {
		members = append(members, field("matcher", g.Matcher, sep))
	}
	members = append(members, append(append(append(render("hooks", "", "", true), sep...), '['), append(bytes.Join(hs, []byte(comma)), ']')...))
	if compact {
		return append(append([]byte("{"), bytes.Join(members, []byte(","))...), '}')
	}
	in := "\n" + indent + unit
	return append(append([]byte("{"+in), bytes.Join(members, []byte(","+in))...), "\n"+indent+"}"...)
}

func field(key string, v any, sep string) []byte {
	return append(append(render(key, "", "", true), sep...), render(v, "", "", true)...)
}

func splice(src []byte, start, end int, text []byte) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}

// appendChild adds a last child to container c of document root. key is
// the member's key for an object ("" for a list). A container written on
// several lines gets the child on a line of its own, indented like its
// siblings; a one-line container gets it inline.
func appendChild(src []byte, root, c *value, key string, x any) []byte {
	unit := indentUnit(src, root)
	kids := children(c)
	item := func(indent string, compact bool) []byte {
		body := render(x, indent, unit, compact)
		if c.kind != '{' {
			return body
		}
		sep := ": "
		if compact {
			sep = ":"
		}
		return append(append(render(key, "", "", true), sep...), body...)
	}
	multiline := bytes.IndexByte(src[c.start:c.end], '\n') >= 0
	if len(kids) > 0 {
		last := kids[len(kids)-1]
		if !multiline {
			sep := ","
			if bytes.Contains(src[c.start:c.end], []byte(", ")) {
				sep = ", "
			}
			return splice(src, last.end, last.end, append([]byte(sep), item("", true)...))
		}
		indent := lineIndent(src, kids[0].start)
		text := append([]byte("\n"+indent), item(indent, false)...)
		// A comment closing the last child's line stays on that line:
		// the comma goes before it, the new child after it.
		if eol := lineCommentEnd(src, last.end); eol > last.end {
			src = splice(src, eol, eol, text)
			return splice(src, last.end, last.end, []byte(","))
		}
		return splice(src, last.end, last.end, append([]byte(","), text...))
	}
	// Empty: lay it out like the document, one line only if all of it is.
	closing := c.end - 1
	if bytes.IndexByte(src[root.start:root.end], '\n') < 0 {
		return splice(src, closing, closing, item("", true))
	}
	outer := lineIndent(src, c.start)
	inner := outer + unit
	text := append(append([]byte("\n"+inner), item(inner, false)...), "\n"+outer...)
	if len(bytes.TrimSpace(src[c.start+1:closing])) == 0 {
		return splice(src, c.start+1, closing, text)
	}
	return splice(src, closing, closing, text) // keep what the user wrote inside
}

// removeChild removes the i-th child of c with the comma that joined it,
// so removing what appendChild added gives back the same bytes.
func removeChild(src []byte, c *value, i int) []byte {
	kids := children(c)
	k := kids[i]
	switch {
	case len(kids) == 1:
		src = splice(src, k.start, k.end, nil)
		closing := c.end - (k.end - k.start) - 1
		if len(bytes.TrimSpace(src[c.start+1:closing])) == 0 {
			src = splice(src, c.start+1, closing, nil)
		}
		return src
	case i > 0:
		// The comma after the previous child, and the child with the line
		// it stands on: a comment after that comma (the previous line's
		// own) stays.
		comma := commaAfter(src, kids[i-1].end)
		if nl := bytes.LastIndexByte(src[:k.start], '\n'); startsLine(src, k.start) && nl > comma {
			src = splice(src, nl, k.end, nil)
			return splice(src, comma, comma+1, nil)
		}
		return splice(src, comma, k.end, nil)
	default:
		return splice(src, k.start, kids[1].start, nil)
	}
}

// commaAfter is where the comma after pos is, past white space and
// comments.
func commaAfter(src []byte, pos int) int {
	p := &jsonParser{src: src, pos: pos, comments: true}
	for {
		_ = p.space()
		if p.pos >= len(src) || src[p.pos] == ',' {
			return p.pos
		}
		p.pos++
	}
}

// lineCommentEnd is the end of the line after pos when only white space
// and a comment follow pos on it; pos itself otherwise.
func lineCommentEnd(src []byte, pos int) int {
	i := pos
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	switch {
	case bytes.HasPrefix(src[i:], []byte("//")):
		if nl := bytes.IndexByte(src[i:], '\n'); nl >= 0 {
			return i + nl
		}
		return len(src)
	case bytes.HasPrefix(src[i:], []byte("/*")):
		end := bytes.Index(src[i+2:], []byte("*/"))
		if end < 0 {
			return pos
		}
		j := i + 2 + end + 2
		if k := lineCommentEnd(src, j); k > j || j == len(src) || src[j] == '\n' || src[j] == '\r' {
			return max(k, j)
		}
	}
	return pos
}
