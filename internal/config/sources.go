package config

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Source is one effective key, its value and where the value came from.
type Source struct {
	Key string `json:"key"`
	// Value is the value in TOML syntax.
	Value string `json:"toml"`
	// Raw is the Go value, for JSON output.
	Raw any `json:"value"`
	// From is "default", "FILE:LINE" or "flag --NAME".
	From string `json:"source"`
}

// Sources lists every effective key in a stable order with its origin.
func (l *Loaded) Sources() []Source {
	var out []Source
	flatten(reflect.ValueOf(l.Config), nil, func(path []string, v reflect.Value) {
		key := strings.Join(path, ".")
		from := l.sources[key]
		if from == "" {
			from = "default"
		}
		out = append(out, Source{Key: key, Value: tomlValue(v), Raw: v.Interface(), From: from})
	})
	return out
}

// flatten visits the leaves of a config value: struct fields in
// declaration order, map entries sorted by key.
func flatten(v reflect.Value, path []string, fn func([]string, reflect.Value)) {
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			tag := strings.Split(t.Field(i).Tag.Get("toml"), ",")[0]
			if tag == "-" {
				continue
			}
			flatten(v.Field(i), append(path[:len(path):len(path)], tag), fn)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			flatten(v.MapIndex(k), append(path[:len(path):len(path)], k.String()), fn)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			fn(path, v.Elem())
		}
	case reflect.Interface:
		// A free-form value (a language server's settings): its leaves.
		if !v.IsNil() {
			flatten(v.Elem(), path, fn)
		}
	default:
		fn(path, v)
	}
}

// tomlValue renders a leaf in TOML syntax; hook lists become inline tables.
func tomlValue(v reflect.Value) string {
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Int:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = tomlValue(v.Index(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case reflect.Struct:
		var parts []string
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			if v.Field(i).IsZero() {
				continue
			}
			tag := strings.Split(t.Field(i).Tag.Get("toml"), ",")[0]
			parts = append(parts, tag+" = "+tomlValue(v.Field(i)))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v.Interface())
}
