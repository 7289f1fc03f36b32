package config

import (
	"os"
	"path/filepath"
)

// Home is chanto's state folder: $CHANTO_HOME, else ~/.chanto. Tests set
// CHANTO_HOME so they never touch the real one. The path is cleaned: the
// sandbox hides this folder from commands by its path, and bubblewrap
// refused one spelled with a double slash.
func Home() string {
	if h := os.Getenv("CHANTO_HOME"); h != "" {
		return filepath.Clean(h)
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return filepath.Join(os.TempDir(), ".chanto")
	}
	return filepath.Join(home, ".chanto")
}

// HistoryDir is where sessions, transcripts and putback saves live.
func HistoryDir() string { return filepath.Join(Home(), "history") }
