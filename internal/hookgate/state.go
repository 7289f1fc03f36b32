package hookgate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/chanto-dev/chanto/internal/durable"
	"github.com/chanto-dev/chanto/internal/gate"
)

// Every hook event is its own chanto process, so what the gate knows of a
// turn lives on disk, one folder per agent session under the hooks history
// folder:
//
//	<agent>-<session>/state.json   the turn: key, root, runs, attempts, last ruling
//	<agent>-<session>/turn/        the turn-start snapshot (snapshot.Save)
//	<agent>-<session>/lock         held while one event is handled
//
// Sessions untouched for a week are removed when a turn starts.

const keepSessions = 7 * 24 * time.Hour

// sessionState is state.json.
type sessionState struct {
	Agent     Agent      `json:"agent"`
	SessionID string     `json:"session_id"`
	Turn      *turnState `json:"turn,omitempty"`
}

// turnState is what the gate remembers of the current turn.
type turnState struct {
	// Key is the agent's turn id ("" when it sends none).
	Key string `json:"key"`
	// FromSessionStart marks a snapshot taken at session start, standing
	// in for turns whose start no hook saw.
	FromSessionStart bool      `json:"from_session_start,omitempty"`
	Root             string    `json:"root"`
	Started          time.Time `json:"started"`
	// SnapshotErr is why no snapshot could be taken ("" when one was).
	SnapshotErr string        `json:"snapshot_error,omitempty"`
	Runs        []recordedRun `json:"runs,omitempty"`
	Reported    []string      `json:"reported,omitempty"`
	Attempts    int           `json:"attempts"`
	OnlyOldPush bool          `json:"only_old_push,omitempty"`
	Last        *lastRuling   `json:"last,omitempty"`
	// SentBack is the reason of the last blocked stop, until a stop is
	// allowed: gemini-cli hands it to the model as a new prompt, firing
	// BeforeAgent, which must not start a new turn.
	SentBack string `json:"sent_back,omitempty"`
}

// recordedRun is the model's own check run and the content digest of the
// change set right after it.
type recordedRun struct {
	gate.OwnRun
	Digest string `json:"digest"`
}

// lastRuling is the last gate run's verdict, kept so that a stop with
// nothing changed since gets the same verdict without running again.
type lastRuling struct {
	Digest   string `json:"digest"`
	Verified bool   `json:"verified"`
	Message  string `json:"message"`
}

// store is the hooks history folder.
type store struct{ dir string }

// sessionDir is one session's folder; the name is readable and safe
// whatever the agent's id holds.
func (s store) sessionDir(a Agent, session string) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, session)
	if len(name) > 64 || name != session || name == "" {
		sum := sha256.Sum256([]byte(session))
		name = name[:min(len(name), 40)] + "-" + hex.EncodeToString(sum[:8])
	}
	return filepath.Join(s.dir, string(a)+"-"+name)
}

// lock takes the session's lock: an agent may run hooks of parallel tool
// calls at once, and each reads and writes the same state.
func lock(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

func loadState(dir string) (*sessionState, error) {
	data, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return &sessionState{}, nil
	}
	if err != nil {
		return nil, err
	}
	var st sessionState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, errors.New("read " + filepath.Join(dir, "state.json") + ": " + err.Error())
	}
	return &st, nil
}

func saveState(dir string, st *sessionState) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return durable.WriteFile(filepath.Join(dir, "state.json"), data, 0o600)
}

// sweep removes sessions not touched for keepSessions, except keep.
func (s store) sweep(keep string, now time.Time) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		full := filepath.Join(s.dir, e.Name())
		if !e.IsDir() || full == keep {
			continue
		}
		if fi, err := os.Stat(filepath.Join(full, "state.json")); err == nil && now.Sub(fi.ModTime()) > keepSessions {
			os.RemoveAll(full)
		}
	}
}
