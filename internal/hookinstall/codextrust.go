package hookinstall

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex runs a hook from hooks.json only once the user has approved it:
// its /hooks screen records, in the user's config.toml,
//
//	[hooks.state."/abs/path/.codex/hooks.json:stop:0:0"]
//	trusted_hash = "sha256:…"
//
// keyed by the file, the event and the hook's position, with a hash of the
// hook as Codex normalizes it (codex-rs/hooks/src/engine/discovery.rs:
// the event's label, the matcher and the one handler with its timeout
// filled in, as JSON with sorted keys, SHA-256). A hook whose hash does not
// match is skipped without a word. `install --trust` writes that record
// for chanto's own hooks, the approval the user would give in /hooks;
// checked against the hashes the real Codex CLI computes (codex app-server
// hooks/list, in the tests).

// codexLabel is Codex's key label for an event.
var codexLabel = map[string]string{
	"PreToolUse":        "pre_tool_use",
	"PermissionRequest": "permission_request",
	"PostToolUse":       "post_tool_use",
	"PreCompact":        "pre_compact",
	"PostCompact":       "post_compact",
	"SessionStart":      "session_start",
	"SessionEnd":        "session_end",
	"UserPromptSubmit":  "user_prompt_submit",
	"SubagentStart":     "subagent_start",
	"SubagentStop":      "subagent_stop",
	"Stop":              "stop",
}

// codexDefaultTimeout is the timeout Codex gives a hook that names none.
const codexDefaultTimeout = 600

// codexKey is the approval's key for the hook at f in hooks file path.
func codexKey(path string, f Found) string {
	return fmt.Sprintf("%s:%s:%d:%d", path, codexLabel[f.Event], f.Group, f.Handler)
}

