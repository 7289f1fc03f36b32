package main

import (
	"debug/buildinfo"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// build names what judged a -chanto row: the chanto binary's commit and
// the harness's own, so rows of different builds are never mixed unseen.
type build struct {
	Chanto  string `json:"chanto"`
	Harness string `json:"harness"`
}

// chantoRevision is the commit a chanto binary was built from: -build if
// given, else the binary's VCS stamp, else the name's suffix after
// "chanto-" (a binary built from an exported tree carries no stamp, so
// the convention is /tmp/bench/chanto-<rev>), else "unknown".
func chantoRevision(binary, flag string) string {
	if flag != "" {
		return flag
	}
	if info, err := buildinfo.ReadFile(binary); err == nil {
		if rev := vcsRevision(info.Settings); rev != "" {
			return rev
		}
	}
	if rev, ok := strings.CutPrefix(filepath.Base(binary), "chanto-"); ok && rev != "" {
		return rev
	}
	return "unknown"
}

// harnessCommit is set at link time where builds carry no VCS stamp
// (GOFLAGS=-buildvcs=false): -ldflags "-X main.harnessCommit=$(git rev-parse --short HEAD)".
var harnessCommit string

// harnessRevision is harnessCommit, else this program's own VCS stamp
// ("+dirty" when built from a modified tree), else "unknown".
func harnessRevision() string {
	if harnessCommit != "" {
		return harnessCommit
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		if rev := vcsRevision(info.Settings); rev != "" {
			return rev
		}
	}
	return "unknown"
}

func vcsRevision(settings []debug.BuildSetting) string {
	var rev, modified string
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 7 {
		rev = rev[:7]
	}
	if modified == "true" {
		rev += "+dirty"
	}
	return rev
}

// loadAverage is the one-minute load average, 0 where it cannot be read.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _, _ := strings.Cut(string(data), " ")
	v, _ := strconv.ParseFloat(f, 64)
	return v
}
