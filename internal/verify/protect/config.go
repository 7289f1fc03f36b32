package protect

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/verify/pytestconf"
)

// pytestConfigs returns the pytest options of every configuration file
// at the root of src that some pytest reads (pytestconf.AllNames): which
// one wins depends on the version, and a weakened harness in any of them
// counts.
func pytestConfigs(src Source) []map[string]string {
	var out []map[string]string
	for _, name := range pytestconf.AllNames {
		b, err := src.ReadFile(name)
		if err != nil {
			continue
		}
		if kv := pytestOptions(name, b); kv != nil {
			out = append(out, kv)
		}
	}
	return out
}

// pytestOptions parses one config file's pytest section; nil when absent
// or unreadable.
func pytestOptions(file string, b []byte) map[string]string {
	kv, _ := pytestOptionsErr(file, b)
	return kv
}

// pytestOptionsErr is pytestOptions saying why a file could not be read.
// The version is the newest: test protection runs before any check is
// detected, and reads the newest rules' files as pytest 9 would.
func pytestOptionsErr(file string, b []byte) (map[string]string, error) {
	kv, ok, err := pytestconf.Options(pytestconf.Version{}, path.Base(file), b)
	if err != nil || !ok {
		return nil, err
	}
	return kv, nil
}

// flattenValue turns a decoded JSON or TOML value into its leaf strings.
func flattenValue(v any) []string {
	switch v := v.(type) {
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, flattenValue(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, k := range sortedKeys(v) {
			out = append(out, flattenValue(v[k])...)
		}
		return out
	case string:
		return []string{v}
	case nil:
		return nil
	}
	return []string{fmt.Sprint(v)}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// flattenJSON maps every key of a nested JSON object to its leaf values.
func flattenJSON(m map[string]any) map[string][]string {
	out := map[string][]string{}
	var walk func(map[string]any)
	walk = func(m map[string]any) {
		for k, v := range m {
			out[k] = append(out[k], flattenValue(v)...)
			switch v := v.(type) {
			case map[string]any:
				walk(v)
			case []any:
				for _, e := range v {
					if o, ok := e.(map[string]any); ok {
						walk(o)
					}
				}
			}
		}
	}
	walk(m)
	return out
}

// jsConfigValues reads literal values of a jest or vitest config written in
// JavaScript or TypeScript: every property key maps to the strings,
// regexes, numbers and booleans found in its value.
func jsConfigValues(name string, b []byte) map[string][]string {
	if strings.HasSuffix(name, ".json") {
		return jsonConfig(b)
	}
	lang := "javascript"
	if strings.HasSuffix(name, "ts") {
		lang = "typescript"
	}
	root, _ := parseTS(lang, b)
	out := map[string][]string{}
	if root == nil {
		return out
	}
	root.walk(func(n *node) bool {
		if n.kind != "pair" {
			return true
		}
		k := n.child("key")
		v := n.child("value")
		if k == nil || v == nil {
			return true
		}
		key := keyName(k, b)
		out[key] = append(out[key], literals(v, b)...)
		if v.kind != "object" && v.kind != "array" {
			return true
		}
		return true
	})
	return out
}

func literals(v *node, b []byte) []string {
	var out []string
	v.walk(func(n *node) bool {
		switch n.kind {
		case "pair":
			return false
		case "string", "template_string":
			out = append(out, stringValue(n, b))
			return false
		case "regex", "number", "true", "false":
			out = append(out, n.text(b))
			return false
		}
		return true
	})
	return out
}

func jsonConfig(b []byte) map[string][]string {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return map[string][]string{}
	}
	return flattenJSON(m)
}
