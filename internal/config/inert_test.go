package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// A key that does nothing yet warns when set, once, naming where; left at
// its default (or set to it) it says nothing.
func TestNotYetInEffectWarns(t *testing.T) {
	home, proj := setup(t, "oracle_model = \"openai/gpt-5\"\n\n[guardrails]\noracle = true\n", "")
	l, err := Load(LoadOptions{ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(home, "config.toml")
	want := []string{
		`oracle_model = "openai/gpt-5" (` + user + `:1) is not yet in effect: the oracle reviewer is not built yet`,
		`guardrails.oracle = true (` + user + `:4) is not yet in effect: the oracle reviewer is not built yet`,
	}
	if strings.Join(l.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(l.Warnings, "\n"), strings.Join(want, "\n"))
	}
	if s := source(l, "guardrails.oracle"); !s.NotInEffect {
		t.Errorf("guardrails.oracle not marked: %+v", s)
	}
	if s := source(l, "model"); s.NotInEffect {
		t.Errorf("model marked not in effect: %+v", s)
	}

	_, proj = setup(t, "[guardrails]\noracle = false\n", "")
	if l, err = Load(LoadOptions{ProjectDir: proj}); err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 0 {
		t.Errorf("default value warned: %q", l.Warnings)
	}
	l, err = Load(LoadOptions{ProjectDir: proj, Flags: []Flag{{Key: "guardrails.oracle", Value: true, Name: "--oracle"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "(flag --oracle)") {
		t.Errorf("flag: %q", l.Warnings)
	}
}
