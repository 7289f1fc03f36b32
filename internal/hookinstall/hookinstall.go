// Package hookinstall writes chanto's done-gate into other agents' hook
// settings: `chanto hook install claude|codex|gemini [--user]` adds the
// entries that run `chanto hook AGENT` (internal/hookgate) on the events
// it answers, `uninstall` removes exactly those, and `status` says what is
// installed where.
//
// A settings file is edited as text (jsonc.go, jsonedit.go): entries are
// appended to the lists already there, the user's other hooks, keys,
// order, indentation and (for gemini-cli) comments are left byte for byte,
// and install followed by uninstall gives back the file it started from.
// A file that does not parse is an error naming it and the line, and is
// not touched. Codex approvals (codextrust.go) are the one edit outside
// the agent's settings file, and only when asked for.
package hookinstall

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/durable"
)

// Options say what to install, where.
type Options struct {
	Agent Agent
	Scope Scope
	Paths Paths
	// Command is what the hook runs: "chanto hook claude", or chanto's
	// path in place of chanto.
	Command string
	// Trust records the approval Codex asks for before it runs a new
	// hook (Codex only).
	Trust bool
	// Record is the folder where install keeps what it found in the file,
	// so that uninstall gives back the same text (record.go); "" keeps no
	// record.
	Record string
}

// Result is what an install or uninstall did.
type Result struct {
	// File is the settings file, as the user reads its path.
	File string
	// Added, Kept and Removed are the events whose entries were written,
	// already right, or taken out.
	Added, Kept, Removed []string
	// Created and Deleted are set when the file was made, or removed
	// because nothing else was in it.
	Created, Deleted bool
	// Approved counts the Codex approvals written (or removed).
	Approved int
	// Notes are the steps the agent itself asks of the user.
	Notes []string
}

// Install adds chanto's hooks to the agent's settings at the scope.
func Install(opts Options) (Result, error) {
	path := opts.Paths.File(opts.Agent, opts.Scope)
	res := Result{File: opts.Paths.show(path, opts.Scope)}
	src, mode, err := readFile(path)
	if err != nil {
		return res, err
	}
	out, ch, err := install(src, opts.Agent, opts.Command)
	if err != nil {
		return res, fmt.Errorf("%s: %w", res.File, err)
	}
	res.Added, res.Kept, res.Removed = ch.Added, ch.Kept, ch.Removed
	res.Created = src == nil
	var cfgOut []byte
	cfgPath := opts.Paths.CodexConfig()
	if opts.Agent == Codex && opts.Trust {
		approvals, err := codexApprovals(path, out)
		if err != nil {
			return res, fmt.Errorf("%s: %w", res.File, err)
		}
		cfg, _, err := readFile(cfgPath)
		if err != nil {
			return res, err
		}
		if cfgOut, res.Approved, err = trustCodex(cfg, approvals); err != nil {
			return res, fmt.Errorf("%s: %w", opts.Paths.show(cfgPath, User), err)
		}
		if res.Approved == 0 {
			cfgOut = nil
		}
	}
	if string(out) != string(src) {
		if err := writeFile(path, out, mode); err != nil {
			return res, err
		}
		if err := saveRecord(opts.Record, path, src, out); err != nil {
			return res, err
		}
	}
	if cfgOut != nil {
		if err := writeFile(cfgPath, cfgOut, 0o600); err != nil {
			return res, err
		}
	}
	res.Notes = installNotes(opts)
	return res, nil
}

// Uninstall removes every chanto hook from the agent's settings at the
// scope (and, for Codex, the approvals of them).
func Uninstall(opts Options) (Result, error) {
	path := opts.Paths.File(opts.Agent, opts.Scope)
	res := Result{File: opts.Paths.show(path, opts.Scope)}
	src, mode, err := readFile(path)
	if err != nil || src == nil {
		return res, err
	}
	var approvals []approval
	if opts.Agent == Codex {
		if approvals, err = codexApprovals(path, src); err != nil {
			return res, fmt.Errorf("%s: %w", res.File, err)
		}
	}
	out, ch, err := uninstall(src, opts.Agent)
	if err != nil {
		return res, fmt.Errorf("%s: %w", res.File, err)
	}
	res.Removed = unique(ch.Removed)
	if len(res.Removed) == 0 {
		return res, nil
	}
	rec, recorded := loadRecord(opts.Record, path)
	dropRecord(opts.Record, path)
	switch {
	case recorded && rec.After == string(src) && rec.Existed:
		// Untouched since install: the user's own text, byte for byte.
		if err := writeFile(path, []byte(rec.Before), mode); err != nil {
			return res, err
		}
	case recorded && rec.After == string(src), empty(out) && !(recorded && rec.Existed):
		// A file install made, or one left with nothing in it.
		if err := os.Remove(path); err != nil {
			return res, err
		}
		res.Deleted = true
		// The agent's folder too, when install made it for this file.
		_ = os.Remove(filepath.Dir(path))
	default:
		if err := writeFile(path, out, mode); err != nil {
			return res, err
		}
	}
	if len(approvals) > 0 {
		cfgPath := opts.Paths.CodexConfig()
		cfg, cmode, err := readFile(cfgPath)
		if err != nil || cfg == nil {
			return res, err
		}
		var cfgOut []byte
		cfgOut, n := untrustCodex(cfg, approvals)
		res.Approved = n
		switch {
		case n > 0 && len(strings.TrimSpace(string(cfgOut))) == 0:
			// Nothing but chanto's approvals was in it: install made it.
			if err := os.Remove(cfgPath); err != nil {
				return res, err
			}
		case n > 0:
			if err := writeFile(cfgPath, cfgOut, cmode); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// readFile reads a settings file: nil when it does not exist.
func readFile(path string) ([]byte, fs.FileMode, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return data, mode, nil
}

// writeFile replaces path atomically, making its folder if needed. A
// symlinked settings file (dotfiles kept elsewhere) is written where it
// points, so the link stays.
func writeFile(path string, data []byte, mode fs.FileMode) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return durable.WriteFile(path, data, mode)
}

func unique(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
