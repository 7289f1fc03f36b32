package runner

import (
	"encoding/json"
	"unicode/utf8"
)

// go test -json writes thousands of events on a module of any size (5,000
// lines, 880 kB on BurntSushi/toml), and encoding/json's reflection made
// reading them 18 ms of chanto's CPU a verify. test2json's events are flat
// objects of strings and numbers; decodeGoEvent reads those itself and
// leaves anything else (nesting, true/false/null, odd spacing it cannot
// follow) to encoding/json, so an event reads the same either way.

// decodeGoEvent decodes one go test -json line into ev.
func decodeGoEvent(b []byte, ev *goEvent) error {
	if ok := scanGoEvent(b, ev); ok {
		return nil
	}
	*ev = goEvent{}
	return json.Unmarshal(b, ev)
}

// scanGoEvent is the fast path: false when the line is anything but a
// flat object of plain keys and string or number values.
func scanGoEvent(b []byte, ev *goEvent) bool {
	*ev = goEvent{}
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		key, j, ok := scanString(b, i)
		if !ok {
			return false
		}
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return false
		}
		var dst *string
		switch key {
		case "Action":
			dst = &ev.Action
		case "Package":
			dst = &ev.Package
		case "ImportPath":
			dst = &ev.ImportPath
		case "Test":
			dst = &ev.Test
		case "Output":
			dst = &ev.Output
		case "FailedBuild":
			dst = &ev.FailedBuild
		default:
			if !isPlainKey(key) {
				return false // encoding/json matches keys case-insensitively
			}
		}
		switch {
		case b[i] == '"':
			s, j, ok := scanString(b, i)
			if !ok {
				return false
			}
			if dst != nil {
				*dst = s
			}
			i = j
		case dst == nil && (b[i] == '-' || '0' <= b[i] && b[i] <= '9'):
			j := i + 1
			for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
				j++
			}
			if !json.Valid(b[i:j]) {
				return false
			}
			i = j
		default:
			return false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// isPlainKey reports whether key is one the fast path may skip: not a
// spelling of a field goEvent has (encoding/json would fill it).
func isPlainKey(key string) bool {
	switch key {
	case "Time", "Elapsed", "Source":
		return true
	}
	return false
}

// scanString reads the JSON string starting at b[i] (a quote): its value
// and the index after it. A string with \u escapes goes through
// encoding/json; one that is not valid UTF-8 is refused.
func scanString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '\\':
			escaped = true
			j++
		case c == '"':
			raw := b[i+1 : j]
			if !escaped {
				if !utf8.Valid(raw) {
					return "", 0, false
				}
				for _, c := range raw {
					if c < 0x20 {
						return "", 0, false
					}
				}
				return string(raw), j + 1, true
			}
			s, ok := unescape(raw)
			if !ok {
				var js string
				if json.Unmarshal(b[i:j+1], &js) != nil {
					return "", 0, false
				}
				s = js
			}
			return s, j + 1, true
		}
	}
	return "", 0, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// unescape decodes raw's one-letter escapes (\n, \t, \", …); false for
// anything else (\u escapes, control or invalid UTF-8 bytes), which
// encoding/json decodes instead.
func unescape(raw []byte) (string, bool) {
	if !utf8.Valid(raw) {
		return "", false
	}
	out := make([]byte, 0, len(raw))
	for k := 0; k < len(raw); k++ {
		c := raw[k]
		if c < 0x20 {
			return "", false
		}
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if k+1 >= len(raw) {
			return "", false
		}
		k++
		switch raw[k] {
		case '"', '\\', '/':
			out = append(out, raw[k])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default:
			return "", false
		}
	}
	return string(out), true
}
