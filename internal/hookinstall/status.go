package hookinstall

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// Entry is what one agent's settings file at one scope holds of chanto.
type Entry struct {
	Agent Agent
	Scope Scope
	// File is the settings file, as the user reads its path.
	File string
	// Exists is false when there is no such file.
	Exists bool
	// Found are chanto's hooks in it.
	Found []Found
	// Missing are the events install would add; Outdated the ones whose
	// entry differs from what install writes now (a matcher of an older
	// version, a chanto path that is gone).
	Missing, Outdated []string
	// Approved and Unapproved count chanto's Codex hooks with and without
	// an approval Codex accepts.
	Approved, Unapproved int
	// Err is a file that could not be read or parsed.
	Err error
	// Off says the agent's hooks are turned off where it reads them.
	Off string
}

// Installed reports whether every event is there and current.
func (e Entry) Installed() bool {
	return e.Err == nil && len(e.Found) > 0 && len(e.Missing) == 0 && len(e.Outdated) == 0
}

// Status reads every agent's settings at both scopes; command is what
// install would write, to tell current entries from outdated ones.
func Status(p Paths, command func(Agent) string) []Entry {
	var out []Entry
	for _, a := range Agents {
		for _, s := range []Scope{Project, User} {
			out = append(out, status(p, a, s, command(a)))
		}
	}
	return out
}

func status(p Paths, a Agent, s Scope, command string) Entry {
	path := p.File(a, s)
	e := Entry{Agent: a, Scope: s, File: p.show(path, s)}
	src, _, err := readFile(path)
	if err != nil || src == nil {
		e.Err = err
		return e
	}
	e.Exists = true
	root, err := parseJSON(src, a.comments())
	if err != nil {
		e.Err = err
		return e
	}
	if e.Found, e.Err = scan(src, root, a, command); e.Err != nil {
		return e
	}
	if h, _ := hooksObject(root); h != nil {
		// What install would refuse, status says too.
		for _, hk := range a.hooks() {
			if l := h.get(hk.Event); l != nil && l.kind != '[' {
				e.Err = fmt.Errorf("hooks.%s is not a list", hk.Event)
				return e
			}
		}
	}
	e.Off = hooksOff(src, root, a)
	if len(e.Found) == 0 {
		return e
	}
	for _, hk := range a.hooks() {
		mine := filter(e.Found, hk.Event)
		switch {
		case len(mine) == 0:
			e.Missing = append(e.Missing, hk.Event)
		case len(mine) > 1 || !mine[0].Current && !(mine[0].Shaped && runnable(mine[0].Command)):
			// An entry install would write but for a command that runs
			// (--command, a chanto elsewhere on this machine) is
			// installed; one whose program is gone is not.
			e.Outdated = append(e.Outdated, hk.Event)
		}
	}
	if a == Codex {
		e.Approved, e.Unapproved = codexApproved(p, path, src)
		if e.Off == "" {
			e.Off = codexOff(p, s)
		}
	}
	if a == Gemini && s == Project && e.Off == "" && !geminiTrusts(p) {
		e.Off = geminiUntrusted
	}
	return e
}

// hooksOff reads the switches that turn an agent's hooks off in its own
// settings file.
func hooksOff(src []byte, root *value, a Agent) string {
	var off bool
	switch a {
	case Claude:
		if v := root.get("disableAllHooks"); v != nil && decode(src, v, &off) == nil && off {
			return `"disableAllHooks": true`
		}
	case Gemini:
		var on bool
		if v := root.get("hooksConfig").get("enabled"); v != nil && decode(src, v, &on) == nil && !on {
			return `"hooksConfig": {"enabled": false}`
		}
	}
	return ""
}

// codexApproved counts chanto's hooks in a hooks.json with and without a
// matching approval in config.toml.
func codexApproved(p Paths, path string, src []byte) (yes, no int) {
	approvals, err := codexApprovals(path, src)
	if err != nil {
		return 0, len(approvals)
	}
	cfgSrc, _, _ := readFile(p.CodexConfig())
	cfg, _ := readCodexConfig(cfgSrc)
	for _, a := range approvals {
		if cfg.Hooks.State[a.Key].TrustedHash == a.Hash {
			yes++
		} else {
			no++
		}
	}
	return yes, no
}

