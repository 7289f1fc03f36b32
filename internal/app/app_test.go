package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm/scripted"
	"github.com/chanto-dev/chanto/internal/sandbox"
)

// build starts an interactive session in a temp project playing script.
func build(t *testing.T, script string) (*Session, string) {
	t.Helper()
	t.Setenv("CHANTO_HOME", t.TempDir())
	dir := t.TempDir()
	sc, err := scripted.Parse("test.script", script)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := OpenTranscript(Reopen{}, dir, "scripted")
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Sandbox.Mode = sandbox.ModeOff
	s, err := Build(Options{Config: cfg, Cwd: dir, Provider: scripted.New(sc), Model: "scripted", Transcript: tr, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

// drive prompts and answers each question with the next answer, until the
// turn ends; it returns the questions asked.
func drive(t *testing.T, s *Session, prompt string, answers ...Answer) ([]Question, TurnEnd) {
	t.Helper()
	if err := s.Prompt(prompt); err != nil {
		t.Fatal(err)
	}
	var qs []Question
	timeout := time.After(time.Minute)
	for {
		select {
		case u := <-s.Updates():
			switch {
			case u.Question != nil:
				qs = append(qs, *u.Question)
				if len(answers) == 0 {
					t.Fatalf("unexpected question %+v", *u.Question)
				}
				s.Answer(u.Question.ID, answers[0])
				answers = answers[1:]
			case u.TurnEnd != nil:
				return qs, *u.TurnEnd
			}
		case <-timeout:
			t.Fatal("the turn did not end")
		}
	}
}

func TestQuestionsDecideToolCalls(t *testing.T) {
	s, dir := build(t, `call bash {"command":"touch yes.txt"}
---
call bash {"command":"touch no.txt"}
---
expect the user declined this call: not now
call bash {"command":"touch again.txt"}
---
call bash {"command":"touch again.txt"}
---
say done
`)
	qs, end := drive(t, s, "go", Answer{Allow: true}, Answer{Reason: "not now"}, Answer{Allow: true, Always: true})
	if end.Err != nil || end.Outcome.Answer != "done" {
		t.Fatalf("end = %+v", end)
	}
	// The third call was asked; the fourth ran on the "always" rule.
	if len(qs) != 3 || qs[0].Subject != "touch yes.txt" || qs[2].Suggest == "" {
		t.Fatalf("questions = %+v", qs)
	}
	for name, want := range map[string]bool{"yes.txt": true, "no.txt": false, "again.txt": true} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", name, err == nil, want)
		}
	}
	if got := s.Settings().Permissions.Allow; len(got) != 1 || !strings.Contains(got[0], "touch") {
		t.Errorf("allow rules = %v", got)
	}
}

func TestInterruptRefusesTheOpenQuestion(t *testing.T) {
	s, dir := build(t, `call bash {"command":"touch late.txt"}
---
say never
`)
	if err := s.Prompt("go"); err != nil {
		t.Fatal(err)
	}
	if err := s.Prompt("again"); err != ErrBusy {
		t.Fatalf("second Prompt = %v, want ErrBusy", err)
	}
	for u := range s.Updates() {
		if u.Question != nil {
			s.Interrupt()
		}
		if u.TurnEnd != nil {
			if u.TurnEnd.Err == nil {
				t.Fatal("an interrupted turn ended without an error")
			}
			break
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "late.txt")); err == nil {
		t.Fatal("the command ran after the interrupt")
	}
}

func TestSettingsReachTheGate(t *testing.T) {
	s, _ := build(t, "say hi\n")
	s.SetVerify(true)
	s.SetFull(true, "/verify full")
	s.AllowTestEdit("x_test.go")
	g := s.Settings().Gate
	if !g.Verify || !g.Full || g.FullReason != "/verify full" || len(g.AllowTestEdits) != 1 {
		t.Fatalf("gate settings = %+v", g)
	}
	if err := s.SetMode("plan"); err != nil || s.Settings().Permissions.Mode != "plan" {
		t.Fatalf("SetMode: %v, %+v", err, s.Settings().Permissions)
	}
}

// An "always" answer is saved for the project folder: the next session
// there runs the same command without asking; another folder still asks.
func TestAlwaysIsSavedForTheFolder(t *testing.T) {
	s, dir := build(t, `call bash {"command":"touch one.txt"}
---
say done
`)
	if _, end := drive(t, s, "go", Answer{Allow: true, Always: true}); end.Err != nil {
		t.Fatal(end.Err)
	}
	saved, err := config.SavedAllows(dir)
	if err != nil || len(saved) != 1 || !strings.Contains(saved[0], "touch") {
		t.Fatalf("saved = %v, %v", saved, err)
	}
	again := func(cwd string) []Question {
		sc, _ := scripted.Parse("again.script", "call bash {\"command\":\"touch one.txt\"}\n---\nsay done\n")
		tr, err := OpenTranscript(Reopen{}, cwd, "scripted")
		if err != nil {
			t.Fatal(err)
		}
		cfg := config.Default()
		cfg.Sandbox.Mode = sandbox.ModeOff
		s2, err := Build(Options{Config: cfg, Cwd: cwd, Provider: scripted.New(sc), Model: "scripted", Transcript: tr, Interactive: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		qs, end := drive(t, s2, "go", Answer{Allow: true})
		if end.Err != nil {
			t.Fatal(end.Err)
		}
		return qs
	}
	if qs := again(dir); len(qs) != 0 {
		t.Errorf("the saved rule did not apply: asked %+v", qs)
	}
	if qs := again(t.TempDir()); len(qs) != 1 {
		t.Errorf("another folder was not asked: %+v", qs)
	}
}
