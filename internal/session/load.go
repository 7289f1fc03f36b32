package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm"

	"github.com/chanto-dev/chanto/internal/durable"
)

// ErrNotFound reports a session that does not exist.
var ErrNotFound = errors.New("no such session")

// Transcript is a session read back from disk.
type Transcript struct {
	Meta     Meta
	Messages []llm.Message
	// Warnings name lines that were skipped (a line torn by a crash).
	Warnings []string
	// FullRuns are the gate's full-run measurements, by check key (the
	// last one of each).
	FullRuns map[string]float64
	// Goal is the last goal recorded (its JSON), nil when none or cleared.
	Goal json.RawMessage

	partial   []byte // the torn last line, if any
	validSize int64  // bytes up to the end of the last whole line
}

// Load returns the conversation and description of session id.
func Load(id string) ([]llm.Message, Meta, error) {
	t, err := Read(id)
	if err != nil {
		return nil, Meta{}, err
	}
	return t.Messages, t.Meta, nil
}

// Read loads session id. A last line that does not parse (the process
// died while writing it) is skipped with a warning; a bad line elsewhere
// is an error naming the line, since it is not a crash artefact.
func Read(id string) (*Transcript, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return nil, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	dir := Dir(id)
	meta, err := readMeta(dir)
	if errors.Is(err, ErrNotFound) {
		// A unique prefix of an ID is enough: 20261129-2045.
		var full string
		if full, err = resolvePrefix(id); err == nil {
			dir = Dir(full)
			meta, err = readMeta(dir)
		}
	}
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, transcriptName)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	t := &Transcript{Meta: meta}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var offset int64
	for i, line := range lines {
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			offset += int64(len(line))
			continue
		}
		var rec record
		if err := json.Unmarshal(trimmed, &rec); err != nil {
			if isLast(lines, i) {
				t.Warnings = append(t.Warnings, fmt.Sprintf("%s:%d: skipped a truncated last line (%d bytes), probably cut by a crash", path, i+1, len(line)))
				t.partial, t.validSize = line, offset
				break
			}
			return nil, fmt.Errorf("%s:%d: invalid transcript line: %v", path, i+1, err)
		}
		if rec.Message != nil {
			t.Messages = append(t.Messages, rec.message())
		}
		if rec.Goal != nil {
			t.Goal = goalOrNil(rec.Goal)
		}
		if fr := rec.FullRun; fr != nil {
			if t.FullRuns == nil {
				t.FullRuns = map[string]float64{}
			}
			t.FullRuns[fr.Key] = fr.Secs
		}
		offset += int64(len(line))
	}
	return t, nil
}

// isLast reports whether lines[i] is the last non-empty line.
func isLast(lines [][]byte, i int) bool {
	for _, l := range lines[i+1:] {
		if len(bytes.TrimSpace(l)) > 0 {
			return false
		}
	}
	return true
}

func readMeta(dir string) (Meta, error) {
	var m Meta
	data, err := os.ReadFile(filepath.Join(dir, metaName))
	if errors.Is(err, os.ErrNotExist) {
		return m, fmt.Errorf("session %s: %w", filepath.Base(dir), ErrNotFound)
	}
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s: %v", filepath.Join(dir, metaName), err)
	}
	if m.ID == "" {
		m.ID = filepath.Base(dir)
	}
	return m, nil
}

// setAsidePartial keeps the torn line in a side file and cuts it from the
// transcript, so the next append starts on a clean line.
func setAsidePartial(path string, partial []byte, validSize int64) error {
	f, err := os.OpenFile(path+".partial", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	_, werr := f.Write(append(bytes.TrimRight(partial, "\n"), '\n'))
	if werr == nil {
		werr = durable.Sync(f) // on disk before the transcript loses it
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("session: %w", werr)
	}
	return os.Truncate(path, validSize)
}

// List returns every session, newest first. Folders without a readable
// meta.json (the putback store, a half-created session) are skipped.
func List() ([]Meta, error) {
	entries, err := os.ReadDir(config.HistoryDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var metas []Meta
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		m, err := readMeta(filepath.Join(config.HistoryDir(), e.Name()))
		if err != nil {
			continue
		}
		metas = append(metas, m)
	}
	slices.SortFunc(metas, func(a, b Meta) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return metas, nil
}

// Latest returns the newest session started in projectDir (symlinks
// resolved on both sides), for --continue.
func Latest(projectDir string) (Meta, error) {
	want := canonical(projectDir)
	metas, err := List()
	if err != nil {
		return Meta{}, err
	}
	for _, m := range metas {
		if canonical(m.ProjectDir) == want {
			return m, nil
		}
	}
	return Meta{}, fmt.Errorf("no earlier session in %s: %w", projectDir, ErrNotFound)
}

func canonical(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// resolvePrefix finds the one session whose ID starts with prefix.
func resolvePrefix(prefix string) (string, error) {
	metas, err := List()
	if err != nil {
		return "", err
	}
	var found []string
	for _, m := range metas {
		if strings.HasPrefix(m.ID, prefix) {
			found = append(found, m.ID)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("session %s: %w", prefix, ErrNotFound)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("session %s is ambiguous: %d sessions start with it (%s, …)", prefix, len(found), found[0])
}
