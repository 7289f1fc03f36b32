package app

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/gate"
)

// Update is one thing that happened in the session; exactly one field is set.
type Update struct {
	// Event is an agent, gate or tool event (the stream-json schema).
	Event *event.Event
	// Question waits for Answer before the tool call it asks about runs.
	Question *Question
	// TurnEnd reports a turn started by Prompt.
	TurnEnd *TurnEnd
	// Notice is a line the user should read (a failed hook).
	Notice string
}

// Question asks the user whether a tool call may run.
type Question struct {
	ID   string
	Tool string
	// Input is the call's input, as the hooks left it.
	Input []byte
	// Subject is the command line or path judged; Why the rule's reason.
	Subject, Why string
	// Suggest is the allow rule "always" adds (empty: no "always").
	Suggest string
}

// Answer is the user's reply to a Question.
type Answer struct {
	Allow bool
	// Always adds the question's Suggest rule for the rest of the session.
	Always bool
	// Reason, on a refusal, is told to the model.
	Reason string
}

// TurnEnd is how a turn started by Prompt ended.
type TurnEnd struct {
	Outcome agent.Outcome
	Err     error
	// ContextUsed and ContextWindow are the conversation's size after the
	// turn and the model's window, in tokens (a face's "context left").
	ContextUsed, ContextWindow int
}

// ErrBusy is Prompt while a turn runs.
var ErrBusy = errors.New("a turn is running")

// turnControl tracks the running turn and its open questions.
type turnControl struct {
	mu        sync.Mutex
	cancel    context.CancelFunc
	done      chan struct{}
	questions map[string]chan Answer
	nextID    int
}

// Run takes prompt to a final answer (print mode).
func (s *Session) Run(ctx context.Context, prompt string) (agent.Outcome, error) {
	ctx, err := s.turns.start(ctx)
	if err != nil {
		return agent.Outcome{}, err
	}
	defer s.turns.end()
	return s.agent.Run(ctx, s.withGoal(prompt))
}

// Prompt starts a turn in the background; its end comes as a TurnEnd update.
func (s *Session) Prompt(prompt string) error {
	ctx, err := s.turns.start(context.Background())
	if err != nil {
		return err
	}
	prompt = s.withGoal(prompt)
	go func() {
		out, err := s.agent.Run(ctx, prompt)
		used, window := s.agent.ContextUse()
		s.turns.end()
		s.updates.push(Update{TurnEnd: &TurnEnd{Outcome: out, Err: err, ContextUsed: used, ContextWindow: window}})
	}()
	return nil
}

// Context is the conversation's size and the model's window, in tokens;
// while a turn runs it reports 0, 0 (the turn's end carries the figures).
func (s *Session) Context() (used, window int) {
	if s.Busy() {
		return 0, 0
	}
	return s.agent.ContextUse()
}

// Busy reports whether a turn is running.
func (s *Session) Busy() bool {
	s.turns.mu.Lock()
	defer s.turns.mu.Unlock()
	return s.turns.cancel != nil
}

// Interrupt cancels the running turn: the partial reply is kept, a running
// command's process group is killed, and open questions are refused.
func (s *Session) Interrupt() {
	s.turns.mu.Lock()
	defer s.turns.mu.Unlock()
	if s.turns.cancel != nil {
		s.turns.cancel()
	}
}

// Answer answers the question id; an unknown id (already answered, or
// the turn ended) is ignored.
func (s *Session) Answer(id string, a Answer) {
	s.turns.mu.Lock()
	ch := s.turns.questions[id]
	delete(s.turns.questions, id)
	s.turns.mu.Unlock()
	if ch != nil {
		ch <- a
	}
}

// ask puts q in Updates and waits for its answer or the end of the turn.
func (s *Session) ask(ctx context.Context, q Question) Answer {
	ch := make(chan Answer, 1)
	s.turns.mu.Lock()
	s.turns.nextID++
	q.ID = strconv.Itoa(s.turns.nextID)
	if s.turns.questions == nil {
		s.turns.questions = map[string]chan Answer{}
	}
	s.turns.questions[q.ID] = ch
	s.turns.mu.Unlock()
	s.updates.push(Update{Question: &q})
	select {
	case a := <-ch:
		return a
	case <-ctx.Done():
		s.turns.mu.Lock()
		delete(s.turns.questions, q.ID)
		s.turns.mu.Unlock()
		return Answer{}
	}
}

func (c *turnControl) start(parent context.Context) (context.Context, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		return nil, ErrBusy
	}
	ctx, cancel := context.WithCancel(parent)
	c.cancel, c.done = cancel, make(chan struct{})
	return ctx, nil
}

func (c *turnControl) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		c.cancel()
		close(c.done)
	}
	c.cancel = nil
}

// wait blocks until the running turn, if any, has ended.
func (c *turnControl) wait() {
	c.mu.Lock()
	done := c.done
	running := c.cancel != nil
	c.mu.Unlock()
	if running {
		<-done
	}
}

// Settings is what the gate and permissions do now (/status, the footer).
type Settings struct {
	Gate        gate.Settings
	Permissions config.Permissions
	// Gated is false for a schema run, which has no gate.
	Gated bool
}

// Settings returns the current settings.
func (s *Session) Settings() Settings {
	_, perms := s.perm.current()
	st := Settings{Permissions: perms, Gated: s.gate != nil}
	if s.gate != nil {
		st.Gate = s.gate.Settings()
	}
	return st
}

// SetVerify turns the done-gate on or off (/verify on|off).
func (s *Session) SetVerify(on bool) {
	if s.gate != nil {
		s.gate.SetVerify(on)
	}
}

// SetFull sets the gate's scope for the rest of the session (/verify
// full, /verify related); reason is what the evidence names.
func (s *Session) SetFull(full bool, reason string) {
	if s.gate != nil {
		s.gate.SetFull(full, reason)
	}
}

// AllowTestEdit lets the model change the test files at path; only the
// user calls it (/allow-test-edit, the test-edit question).
func (s *Session) AllowTestEdit(path string) {
	if s.gate != nil {
		s.gate.AllowTestEdit(path)
	}
}

// SetMode changes the permission mode (Shift+Tab).
func (s *Session) SetMode(mode string) error {
	_, perms := s.perm.current()
	perms.Mode = mode
	return s.perm.set(perms)
}
