package app

import (
	"encoding/json"
	"errors"
	"os"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/llm/provider"
	"github.com/chanto-dev/chanto/internal/session"
)

// LoadConfig reads the user and project configuration for the project
// holding cwd; the warnings name project keys ignored outside trust.
func LoadConfig(cwd string) (config.Config, []string, error) {
	l, err := config.Load(config.LoadOptions{ProjectDir: config.FindProjectRoot(cwd)})
	if err != nil {
		return config.Config{}, nil, err
	}
	return l.Config, l.Warnings, nil
}

// OpenProvider resolves a "provider/model" spec (or scripted:PATH); keys
// come from the environment.
func OpenProvider(spec string, cfg config.Config) (llm.Provider, string, error) {
	return provider.Open(spec, cfg, os.Getenv)
}

// Transcript is a session's record on disk (session.Session implements it).
type Transcript interface {
	ID() string
	Append(llm.Message) error
	History() ([]llm.Message, error)
	Warnings() []string
	Close() error
	// FullRuns and RecordFullRun keep the full-suite timings across runs
	// of the session (the gate's 30 s rule).
	FullRuns() map[string]float64
	RecordFullRun(key string, secs float64) error
	// Goal and RecordGoal keep the session's goal (its JSON; nil: none)
	// across runs of the session.
	Goal() json.RawMessage
	RecordGoal(json.RawMessage) error
}

var _ Transcript = (*session.Session)(nil)

// Reopen names an earlier session to continue: by id (--resume) or the
// latest in the folder (--continue). The zero value starts a new one.
type Reopen struct {
	ID     string
	Latest bool
}

// NoSessionError is a --resume or --continue with nothing to reopen.
type NoSessionError struct {
	Reopen Reopen
	Cwd    string
}

func (e *NoSessionError) Error() string {
	if e.Reopen.ID != "" {
		return "--resume " + e.Reopen.ID + ": no such session (chanto sessions lists them)"
	}
	return "--continue: no earlier session in " + e.Cwd
}

// OpenTranscript starts a new session in cwd, or reopens the one r names.
func OpenTranscript(r Reopen, cwd, model string) (Transcript, error) {
	switch {
	case r.ID != "":
		s, err := session.Open(r.ID)
		if errors.Is(err, session.ErrNotFound) {
			return nil, &NoSessionError{Reopen: r, Cwd: cwd}
		}
		return s, err
	case r.Latest:
		m, err := session.Latest(cwd)
		if errors.Is(err, session.ErrNotFound) {
			return nil, &NoSessionError{Reopen: r, Cwd: cwd}
		}
		if err != nil {
			return nil, err
		}
		return session.Open(m.ID)
	}
	return session.Create(cwd, model)
}
