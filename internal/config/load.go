package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// LoadOptions says where to find the configuration layers.
type LoadOptions struct {
	// ProjectDir is the project root; its .chanto/config.toml is the
	// project file. Empty means no project file.
	ProjectDir string
	// UserFile overrides Home()/config.toml.
	UserFile string
	// Flags are command-line values laid over both files, in order.
	Flags []Flag
}

// Flag is one command-line override.
type Flag struct {
	// Key is the dotted config key, e.g. "model" or "guardrails.checks".
	Key string
	// Value is a string, bool, int or []string.
	Value any
	// Name is the flag as the user typed it, e.g. "--model"; it becomes
	// the value's source.
	Name string
}

// Loaded is the effective configuration and how it came about.
type Loaded struct {
	Config Config
	// Warnings are project keys that were ignored and keys set that do
	// nothing yet, one line each, without a "warning:" prefix.
	Warnings []string
	// UserFile and ProjectFile are the files read ("" when absent).
	UserFile, ProjectFile string
	ProjectDir            string
	// Trusted reports whether ProjectDir is trusted.
	Trusted bool

	sources map[string]string
}

// UserFile is the user's config file.
func UserFile() string { return filepath.Join(Home(), "config.toml") }

// ProjectFile is the project config file of root.
func ProjectFile(root string) string { return filepath.Join(root, ".chanto", "config.toml") }

// Load reads the user file, the project file and the flags, validates each
// layer and merges them, applying the trust rules to the project layer.
func Load(opts LoadOptions) (*Loaded, error) {
	l := &Loaded{Config: Default(), ProjectDir: opts.ProjectDir, sources: map[string]string{}}
	merged := map[string]any{}
	userFile := opts.UserFile
	if userFile == "" {
		userFile = UserFile()
	}
	tree, lines, err := readLayer(userFile)
	if err != nil {
		return nil, err
	}
	if tree != nil {
		l.UserFile = userFile
		l.merge(merged, tree, nil, sourceAt(userFile, lines))
	}
	if opts.ProjectDir != "" {
		if err := l.loadProject(merged, opts.ProjectDir); err != nil {
			return nil, err
		}
	}
	for _, f := range opts.Flags {
		if err := l.applyFlag(merged, f); err != nil {
			return nil, err
		}
	}
	if err := decodeInto(&l.Config, merged); err != nil {
		return nil, err
	}
	l.markProjectServers()
	return l, nil
}

// markProjectServers records which MCP servers a project file defined or
// changed: any key of theirs from the project file makes the server the
// project's, to be approved before it starts.
func (l *Loaded) markProjectServers() {
	if l.ProjectFile == "" {
		return
	}
	for name := range l.Config.MCPServers {
		for key, from := range l.sources {
			if strings.HasPrefix(key, "mcp_servers."+name+".") && strings.Contains(from, l.ProjectFile) {
				l.Config.MCPProjectServers = append(l.Config.MCPProjectServers, name)
				break
			}
		}
	}
	slices.Sort(l.Config.MCPProjectServers)
}

func (l *Loaded) loadProject(merged map[string]any, dir string) error {
	file := ProjectFile(dir)
	tree, lines, err := readLayer(file)
	if err != nil || tree == nil {
		return err
	}
	l.ProjectFile = file
	if l.Trusted, err = IsTrusted(dir); err != nil {
		return err
	}
	l.filterProject(merged, tree, lines, dir)
	l.merge(merged, tree, nil, sourceAt(file, lines))
	return nil
}

// readLayer parses and validates one file; a missing file gives a nil tree.
func readLayer(file string) (map[string]any, map[string]int, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read config: %w", err)
	}
	tree := map[string]any{}
	if _, err := toml.Decode(string(data), &tree); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			line := pe.Position.Line
			// The lexer reports an unexpected end of line on the next line.
			if strings.Contains(pe.Message, `'\n'`) && line > 1 {
				line--
			}
			return nil, nil, &Error{Where: file, Line: line, Msg: pe.Message}
		}
		return nil, nil, &Error{Where: file, Msg: err.Error()}
	}
	lines := keyLines(string(data))
	c := &checker{where: file, lines: lines}
	if err := c.check(tree, reflect.TypeOf(Config{}), nil); err != nil {
		return nil, nil, err
	}
	if err := c.checkTeamChecks(tree); err != nil {
		return nil, nil, err
	}
	return tree, lines, nil
}

func sourceAt(file string, lines map[string]int) func(path []string) string {
	return func(path []string) string {
		if n := lineOf(lines, path); n > 0 {
			return fmt.Sprintf("%s:%d", file, n)
		}
		return file
	}
}

// merge lays tree over dst leaf by leaf, recording each leaf's source.
// Hook lists and team checks add up (the user's and the project's both
// run); every other value replaces the one below it.
func (l *Loaded) merge(dst, tree map[string]any, path []string, source func([]string) string) {
	for k, v := range tree {
		p := append(slices.Clip(path), k)
		if sub, ok := v.(map[string]any); ok && !isLeaf(p) {
			d, ok := dst[k].(map[string]any)
			if !ok {
				d = map[string]any{}
				dst[k] = d
			}
			l.merge(d, sub, p, source)
			continue
		}
		key := strings.Join(p, ".")
		if prev, ok := dst[k]; ok && (len(p) == 2 && p[0] == "hooks" || key == "team_checks") {
			a, _ := tables(prev)
			b, _ := tables(v)
			dst[k] = append(slices.Clip(a), b...)
			l.sources[key] += " + " + source(p)
			continue
		}
		dst[k] = v
		l.sources[key] = source(p)
	}
}

// isLeaf reports keys whose table value is one value (none today: every
// table is a struct or a map of structs).
func isLeaf(path []string) bool { return false }

func (l *Loaded) applyFlag(merged map[string]any, f Flag) error {
	path := strings.Split(f.Key, ".")
	var v any
	switch x := f.Value.(type) {
	case string, bool, int64:
		v = x
	case int:
		v = int64(x)
	case []string:
		list := make([]any, len(x))
		for i, s := range x {
			list[i] = s
		}
		v = list
	default:
		return fmt.Errorf("flag %s: unsupported value type %T", f.Name, f.Value)
	}
	tree := map[string]any{path[len(path)-1]: v}
	for i := len(path) - 2; i >= 0; i-- {
		tree = map[string]any{path[i]: tree}
	}
	c := &checker{where: "flag " + f.Name}
	if err := c.check(tree, reflect.TypeOf(Config{}), nil); err != nil {
		return err
	}
	l.merge(merged, tree, nil, func([]string) string { return "flag " + f.Name })
	return nil
}

// decodeInto turns the merged tree into cfg (pre-filled with defaults) by
// a TOML round trip, so the field mapping is the library's own.
func decodeInto(cfg *Config, tree map[string]any) error {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(tree); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if _, err := toml.Decode(buf.String(), cfg); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}
