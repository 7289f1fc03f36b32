package hookinstall

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/chanto-dev/chanto/internal/durable"
)

// A record is what install found in a settings file and what it wrote
// there, kept outside the file (Options.Record) so that uninstall can give
// back the very text the user had: an empty "hooks": {} or "Stop": [] that
// install filled, an empty file, are not told apart from ones install made
// by reading the file alone. The record counts only while the file still
// holds exactly what install wrote; after any other edit uninstall takes
// chanto's entries out of the text as it is.
type record struct {
	Path    string `json:"path"`
	Existed bool   `json:"existed"`
	Before  string `json:"before"`
	After   string `json:"after"`
}

func recordFile(dir, path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+".json")
}

// saveRecord keeps what install changed in path: before (nil when there
// was no file) and after. An install that changes a file chanto already
// wrote keeps the first before.
func saveRecord(dir, path string, before, after []byte) error {
	if dir == "" {
		return nil
	}
	r := record{Path: path, Existed: before != nil, Before: string(before), After: string(after)}
	if old, ok := loadRecord(dir, path); ok && old.After == string(before) {
		r.Existed, r.Before = old.Existed, old.Before
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return durable.WriteFile(recordFile(dir, path), data, 0o600)
}

func loadRecord(dir, path string) (record, bool) {
	var r record
	if dir == "" {
		return r, false
	}
	data, err := os.ReadFile(recordFile(dir, path))
	if err != nil || json.Unmarshal(data, &r) != nil {
		return r, false
	}
	return r, true
}

func dropRecord(dir, path string) {
	if dir != "" {
		os.Remove(recordFile(dir, path))
	}
}
