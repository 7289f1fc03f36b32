package goal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// fileGoal is a goal file (.chanto/goals/NAME.toml) as written.
type fileGoal struct {
	Statement string     `toml:"statement"`
	Criteria  []string   `toml:"criteria"`
	Criterion []fileCrit `toml:"criterion"`
	MaxTurns  int        `toml:"max_turns"`
	MaxTokens int64      `toml:"max_tokens"`
}

// fileCrit is one [[criterion]] table: exactly one of command, test and
// file, with matches (for a command) or contains (for a file).
type fileCrit struct {
	Command  string `toml:"command"`
	Matches  string `toml:"matches"`
	Test     string `toml:"test"`
	File     string `toml:"file"`
	Contains string `toml:"contains"`
}

// Dir is where a project keeps its goal files.
func Dir(root string) string { return filepath.Join(root, ".chanto", "goals") }

// Resolve finds a goal file: a path as given, or NAME for
// .chanto/goals/NAME.toml of the project at root.
func Resolve(root, name string) string {
	if strings.ContainsRune(name, filepath.Separator) || strings.HasSuffix(name, ".toml") {
		return name
	}
	return filepath.Join(Dir(root), name+".toml")
}

// List names the project's goal files (NAME of .chanto/goals/NAME.toml).
func List(root string) []string {
	files, _ := filepath.Glob(filepath.Join(Dir(root), "*.toml"))
	var out []string
	for _, f := range files {
		out = append(out, strings.TrimSuffix(filepath.Base(f), ".toml"))
	}
	sort.Strings(out)
	return out
}

// LoadFile reads a goal file. Errors name the file, and the line when the
// TOML says it: criteria in text form ("test: TestParse") and
// [[criterion]] tables add up, texts first.
func LoadFile(path string) (*Goal, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("goal file %s: no such file", path)
	}
	if err != nil {
		return nil, fmt.Errorf("goal file %s: %w", path, err)
	}
	var fg fileGoal
	md, err := toml.Decode(string(data), &fg)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		key := und[0].String()
		return nil, fmt.Errorf("%s:%d: unknown key %q (want statement, criteria, max_turns, max_tokens or [[criterion]] with command, matches, test, file, contains)", path, lineOf(string(data), und[0][len(und[0])-1]), key)
	}
	g := &Goal{Statement: strings.TrimSpace(fg.Statement), MaxTurns: fg.MaxTurns, MaxTokens: fg.MaxTokens, Source: path}
	for _, s := range fg.Criteria {
		c, err := ParseCriterion(s)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, lineOf(string(data), s), err)
		}
		g.Criteria = append(g.Criteria, c)
	}
	for i, fc := range fg.Criterion {
		c, err := fc.criterion()
		if err != nil {
			return nil, fmt.Errorf("%s: [[criterion]] %d: %v", path, i+1, err)
		}
		g.Criteria = append(g.Criteria, c)
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return g, nil
}

func (fc fileCrit) criterion() (Criterion, error) {
	set := 0
	for _, v := range []string{fc.Command, fc.Test, fc.File} {
		if v != "" {
			set++
		}
	}
	if set != 1 {
		return Criterion{}, fmt.Errorf("set exactly one of command, test and file")
	}
	var c Criterion
	switch {
	case fc.Command != "" && fc.Matches != "":
		c = Criterion{Kind: Output, Command: fc.Command, Pattern: fc.Matches}
	case fc.Command != "":
		c = Criterion{Kind: Command, Command: fc.Command}
	case fc.Test != "":
		c = Criterion{Kind: Test, Test: fc.Test}
	default:
		c = Criterion{Kind: File, Path: fc.File, Pattern: fc.Contains}
	}
	if fc.Matches != "" && c.Kind != Output || fc.Contains != "" && c.Kind != File {
		return Criterion{}, fmt.Errorf("matches goes with command, contains with file")
	}
	return c, c.Validate()
}

// lineOf is the first line holding s (a key or a value), 0 if none.
func lineOf(text, s string) int {
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	return 0
}
