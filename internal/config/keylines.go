package config

import (
	"strconv"
	"strings"
)

// keyLines maps each key of a TOML document to the line it is written on,
// so validation errors can name a line. Keys below an array-of-tables
// header carry the element index ("hooks.stop.1.command"). It is a line
// scanner, not a parser: the document has already parsed, and a key it
// cannot place falls back to its parent's line.
func keyLines(text string) map[string]int {
	lines := map[string]int{}
	counts := map[string]int{}
	var table string
	inMulti := ""
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		line := strings.TrimSpace(raw)
		if inMulti != "" {
			if strings.Count(line, inMulti)%2 == 1 {
				inMulti = ""
			}
			continue
		}
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "[["):
			name := joinKey(splitKey(strings.TrimSpace(strings.Trim(cutComment(line), "[] \t"))))
			table = name + "." + strconv.Itoa(counts[name])
			counts[name]++
			setLine(lines, name, n)
			setLine(lines, table, n)
			continue
		case strings.HasPrefix(line, "["):
			table = joinKey(splitKey(strings.TrimSpace(strings.Trim(cutComment(line), "[] \t"))))
			setLine(lines, table, n)
			continue
		}
		k, rest, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key := joinKey(splitKey(strings.TrimSpace(k)))
		if table != "" {
			key = table + "." + key
		}
		setLine(lines, key, n)
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(rest, q)%2 == 1 {
				inMulti = q
			}
		}
	}
	return lines
}

func setLine(m map[string]int, key string, n int) {
	if _, ok := m[key]; !ok {
		m[key] = n
	}
}

// lineOf finds the line of path, or of its nearest written ancestor.
func lineOf(lines map[string]int, path []string) int {
	for i := len(path); i > 0; i-- {
		if n, ok := lines[strings.Join(path[:i], ".")]; ok {
			return n
		}
	}
	return 0
}

// splitKey splits a dotted TOML key, honouring quoted parts.
func splitKey(k string) []string {
	var parts []string
	var cur strings.Builder
	quote := rune(0)
	for _, r := range k {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote = r
		case r == '.':
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
		case r == ' ' || r == '\t':
		default:
			cur.WriteRune(r)
		}
	}
	return append(parts, strings.TrimSpace(cur.String()))
}

func joinKey(parts []string) string { return strings.Join(parts, ".") }

func cutComment(s string) string {
	if i := strings.Index(s, "#"); i >= 0 {
		return s[:i]
	}
	return s
}
