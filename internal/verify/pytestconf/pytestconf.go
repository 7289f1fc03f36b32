// Package pytestconf knows which file pytest takes its configuration from,
// as the pytest that runs does: the files a version honours, in its order,
// and what makes each one count. It is the one such reader, so test
// selection, test protection and the gate's advice see the options that
// pytest will use, not a guess of their own.
package pytestconf

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/chanto-dev/chanto/internal/ini"
)

// Version is a pytest release, major and minor; the zero Version is an
// unknown one, read by the newest rules.
type Version struct{ Major, Minor int }

// ParseVersion reads "7.2.1" (or "9.0.0.dev3"); anything else is unknown.
func ParseVersion(s string) Version {
	parts := strings.SplitN(strings.TrimSpace(s), ".", 3)
	if len(parts) < 2 {
		return Version{}
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || major <= 0 {
		return Version{}
	}
	return Version{major, minor}
}

func (v Version) String() string {
	if v.Unknown() {
		return "unknown"
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// Unknown reports whether v is the zero Version.
func (v Version) Unknown() bool { return v == Version{} }

// atLeast reports whether v is major.minor or later; an unknown version is
// later than any.
func (v Version) atLeast(major, minor int) bool {
	return v.Unknown() || v.Major > major || v.Major == major && v.Minor >= minor
}

// Names lists the files pytest v looks for in a folder, in its order:
// pytest.toml and .pytest.toml since 9.0, .pytest.ini since 7.2,
// pyproject.toml since 6.0.
func Names(v Version) []string {
	var out []string
	if v.atLeast(9, 0) {
		out = append(out, "pytest.toml", ".pytest.toml")
	}
	out = append(out, "pytest.ini")
	if v.atLeast(7, 2) {
		out = append(out, ".pytest.ini")
	}
	if v.atLeast(6, 0) {
		out = append(out, "pyproject.toml")
	}
	return append(out, "tox.ini", "setup.cfg")
}

// AllNames is every file some pytest reads its configuration from.
var AllNames = Names(Version{})

// Options reads the file name (one of Names) as pytest v does: its
// options as strings (a list's items joined with spaces), and whether the
// file is pytest's configuration at all. pytest.ini is, even empty, and
// so are pytest.toml and (since 9.0) an empty .pytest.ini; the others need
// their section or table. err is a file that does not parse.
func Options(v Version, name string, data []byte) (opts map[string]string, ok bool, err error) {
	switch name {
	case "pytest.toml", ".pytest.toml":
		var doc map[string]any
		if _, err := toml.Decode(string(data), &doc); err != nil {
			return nil, false, fmt.Errorf("does not parse as TOML: %w", err)
		}
		table, _ := doc["pytest"].(map[string]any)
		return tableStrings(table, ""), true, nil
	case "pyproject.toml":
		var doc struct {
			Tool struct {
				Pytest map[string]any `toml:"pytest"`
			} `toml:"tool"`
		}
		if _, err := toml.Decode(string(data), &doc); err != nil {
			return nil, false, fmt.Errorf("does not parse as TOML: %w", err)
		}
		if iniOpts, has := doc.Tool.Pytest["ini_options"].(map[string]any); has {
			return tableStrings(iniOpts, ""), true, nil
		}
		if native := tableStrings(doc.Tool.Pytest, "ini_options"); v.atLeast(9, 0) && len(native) > 0 {
			return native, true, nil
		}
		return nil, false, nil
	case "setup.cfg":
		sec, has := ini.Parse(string(data)).Section("tool:pytest")
		return sec, has, nil
	}
	sec, has := ini.Parse(string(data)).Section("pytest")
	if !has && (name == "pytest.ini" || name == ".pytest.ini" && v.atLeast(9, 0)) {
		return map[string]string{}, true, nil
	}
	return sec, has, nil
}

// Find returns the file pytest v takes its configuration from in one
// folder, and its options ("" and nil when there is none). read reads a
// file of that folder (false when it is absent). A file that does not
// parse is skipped; pytest would stop on it, and so would the check.
func Find(v Version, read func(name string) ([]byte, bool)) (file string, opts map[string]string) {
	for _, name := range Names(v) {
		data, ok := read(name)
		if !ok {
			continue
		}
		if opts, ok, err := Options(v, name, data); err == nil && ok {
			if opts == nil {
				opts = map[string]string{}
			}
			return name, opts
		}
	}
	return "", nil
}

// tableStrings turns a TOML table's values into strings, leaving out skip.
func tableStrings(table map[string]any, skip string) map[string]string {
	out := map[string]string{}
	for k, v := range table {
		if k == skip {
			continue
		}
		switch v := v.(type) {
		case string:
			out[k] = v
		case []any:
			var parts []string
			for _, x := range v {
				parts = append(parts, fmt.Sprint(x))
			}
			out[k] = strings.Join(parts, " ")
		case map[string]any:
		default:
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}
