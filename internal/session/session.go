// Package session keeps conversations on disk: one folder per session
// under config.HistoryDir(), holding meta.json and transcript.jsonl, where
// every message is appended and synced as it happens so a crash loses
// nothing already said. It rebuilds a conversation for --resume and
// --continue and lists past sessions.
package session

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm"

	"github.com/chanto-dev/chanto/internal/durable"
)

const (
	metaName       = "meta.json"
	transcriptName = "transcript.jsonl"
)

// Meta describes a session.
type Meta struct {
	ID          string    `json:"id"`
	Created     time.Time `json:"created"`
	ProjectDir  string    `json:"project_dir"`
	Model       string    `json:"model"`
	FirstPrompt string    `json:"first_prompt"`
}

// record is one transcript line. Wrapping the message leaves room for
// other kinds of lines later without breaking old transcripts.
type record struct {
	Time    time.Time    `json:"time"`
	Message *llm.Message `json:"message,omitempty"`
	// RawInputs keeps, by part index, tool-call arguments that are not
	// valid JSON (a model's malformed call), which cannot be embedded.
	RawInputs map[int]string `json:"raw_inputs,omitempty"`
	// FullRun is a measurement the gate keeps across turns: how long a
	// full run of a check took.
	FullRun *FullRun `json:"full_run,omitempty"`
	// Goal is the session's goal as it was set (its JSON; "null" when it
	// was cleared): resume keeps the last one.
	Goal json.RawMessage `json:"goal,omitempty"`
}

// FullRun is how long a full run of one check took (Key names the check).
type FullRun struct {
	Key  string  `json:"key"`
	Secs float64 `json:"secs"`
}

// newRecord wraps msg, moving arguments that are not valid JSON aside.
func newRecord(msg llm.Message) record {
	rec := record{Time: time.Now().UTC(), Message: &msg}
	for i, p := range msg.Parts {
		if len(p.Input) > 0 && !json.Valid(p.Input) {
			if rec.RawInputs == nil {
				msg.Parts = append([]llm.Part(nil), msg.Parts...)
				rec.RawInputs = map[int]string{}
			}
			rec.RawInputs[i] = string(p.Input)
			msg.Parts[i].Input = nil
		}
	}
	return rec
}

// message unwraps the record, restoring raw arguments.
func (r record) message() llm.Message {
	msg := *r.Message
	for i, raw := range r.RawInputs {
		if i >= 0 && i < len(msg.Parts) {
			msg.Parts[i].Input = json.RawMessage(raw)
		}
	}
	return msg
}

// Session is an open transcript that messages are appended to.
type Session struct {
	mu       sync.Mutex
	meta     Meta
	dir      string
	file     *os.File
	history  []llm.Message
	warnings []string
	fullRuns map[string]float64
	goal     json.RawMessage
}

// Dir is the folder of session id.
func Dir(id string) string { return filepath.Join(config.HistoryDir(), id) }

// NewID returns an ID that sorts by creation time, e.g. 20261129-204501-ab12cd.
func NewID(now time.Time) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

// Create starts a new session for projectDir using model.
func Create(projectDir, model string) (*Session, error) {
	abs, err := filepath.Abs(projectDir)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	meta := Meta{ID: NewID(now), Created: now, ProjectDir: abs, Model: model}
	dir := Dir(meta.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	if err := writeMeta(dir, meta); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, transcriptName), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	// The new transcript's name and the session folder's must survive a
	// crash too, or a synced line could sit in a file nobody finds.
	if err := errors.Join(durable.SyncDir(dir), durable.SyncDir(filepath.Dir(dir))); err != nil {
		f.Close()
		return nil, fmt.Errorf("session: %w", err)
	}
	return &Session{meta: meta, dir: dir, file: f}, nil
}

// Open reopens session id to continue it: its messages are loaded and new
// ones are appended to the same transcript. A half-written last line left
// by a crash is moved to transcript.jsonl.partial and reported in Warnings.
func Open(id string) (*Session, error) {
	t, err := Read(id)
	if err != nil {
		return nil, err
	}
	dir := Dir(t.Meta.ID)
	path := filepath.Join(dir, transcriptName)
	if t.partial != nil {
		if err := setAsidePartial(path, t.partial, t.validSize); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	return &Session{meta: t.Meta, dir: dir, file: f, history: t.Messages, warnings: t.Warnings, fullRuns: t.FullRuns, goal: t.Goal}, nil
}

// ID is the session's ID.
func (s *Session) ID() string { return s.meta.ID }

// Meta returns the session's description.
func (s *Session) Meta() Meta {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.meta
}

// Dir is the session's folder.
func (s *Session) Dir() string { return s.dir }

// Warnings are problems found while loading (a truncated last line).
func (s *Session) Warnings() []string { return s.warnings }

// Append writes msg as one line and syncs it to disk before returning.
// The first user message with text becomes the session's first prompt.
func (s *Session) Append(msg llm.Message) error {
	line, err := json.Marshal(newRecord(msg))
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	line = append(line, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return errors.New("session: closed")
	}
	// One write call per line: a crash leaves at most this line torn.
	if _, err := s.file.Write(line); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	if err := durable.Sync(s.file); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	s.history = append(s.history, msg)
	if s.meta.FirstPrompt == "" && msg.Role == llm.User {
		if text := strings.TrimSpace(msg.TextOf()); text != "" {
			s.meta.FirstPrompt = text
			return writeMeta(s.dir, s.meta)
		}
	}
	return nil
}

// FullRuns are the full-run durations recorded in the session so far,
// by check key.
func (s *Session) FullRuns() map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]float64, len(s.fullRuns))
	for k, v := range s.fullRuns {
		out[k] = v
	}
	return out
}

// RecordFullRun appends a full-run measurement to the transcript, so a
// later turn (--continue, --resume) still knows the suite is fast.
func (s *Session) RecordFullRun(key string, secs float64) error {
	line, err := json.Marshal(record{Time: time.Now().UTC(), FullRun: &FullRun{Key: key, Secs: secs}})
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return errors.New("session: closed")
	}
	if _, err := s.file.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	if s.fullRuns == nil {
		s.fullRuns = map[string]float64{}
	}
	s.fullRuns[key] = secs
	return durable.Sync(s.file)
}

// Goal is the session's goal as last recorded (its JSON), nil when none
// was set or the last was cleared.
func (s *Session) Goal() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.goal
}

// RecordGoal appends the goal (its JSON; nil clears it) to the transcript,
// so --resume and --continue keep it.
func (s *Session) RecordGoal(g json.RawMessage) error {
	if g == nil {
		g = json.RawMessage("null")
	}
	line, err := json.Marshal(record{Time: time.Now().UTC(), Goal: g})
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return errors.New("session: closed")
	}
	if _, err := s.file.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	s.goal = goalOrNil(g)
	return durable.Sync(s.file)
}

// goalOrNil maps a recorded "null" (cleared) to no goal.
func goalOrNil(g json.RawMessage) json.RawMessage {
	if string(g) == "null" {
		return nil
	}
	return g
}

// History returns the conversation so far: loaded plus appended messages.
func (s *Session) History() ([]llm.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Message(nil), s.history...), nil
}

// Close closes the transcript; later Appends fail.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file = nil
	return err
}

// writeMeta replaces meta.json atomically and durably: a crash leaves the
// old description or the new, never an empty file.
func writeMeta(dir string, m Meta) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	if err := durable.WriteFile(filepath.Join(dir, metaName), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	return nil
}
