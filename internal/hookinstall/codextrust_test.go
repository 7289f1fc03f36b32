package hookinstall

import (
	"strings"
	"testing"
)

// TestCodexHash: the hashes Codex CLI 0.171.0 itself reported
// (codex app-server, hooks/list, currentHash) for chanto's hooks.
func TestCodexHash(t *testing.T) {
	for _, c := range []struct {
		event, matcher string
		timeout        int
		want           string
	}{
		{"Stop", "", 600, "sha256:364f45061fd7743ad57b618f52ee23d9d88c9f1fabc9da0f056adbe4c7998fe9"},
		{"Stop", "", 0, "sha256:364f45061fd7743ad57b618f52ee23d9d88c9f1fabc9da0f056adbe4c7998fe9"},
		{"PostToolUse", "Bash|apply_patch", 0, "sha256:27a328ab117692320e7d2f6a5679191637114353f5dd601acf838b7f0ee97a50"},
		{"SessionStart", "", 0, "sha256:c7a9213dbfc2282ce25d089ea86bfcc56d2c6bd7ba8f774b6e423b288c90e4ab"},
		{"UserPromptSubmit", "", 0, "sha256:87371def564302789496d2cfc06463145f58ee06cd697376e46d08e3298b26d8"},
		{"SubagentStop", "", 0, "sha256:f8471490eeae0ed2625abdcf1ef39ebabeff112620204dfcec47e1a1654797be"},
	} {
		if got := codexHash(c.event, c.matcher, "chanto hook codex", c.timeout); got != c.want {
			t.Errorf("%s %q: %s, want %s", c.event, c.matcher, got, c.want)
		}
	}
}

const userConfig = `model = "gpt-5"
approval_policy = "on-request"

[projects."/home/me/proj"]
trust_level = "trusted"

[hooks.state."/home/me/.codex/hooks.json:stop:0:0"]
enabled = false
`

// TestTrustRoundTrip: approvals are added after what the file holds and
// removed again to the same bytes; an approval already there is kept.
func TestTrustRoundTrip(t *testing.T) {
	src, _, _ := install(nil, Codex, "chanto hook codex")
	path := "/home/me/proj/.codex/hooks.json"
	approvals, err := codexApprovals(path, src)
	if err != nil || len(approvals) != len(Codex.hooks()) {
		t.Fatalf("%d approvals, %v", len(approvals), err)
	}
	trusted, n, err := trustCodex([]byte(userConfig), approvals)
	if err != nil || n != len(approvals) {
		t.Fatalf("trust: %d, %v", n, err)
	}
	if !strings.HasPrefix(string(trusted), userConfig) {
		t.Errorf("the user's config changed:\n%s", trusted)
	}
	want := `[hooks.state."/home/me/proj/.codex/hooks.json:stop:0:0"]` + "\ntrusted_hash = \"sha256:364f45061fd7743ad57b618f52ee23d9d88c9f1fabc9da0f056adbe4c7998fe9\"\n"
	if !strings.Contains(string(trusted), want) {
		t.Errorf("no Stop approval:\n%s", trusted)
	}
	again, n, err := trustCodex(trusted, approvals)
	if err != nil || n != 0 || string(again) != string(trusted) {
		t.Errorf("a second trust changed it (%d, %v)", n, err)
	}
	back, n := untrustCodex(trusted, approvals)
	if n != len(approvals) || string(back) != userConfig {
		t.Errorf("untrust removed %d, gave:\n%q\nwant:\n%q", n, back, userConfig)
	}
	// Someone else's approval at a key: left alone.
	other := []approval{{Key: "/home/me/.codex/hooks.json:stop:0:0", Hash: "sha256:x"}}
	if out, n := untrustCodex([]byte(userConfig), other); n != 0 || string(out) != userConfig {
		t.Errorf("removed an approval that is not chanto's")
	}
}

// TestTrustExistingTable: a table already there for the key (disabled, or
// an older hash) gets the hash and keeps its other lines; untrust then
// takes only the hash.
func TestTrustExistingTable(t *testing.T) {
	a := []approval{{Key: "/home/me/.codex/hooks.json:stop:0:0", Hash: "sha256:new"}}
	out, n, err := trustCodex([]byte(userConfig), a)
	if err != nil || n != 1 {
		t.Fatalf("%d %v", n, err)
	}
	if !strings.Contains(string(out), "[hooks.state.\"/home/me/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:new\"\nenabled = false\n") {
		t.Errorf("got:\n%s", out)
	}
	back, n := untrustCodex(out, a)
	if n != 1 || string(back) != userConfig {
		t.Errorf("got:\n%s", back)
	}
}

// TestTrustRefused: config.toml that cannot take the tables is refused
// with a reason, never written half.
func TestTrustRefused(t *testing.T) {
	a := []approval{{Key: "/p/.codex/hooks.json:stop:0:0", Hash: "sha256:h"}}
	for src, want := range map[string]string{
		"model = \n":               "expected value",
		"hooks = { state = {} }\n": "written inline",
		"[hooks]\nstate = { \"/p/.codex/hooks.json:stop:0:0\" = { enabled = true } }\n": "written inline",
		"hooks.state.\"/p/.codex/hooks.json:stop:0:0\".enabled = true\n":                "is not written as a",
	} {
		_, _, err := trustCodex([]byte(src), a)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}
