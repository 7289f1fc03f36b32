package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/chanto-dev/chanto/internal/config"
)

// fullReason names what asked for the full suite: the flag, or the
// setting and the file it is in (`scope = "full" in ~/.chanto/config.toml`).
func fullReason(l *config.Loaded, flag bool) string {
	if flag {
		return "--verify-full"
	}
	return scopeSetting(l)
}

// scopeSetting is `scope = "full"` and where it was set.
func scopeSetting(l *config.Loaded) string {
	const setting = `scope = "full"`
	for _, src := range l.Sources() {
		if src.Key != "guardrails.scope" || src.From == "default" || strings.HasPrefix(src.From, "flag ") {
			continue
		}
		file := src.From
		if i := strings.LastIndexByte(file, ':'); i > 0 {
			if _, err := strconv.Atoi(file[i+1:]); err == nil {
				file = file[:i]
			}
		}
		if home, err := os.UserHomeDir(); err == nil && home != "" {
			if rest, ok := strings.CutPrefix(file, home+string(filepath.Separator)); ok {
				file = "~/" + filepath.ToSlash(rest)
			}
		}
		return setting + " in " + file
	}
	return setting
}
