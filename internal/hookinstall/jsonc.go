package hookinstall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// This file reads JSON (and, for gemini-cli, JSON with comments) keeping
// where each value starts and ends, so an install edits the bytes it adds
// and nothing else: the user's formatting, key order, comments and
// unknown keys stay as they were.

// value is one JSON value and its span in the source.
type value struct {
	kind       byte // '{', '[', '"', '0' (number), 't', 'f', 'n'
	start, end int  // the value's bytes are src[start:end]
	members    []member
	elems      []*value
}

// member is one key of an object; start is where its key's quote is.
type member struct {
	key   string
	start int
	val   *value
}

// get is the value of key (the last one, as JSON.parse reads duplicates).
func (v *value) get(key string) *value {
	if v == nil || v.kind != '{' {
		return nil
	}
	for i := len(v.members) - 1; i >= 0; i-- {
		if v.members[i].key == key {
			return v.members[i].val
		}
	}
	return nil
}

// SyntaxError is a file that is not the JSON its agent reads.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

type jsonParser struct {
	src      []byte
	pos      int
	comments bool
}

// parseJSON reads src; comments allows // and /* */ comments.
func parseJSON(src []byte, comments bool) (*value, error) {
	p := &jsonParser{src: src, comments: comments}
	if err := p.space(); err != nil {
		return nil, err
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos < len(src) {
		return nil, p.errorf("unexpected %q after the end of the document", src[p.pos])
	}
	return v, nil
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return &SyntaxError{Line: 1 + bytes.Count(p.src[:min(p.pos, len(p.src))], []byte("\n")), Msg: fmt.Sprintf(format, args...)}
}

// space skips white space and, where allowed, comments.
func (p *jsonParser) space() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && (p.src[p.pos+1] == '/' || p.src[p.pos+1] == '*'):
			if !p.comments {
				return p.errorf("a comment, which this file's JSON does not allow")
			}
			if p.src[p.pos+1] == '/' {
				for p.pos < len(p.src) && p.src[p.pos] != '\n' {
					p.pos++
				}
				continue
			}
			end := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if end < 0 {
				return p.errorf("a /* comment that is never closed")
			}
			p.pos += end + 4
		default:
			return nil
		}
	}
	return nil
}

const maxDepth = 200

func (p *jsonParser) value(depth int) (*value, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested too deeply")
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of the file")
	}
	v := &value{start: p.pos}
	switch c := p.src[p.pos]; {
	case c == '{':
		v.kind = '{'
		if err := p.object(v, depth); err != nil {
			return nil, err
		}
	case c == '[':
		v.kind = '['
		if err := p.array(v, depth); err != nil {
			return nil, err
		}
	case c == '"':
		v.kind = '"'
		if _, err := p.str(); err != nil {
			return nil, err
		}
	case c == '-' || (c >= '0' && c <= '9'):
		v.kind = '0'
		for p.pos < len(p.src) && strings.IndexByte("+-0123456789.eE", p.src[p.pos]) >= 0 {
			p.pos++
		}
		var n json.Number
		if json.Unmarshal(p.src[v.start:p.pos], &n) != nil {
			p.pos = v.start
			return nil, p.errorf("a malformed number")
		}
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.src[p.pos:], []byte(lit)) {
				v.kind = lit[0]
				p.pos += len(lit)
				v.end = p.pos
				return v, nil
			}
		}
		return nil, p.errorf("unexpected %q", c)
	}
	v.end = p.pos
	return v, nil
}

func (p *jsonParser) object(v *value, depth int) error {
	p.pos++ // {
	for first := true; ; first = false {
		if err := p.space(); err != nil {
			return err
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			if !first {
				return p.errorf("a comma before }")
			}
			p.pos++
			return nil
		}
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return p.errorf("expected a key in quotes")
		}
		m := member{start: p.pos}
		key, err := p.str()
		if err != nil {
			return err
		}
		m.key = key
		if err := p.space(); err != nil {
			return err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return p.errorf("expected : after the key %q", key)
		}
		p.pos++
		if err := p.space(); err != nil {
			return err
		}
		if m.val, err = p.value(depth + 1); err != nil {
			return err
		}
		v.members = append(v.members, m)
		if err := p.space(); err != nil {
			return err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			p.pos++
			return nil
		}
		return p.errorf("expected , or } after the value of %q", key)
	}
}

func (p *jsonParser) array(v *value, depth int) error {
	p.pos++ // [
	for first := true; ; first = false {
		if err := p.space(); err != nil {
			return err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			if !first {
				return p.errorf("a comma before ]")
			}
			p.pos++
			return nil
		}
		e, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		v.elems = append(v.elems, e)
		if err := p.space(); err != nil {
			return err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			p.pos++
			return nil
		}
		return p.errorf("expected , or ] in a list")
	}
}

// str reads a string literal and returns its value.
func (p *jsonParser) str() (string, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == '\\':
			p.pos += 2
		case c == '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.src[start:p.pos], &s); err != nil {
				p.pos = start
				return "", p.errorf("a malformed string")
			}
			return s, nil
		case c < 0x20:
			return "", p.errorf("a control character inside a string")
		default:
			p.pos++
		}
	}
	p.pos = start
	return "", p.errorf("a string that is never closed")
}

// decode unmarshals the JSON of v (comments inside it removed) into out.
func decode(src []byte, v *value, out any) error {
	return json.Unmarshal(stripComments(src[v.start:v.end]), out)
}

// stripComments blanks the comments of a JSON text, outside strings.
func stripComments(b []byte) []byte {
	if !bytes.Contains(b, []byte("/")) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, b[i:min(j+1, len(b))]...)
			i = j
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
			out = append(out, ' ')
		default:
			out = append(out, b[i])
		}
	}
	return out
}
