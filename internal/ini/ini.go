// Package ini reads the INI files Python tools configure themselves with
// (pytest.ini, tox.ini, setup.cfg), the way configparser and pytest's
// iniconfig read them: sections, `key = value` or `key: value`, indented
// continuation lines, whole-line comments. It is the one INI reader, so
// test selection and test protection see the same settings.
package ini

import "strings"

// File is the sections of an INI file by name, each its keys and values.
// A continuation line joins its value with a space.
type File map[string]map[string]string

// Parse reads s. Lines before the first section and lines that are
// neither a section, a key nor a continuation are ignored; a section
// named twice has the keys of both (a later key wins).
func Parse(s string) File {
	out := File{}
	var sec map[string]string
	key := ""
	for _, raw := range strings.Split(s, "\n") {
		line := strings.TrimRight(raw, " \t\r")
		trim := strings.TrimSpace(line)
		switch {
		case trim == "" || strings.HasPrefix(trim, "#") || strings.HasPrefix(trim, ";"):
			continue
		case strings.HasPrefix(trim, "[") && strings.HasSuffix(trim, "]"):
			name := strings.TrimSpace(trim[1 : len(trim)-1])
			if out[name] == nil {
				out[name] = map[string]string{}
			}
			sec, key = out[name], ""
		case sec == nil:
		case line[0] == ' ' || line[0] == '\t':
			if key != "" {
				sec[key] = strings.TrimSpace(sec[key] + " " + trim)
			}
		default:
			i := strings.IndexAny(trim, "=:")
			if i <= 0 {
				key = ""
				continue
			}
			key = strings.TrimSpace(trim[:i])
			sec[key] = strings.TrimSpace(trim[i+1:])
		}
	}
	return out
}

// Section returns one section and whether the file has it.
func (f File) Section(name string) (map[string]string, bool) {
	s, ok := f[name]
	return s, ok
}
