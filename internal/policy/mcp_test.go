package policy

import (
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/config"
)

func TestMCPRules(t *testing.T) {
	cases := []struct {
		name  string
		perms config.Permissions
		tool  string
		want  Verdict
		rule  string
	}{
		{"default runs", config.Permissions{}, "mcp__memory__read_graph", Allow, "mode:default"},
		{"deny server", config.Permissions{Deny: []string{"mcp__github"}}, "mcp__github__create_issue", Deny, "mcp__github"},
		{"deny server, other server", config.Permissions{Deny: []string{"mcp__github"}}, "mcp__githubx__a", Allow, "mode:default"},
		{"deny wildcard", config.Permissions{Deny: []string{"mcp__github__*"}}, "mcp__github__create_issue", Deny, "mcp__github__*"},
		{"deny one tool", config.Permissions{Deny: []string{"mcp__github__delete_repo"}}, "mcp__github__create_issue", Allow, "mode:default"},
		{"ask", config.Permissions{Ask: []string{"mcp__fs__write_file"}}, "mcp__fs__write_file", Ask, "mcp__fs__write_file"},
		{"deny beats allow", config.Permissions{Allow: []string{"mcp__fs"}, Deny: []string{"mcp__fs__write_file"}}, "mcp__fs__write_file", Deny, "mcp__fs__write_file"},
		{"lockdown refuses unlisted", config.Permissions{Lockdown: true}, "mcp__fs__read_file", Deny, "lockdown"},
		{"lockdown runs listed", config.Permissions{Lockdown: true, Allow: []string{"mcp__fs__read_file"}}, "mcp__fs__read_file", Allow, "mcp__fs__read_file"},
		{"lockdown, other tool", config.Permissions{Lockdown: true, Allow: []string{"mcp__fs__read_file"}}, "mcp__fs__write_file", Deny, "lockdown"},
		{"plan refuses", config.Permissions{Mode: "plan"}, "mcp__fs__read_file", Deny, "mode:plan"},
		{"plan runs allowed", config.Permissions{Mode: "plan", Allow: []string{"mcp__fs__*"}}, "mcp__fs__read_file", Allow, "mcp__fs__*"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newPolicy(t, c.perms, t.TempDir(), true)
			d := p.Decide(c.tool, nil)
			if d.Verdict != c.want || d.Rule != c.rule {
				t.Errorf("%s: %s by %q (%s), want %s by %q", c.tool, d.Verdict, d.Rule, d.Reason, c.want, c.rule)
			}
		})
	}
}

func TestMCPLockdownReason(t *testing.T) {
	p := newPolicy(t, config.Permissions{Lockdown: true}, t.TempDir(), false)
	d := p.Decide("mcp__fs__read_file", nil)
	want := `mcp__fs__read_file refused: "mcp__fs__read_file" is not explicitly allowed and lockdown is on; an allow rule such as mcp__fs__read_file would let it run`
	if d.Reason != want {
		t.Errorf("reason = %q\nwant %q", d.Reason, want)
	}
}

func TestBadMCPRules(t *testing.T) {
	for _, r := range []string{"mcp__", "mcp__fs(read)", "mcp__a b"} {
		if _, err := New(config.Permissions{Allow: []string{r}}, t.TempDir(), false); err == nil || !strings.Contains(err.Error(), "rule") {
			t.Errorf("%q: err = %v", r, err)
		}
	}
}
