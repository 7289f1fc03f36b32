package tool

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/chanto-dev/chanto/internal/run"
)

//go:embed grep.md
var grepDoc string

const (
	grepMaxLines   = 400
	grepMaxLineLen = 400
	grepMaxContext = 10
)

// Grep searches file contents with a regular expression.
type Grep struct {
	// NoRipgrep forces the built-in search even when rg is installed.
	NoRipgrep bool
}

var _ Tool = Grep{}

type grepInput struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path,omitempty"`
	Glob       string `json:"glob,omitempty"`
	IgnoreCase bool   `json:"ignore_case,omitempty"`
	Context    int    `json:"context,omitempty"`
}

func (Grep) Name() string        { return "grep" }
func (Grep) Description() string { return grepDoc }
func (Grep) ReadOnly() bool      { return true }
func (Grep) Schema() json.RawMessage {
	return schema(`{
"pattern":{"type":"string","description":"Regular expression (RE2 syntax), matched against each line."},
"path":{"type":"string","description":"File or folder to search (default: the project root)."},
"glob":{"type":"string","description":"Only search files matching this glob, e.g. *.go or src/**/*.ts."},
"ignore_case":{"type":"boolean","description":"Match case-insensitively."},
"context":{"type":"integer","description":"Lines of context before and after each match (at most 10)."}}`, "pattern")
}

// Run searches with rg when it is installed and with the built-in walker
// otherwise; both print path:line:text, context lines as path-line-text.
func (g Grep) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	var in grepInput
	if r := decode("grep", input, &in); r != nil {
		return *r, nil
	}
	if in.Pattern == "" {
		return errorf("pattern is empty"), nil
	}
	expr := in.Pattern
	if in.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return errorf("invalid regular expression %q: %v", in.Pattern, err), nil
	}
	if in.Glob != "" && !doublestar.ValidatePattern(strings.TrimPrefix(in.Glob, "!")) {
		return errorf("invalid glob %q", in.Glob), nil
	}
	in.Context = min(max(in.Context, 0), grepMaxContext)
	base := env.Root
	if in.Path != "" {
		base = env.resolve(in.Path)
	}
	fi, err := os.Stat(base)
	if err != nil {
		return errorf("%s does not exist", env.display(base)), nil
	}
	var raw []byte
	if g.NoRipgrep || env.Runner == nil {
		raw, err = grepBuiltin(ctx, env, re, base, fi.IsDir(), in)
	} else {
		raw, err = grepRipgrep(ctx, env, base, in)
		if _, missing := err.(*run.NotFoundError); missing {
			raw, err = grepBuiltin(ctx, env, re, base, fi.IsDir(), in)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return errorf("search %s: %v", env.display(base), err), nil
	}
	if len(raw) == 0 {
		return Result{Output: fmt.Sprintf("no matches for %s under %s", in.Pattern, env.display(base))}, nil
	}
	return Result{Output: capGrep(raw)}, nil
}

// grepRipgrep runs rg from the root with flags chosen so that it visits
// the same files as listFiles, in the same order.
func grepRipgrep(ctx context.Context, env *Env, base string, in grepInput) ([]byte, error) {
	args := []string{"rg", "--no-heading", "--line-number", "--with-filename", "--color", "never",
		"--no-messages", "--hidden", "--no-ignore-dot", "--sort", "path", "--engine", "default",
		"--glob", "!.git", "--glob", "!node_modules"}
	if in.IgnoreCase {
		args = append(args, "--ignore-case")
	}
	if in.Context > 0 {
		args = append(args, "--context", strconv.Itoa(in.Context))
	}
	if in.Glob != "" {
		args = append(args, "--glob", in.Glob)
	}
	args = append(args, "--regexp", in.Pattern)
	if base != env.Root {
		args = append(args, "--", env.display(base))
	}
	var out bytes.Buffer
	res, err := env.Runner.Run(ctx, run.Spec{Args: args, Dir: env.Root, Stdout: &out, OutputCap: 4096, Purpose: run.Internal})
	if err != nil {
		return nil, err
	}
	// 1 means no match; 2 means some file could not be read, which the
	// built-in search also skips silently.
	if res.ExitCode != 0 && res.ExitCode != 1 && out.Len() == 0 {
		return nil, fmt.Errorf("rg: %s", strings.TrimSpace(string(res.Output)))
	}
	return out.Bytes(), nil
}

