package config

import (
	"path/filepath"
	"strings"
	"testing"
)

const teamProject = `[[team_checks]]
name = "lint"
command = "./scripts/lint"
paths = ["**/*.go"]

[[team_checks]]
name = "license"
command = "./scripts/license-headers"
timeout_secs = 30
`

func TestTeamChecksNeedTrust(t *testing.T) {
	_, proj := setup(t, "", teamProject)
	l, err := Load(LoadOptions{ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Config.TeamChecks) != 0 {
		t.Errorf("untrusted team checks applied: %+v", l.Config.TeamChecks)
	}
	want := ".chanto/config.toml sets team_checks; ignored because " + proj + " is not trusted (run: chanto trust " + proj + ")"
	if len(l.Warnings) != 1 || l.Warnings[0] != want {
		t.Errorf("warnings %q, want %q", l.Warnings, want)
	}
	if _, err := Trust(proj); err != nil {
		t.Fatal(err)
	}
	l, err = Load(LoadOptions{ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	tc := l.Config.TeamChecks
	if len(tc) != 2 || tc[0].Name != "lint" || tc[0].Paths[0] != "**/*.go" || tc[1].TimeoutSecs != 30 || len(l.Warnings) != 0 {
		t.Fatalf("team checks %+v, warnings %q", tc, l.Warnings)
	}
	s := source(l, "team_checks")
	if !strings.Contains(s.Value, `name = "lint"`) || !strings.HasPrefix(s.From, ProjectFile(proj)+":") {
		t.Errorf("chanto config shows %s from %s", s.Value, s.From)
	}
}

func TestTeamChecksAddUp(t *testing.T) {
	_, proj := setup(t, "[[team_checks]]\nname = \"mine\"\ncommand = \"true\"\n", teamProject)
	if _, err := Trust(proj); err != nil {
		t.Fatal(err)
	}
	l, err := Load(LoadOptions{ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	if tc := l.Config.TeamChecks; len(tc) != 3 || tc[0].Name != "mine" || tc[2].Name != "license" {
		t.Errorf("team checks %+v", tc)
	}
}

func TestTeamChecksBad(t *testing.T) {
	cases := []struct{ name, file, want string }{
		{"no name", "[[team_checks]]\ncommand = \"x\"\n", `:2: [[team_checks]] entry 1 has no name`},
		{"no command", "[[team_checks]]\nname = \"a\"\n[[team_checks]]\nname = \"b\"\ncommand = \"y\"\n", `:2: [[team_checks]] entry 1 has no command`},
		{"empty command", "[[team_checks]]\nname = \"a\"\ncommand = \" \"\n", `:3: team_checks.command: must not be empty`},
		{"same name", "[[team_checks]]\nname = \"a\"\ncommand = \"x\"\n[[team_checks]]\nname = \"a\"\ncommand = \"y\"\n", `:5: team_checks: two checks are named "a"`},
		{"bad glob", "[[team_checks]]\nname = \"a\"\ncommand = \"x\"\npaths = [\"[\"]\n", `:4: team_checks.paths: "[" is not a valid glob`},
		{"unknown key", "[[team_checks]]\nname = \"a\"\ncmd = \"x\"\n", `:3: unknown key "cmd" in [[team_checks]]`},
		{"zero timeout", "[[team_checks]]\nname = \"a\"\ncommand = \"x\"\ntimeout_secs = 0\n", `:4: team_checks.timeout_secs: must be greater than 0, got 0`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, proj := setup(t, c.file, "")
			_, err := Load(LoadOptions{ProjectDir: proj})
			want := filepath.Join(home, "config.toml") + c.want
			if err == nil || err.Error() != want {
				t.Fatalf("got %v, want %q", err, want)
			}
		})
	}
}