// codexHash is the hash Codex computes for a command hook.
func codexHash(event, matcher, command string, timeout int) string {
	if timeout <= 0 {
		timeout = codexDefaultTimeout
	}
	id := map[string]any{
		"event_name": codexLabel[event],
		"hooks":      []any{map[string]any{"type": "command", "command": command, "timeout": timeout, "async": false}},
	}
	// Codex drops the matcher of events that have none.
	if matcher != "" && event != "UserPromptSubmit" && event != "Stop" {
		id["matcher"] = matcher
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // serde_json writes < > & as they are
	_ = enc.Encode(id)       // maps encode with sorted keys, as Codex canonicalizes
	sum := sha256.Sum256(bytes.TrimRight(b.Bytes(), "\n"))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// approval is one hook's record: key and hash.
type approval struct{ Key, Hash string }

// codexApprovals are the records chanto's hooks in a hooks.json need.
func codexApprovals(path string, src []byte) ([]approval, error) {
	root, err := parseJSON(src, false)
	if err != nil {
		return nil, err
	}
	found, err := scan(src, root, Codex, "")
	if err != nil {
		return nil, err
	}
	var out []approval
	for _, f := range found {
		out = append(out, approval{Key: codexKey(path, f), Hash: codexHash(f.Event, f.Matcher, f.Command, handlerTimeout(src, root, f))})
	}
	return out, nil
}

// handlerTimeout is the timeout the hook at f names (0: none).
func handlerTimeout(src []byte, root *value, f Found) int {
	h, _ := hooksObject(root)
	g := h.get(f.Event).elems[f.Group]
	var hd handler
	_ = decode(src, g.get("hooks").elems[f.Handler], &hd)
	return hd.Timeout
}

// codexConfig is what chanto reads of Codex's config.toml.
type codexConfig struct {
	Hooks struct {
		State map[string]struct {
			TrustedHash string `toml:"trusted_hash"`
			Enabled     *bool  `toml:"enabled"`
		} `toml:"state"`
	} `toml:"hooks"`
	Projects map[string]struct {
		TrustLevel string `toml:"trust_level"`
	} `toml:"projects"`
	Features map[string]any `toml:"features"`
}

func readCodexConfig(src []byte) (codexConfig, error) {
	var c codexConfig
	if _, err := toml.Decode(string(src), &c); err != nil {
		return c, err
	}
	return c, nil
}

// tomlKey quotes a key as a TOML basic string.
func tomlKey(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// header is the table line chanto writes for key.
func header(key string) string { return "[hooks.state." + tomlKey(key) + "]" }

// trustCodex adds the approvals to config.toml's text; ones already
// recorded with the same hash are left as they are.
func trustCodex(src []byte, want []approval) ([]byte, int, error) {
	cfg, err := readCodexConfig(src)
	if err != nil {
		return nil, 0, err
	}
	if inlineState(src) {
		return nil, 0, fmt.Errorf("hooks.state is written inline, where tables cannot be added; approve the hooks in Codex's /hooks instead")
	}
	added := 0
	for _, a := range want {
		st, ok := cfg.Hooks.State[a.Key]
		if ok && st.TrustedHash == a.Hash {
			continue
		}
		line := "trusted_hash = " + tomlKey(a.Hash)
		if lines, i := findTable(src, a.Key); i >= 0 {
			// A stale approval of chanto's own, from an older hook.
			j := tableEnd(lines, i)
			replaced := false
			for k := i + 1; k < j; k++ {
				if strings.HasPrefix(strings.TrimSpace(lines[k]), "trusted_hash") {
					lines[k], replaced = line, true
				}
			}
			if !replaced {
				lines = append(lines[:i+1], append([]string{line}, lines[i+1:]...)...)
			}
			src = []byte(strings.Join(lines, "\n"))
		} else if ok {
			return nil, 0, fmt.Errorf("hooks.state %s is not written as a %s table; approve the hook in Codex's /hooks instead", tomlKey(a.Key), header(a.Key))
		} else {
			if len(src) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
				src = append(src, '\n')
			}
			if len(bytes.TrimSpace(src)) > 0 {
				src = append(src, '\n')
			}
			src = append(src, header(a.Key)+"\n"+line+"\n"...)
		}
		added++
	}
	// The result must read back with every approval in place: a [hooks]
	// table written inline, say, cannot take the tables added.
	cfg, err = readCodexConfig(src)
	if err != nil {
		return nil, 0, fmt.Errorf("adding the approvals would break it (%v); approve the hooks in Codex's /hooks instead", err)
	}
	for _, a := range want {
		if cfg.Hooks.State[a.Key].TrustedHash != a.Hash {
			return nil, 0, fmt.Errorf("the approval of %s did not read back; approve the hooks in Codex's /hooks instead", a.Key)
		}
	}
	return src, added, nil
}

// untrustCodex removes the approvals of chanto's hooks: a table that
// holds nothing else goes whole, else only its trusted_hash line. An
// approval with another hash (someone else's hook now at that place) is
// left alone.
func untrustCodex(src []byte, drop []approval) ([]byte, int) {
	cfg, err := readCodexConfig(src)
	if err != nil {
		return src, 0
	}
	removed := 0
	for _, a := range drop {
		if cfg.Hooks.State[a.Key].TrustedHash != a.Hash {
			continue
		}
		lines, i := findTable(src, a.Key)
		if i < 0 {
			continue
		}
		j := tableEnd(lines, i)
		only := true
		for k := i + 1; k < j; k++ {
			t := strings.TrimSpace(lines[k])
			if t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "trusted_hash") {
				only = false
			}
		}
		if only {
			start := i
			if start > 0 && strings.TrimSpace(lines[start-1]) == "" {
				start-- // the blank line trustCodex put before it
			}
			for j > i+1 && strings.TrimSpace(lines[j-1]) == "" {
				j--
			}
			lines = append(lines[:start], lines[j:]...)
		} else {
			for k := i + 1; k < j; k++ {
				if strings.HasPrefix(strings.TrimSpace(lines[k]), "trusted_hash") {
					lines = append(lines[:k], lines[k+1:]...)
					break
				}
			}
		}
		src = []byte(strings.Join(lines, "\n"))
		removed++
	}
	return src, removed
}

// inlineState reports whether hooks or hooks.state is an inline table
// ({ … }), which TOML closes to the [hooks.state."…"] tables added after.
func inlineState(src []byte) bool {
	table := ""
	for _, l := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			table = strings.Trim(t, "[] ")
			continue
		}
		key, val, ok := strings.Cut(t, "=")
		if !ok || !strings.HasPrefix(strings.TrimSpace(val), "{") {
			continue
		}
		key = strings.ReplaceAll(strings.TrimSpace(key), " ", "")
		if (table == "" && (key == "hooks" || key == "hooks.state")) || (table == "hooks" && key == "state") {
			return true
		}
	}
	return false
}

// findTable splits src into lines and finds the table header for key.
func findTable(src []byte, key string) ([]string, int) {
	lines := strings.Split(string(src), "\n")
	h := header(key)
	for i, l := range lines {
		if strings.TrimSpace(l) == h {
			return lines, i
		}
	}
	return lines, -1
}

// tableEnd is the line after the table starting at line i.
func tableEnd(lines []string, i int) int {
	for j := i + 1; j < len(lines); j++ {
		if strings.HasPrefix(strings.TrimSpace(lines[j]), "[") {
			return j
		}
	}
	return len(lines)
}