// grepBuiltin walks the same files rg would and formats matches like rg.
func grepBuiltin(ctx context.Context, env *Env, re *regexp.Regexp, base string, isDir bool, in grepInput) ([]byte, error) {
	prefix := env.display(base)
	var files []string
	if isDir {
		all, err := listFiles(ctx, env, base)
		if err != nil {
			return nil, err
		}
		for _, f := range all {
			if globMatches(in.Glob, joinDisplay(prefix, f, base == env.Root)) {
				files = append(files, f)
			}
		}
		slices.SortFunc(files, comparePaths)
	} else {
		files = []string{""}
	}
	var out bytes.Buffer
	groups := 0
	for _, f := range files {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		name, abs := prefix, base
		if f != "" {
			abs = filepath.Join(base, filepath.FromSlash(f))
			name = joinDisplay(prefix, f, base == env.Root)
		}
		data, err := os.ReadFile(abs)
		if err != nil || isBinary(data) {
			continue
		}
		groups = grepFile(&out, name, data, re, in.Context, groups)
		if bytes.Count(out.Bytes(), []byte("\n")) > grepMaxLines {
			break
		}
	}
	return out.Bytes(), nil
}

// joinDisplay is the path rg prints for file f under the searched folder.
func joinDisplay(prefix, f string, atRoot bool) string {
	if atRoot {
		return f
	}
	return prefix + "/" + f
}

// globMatches applies the glob the way rg's --glob does: without a slash
// it matches the file name at any depth, with one the path as printed
// (relative to the project root); a leading ! excludes.
func globMatches(glob, rel string) bool {
	if glob == "" {
		return true
	}
	negate := strings.HasPrefix(glob, "!")
	glob = strings.TrimPrefix(glob, "!")
	target := rel
	if !strings.Contains(glob, "/") {
		target = rel[strings.LastIndex(rel, "/")+1:]
	}
	ok, _ := doublestar.Match(strings.TrimPrefix(glob, "/"), target)
	return ok != negate
}

// grepFile writes the matches of one file; groups counts the context
// groups written so far, which rg separates with "--".
func grepFile(out *bytes.Buffer, name string, data []byte, re *regexp.Regexp, context, groups int) int {
	lines := bytes.Split(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	last := -1 // last line index written
	for i, line := range lines {
		if !re.Match(line) {
			continue
		}
		from := max(0, i-context, last+1)
		if context > 0 && (last < 0 || from > last+1) {
			if groups > 0 {
				out.WriteString("--\n")
			}
			groups++
		}
		for j := from; j < i; j++ {
			fmt.Fprintf(out, "%s-%d-%s\n", name, j+1, lines[j])
		}
		fmt.Fprintf(out, "%s:%d:%s\n", name, i+1, line)
		last = i
		// Trailing context stops at the next match, which prints itself.
		for j := i + 1; j <= min(len(lines)-1, i+context) && !re.Match(lines[j]); j++ {
			fmt.Fprintf(out, "%s-%d-%s\n", name, j+1, lines[j])
			last = j
		}
	}
	return groups
}

// capGrep normalizes and bounds the output, identically for both engines.
func capGrep(raw []byte) string {
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == grepMaxLines {
			fmt.Fprintf(&b, "[output capped at %d lines; %d more not shown: narrow the pattern, path or glob]\n", grepMaxLines, len(lines)-grepMaxLines)
			break
		}
		l = strings.ToValidUTF8(strings.TrimSuffix(l, "\r"), "\uFFFD")
		if r := []rune(l); len(r) > grepMaxLineLen {
			l = string(r[:grepMaxLineLen]) + " … [line truncated]"
		}
		b.WriteString(l + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