// codexOff says why Codex would not read chanto's hooks: hooks turned
// off, or (for the project file) a project it does not trust.
func codexOff(p Paths, s Scope) string {
	src, _, _ := readFile(p.CodexConfig())
	cfg, err := readCodexConfig(src)
	if err != nil {
		return ""
	}
	for _, k := range []string{"hooks", "codex_hooks"} {
		if on, ok := cfg.Features[k].(bool); ok && !on {
			return fmt.Sprintf("[features] %s = false in %s", k, p.show(p.CodexConfig(), User))
		}
	}
	if s == Project && cfg.Projects[p.Root].TrustLevel != "trusted" {
		return "Codex does not trust this project yet, and reads .codex/ only in one it trusts"
	}
	return ""
}

// installNotes are the steps the agent asks of the user before chanto's
// hooks run.
func installNotes(opts Options) []string {
	p := opts.Paths
	switch opts.Agent {
	case Claude:
		return []string{"Claude Code reads hooks when a session starts: start a new one (claude, then /hooks lists them)."}
	case Codex:
		var notes []string
		if opts.Trust {
			notes = append(notes, "Approved in "+p.show(p.CodexConfig(), User)+", as Codex's /hooks would: Codex runs them without asking.")
		} else {
			notes = append(notes, "Codex runs a new hook only once you approve it: start codex, open /hooks and trust chanto's hooks,",
				"or run chanto hook install codex"+scopeFlag(opts.Scope)+" --trust to record that approval in "+p.show(p.CodexConfig(), User)+".",
				"(codex exec --dangerously-bypass-hook-trust runs unapproved hooks for one run.)")
		}
		if off := codexOff(p, opts.Scope); off != "" {
			if strings.HasPrefix(off, "Codex does not trust") {
				off += ": answer its trust question when you start codex here, or add [projects." + tomlKey(p.Root) + "] trust_level = \"trusted\" to " + p.show(p.CodexConfig(), User)
			}
			notes = append(notes, off+".")
		}
		return notes
	}
	if opts.Scope == Project {
		notes := []string{"gemini-cli runs a project's hooks only in a folder you trust, and warns once when it first sees them."}
		if !geminiTrusts(p) {
			notes = append(notes, geminiUntrusted+": trust it when gemini asks (or with /permissions), which records it in "+p.show(p.geminiTrustedFolders(), User)+".")
		}
		return notes
	}
	return nil
}

const geminiUntrusted = "gemini-cli does not trust this folder yet"

// geminiTrustedFolders is gemini-cli's record of trusted folders.
func (p Paths) geminiTrustedFolders() string {
	return filepath.Join(filepath.Dir(p.File(Gemini, User)), "trustedFolders.json")
}

// geminiTrusts reports whether gemini-cli trusts the project folder, as
// it decides (the longest matching rule of trustedFolders.json; a
// TRUST_PARENT rule covers the folder above it), or has folder trust off.
func geminiTrusts(p Paths) bool {
	if src, _, _ := readFile(p.File(Gemini, User)); src != nil {
		if root, err := parseJSON(src, true); err == nil {
			var on bool
			if v := root.get("security").get("folderTrust").get("enabled"); v != nil && decode(src, v, &on) == nil && !on {
				return true
			}
		}
	}
	src, _, _ := readFile(p.geminiTrustedFolders())
	var rules map[string]string
	if src == nil || json.Unmarshal(stripComments(src), &rules) != nil {
		return false
	}
	best, level := -1, ""
	for rule, l := range rules {
		dir := rule
		if l == "TRUST_PARENT" {
			dir = filepath.Dir(rule)
		}
		if rel, err := filepath.Rel(dir, p.Root); err == nil && !strings.HasPrefix(rel, "..") && len(rule) > best {
			best, level = len(rule), l
		}
	}
	return level == "TRUST_FOLDER" || level == "TRUST_PARENT"
}

func scopeFlag(s Scope) string {
	if s == User {
		return " --user"
	}
	return ""
}
