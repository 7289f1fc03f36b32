package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/goal"
)

// ErrNoGate is SetGoal on a session without a gate (an --output-schema run).
var ErrNoGate = errors.New("this session has no done-gate (an --output-schema run), so it cannot hold a goal")

// startGoal sets the goal the options name, or takes back the one the
// resumed session had.
func (s *Session) startGoal() error {
	if s.opts.Goal != nil {
		return s.SetGoal(s.opts.Goal)
	}
	raw := s.opts.Transcript.Goal()
	if raw == nil || s.gate == nil {
		return nil
	}
	var g goal.Goal
	if err := json.Unmarshal(raw, &g); err != nil {
		return fmt.Errorf("session %s: its goal cannot be read: %w", s.ID(), err)
	}
	s.gate.SetGoal(&g)
	return nil
}

// SetGoal makes g the session's goal (nil clears it): it is kept in the
// transcript, told to stream-json readers (goal.set), given to the model
// with each prompt, and its criteria run after the checks pass.
func (s *Session) SetGoal(g *goal.Goal) error {
	if s.gate == nil {
		return ErrNoGate
	}
	if g != nil {
		if err := g.Validate(); err != nil {
			return err
		}
	}
	var raw json.RawMessage
	info := &event.Goal{Criteria: []string{}, Cleared: true}
	if g != nil {
		var err error
		if raw, err = json.Marshal(g); err != nil {
			return err
		}
		info = g.Info()
	}
	if err := s.opts.Transcript.RecordGoal(raw); err != nil {
		return fmt.Errorf("record the goal: %w", err)
	}
	s.gate.SetGoal(g)
	s.sink().Emit(event.Event{Type: event.GoalSet, SessionID: s.ID(), Time: time.Now().UTC(), Goal: info})
	return nil
}

// Goal is the session's goal, nil when none is set.
func (s *Session) Goal() *goal.Goal {
	if s.gate == nil {
		return nil
	}
	return s.gate.Goal()
}

// withGoal puts the goal after the user's prompt, so the model knows
// what will be checked (and the session list still shows the prompt).
func (s *Session) withGoal(prompt string) string {
	g := s.Goal()
	if g == nil {
		return prompt
	}
	return prompt + "\n\n" + g.Prompt()
}
