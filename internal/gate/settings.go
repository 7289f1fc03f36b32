package gate

import "slices"

// The settings a face may change while the session runs: /verify on|off,
// /verify full|related and the user's approval of a test edit. They take
// effect from the next ruling; a turn in progress reads them as it goes.

// Settings is what the gate does now.
type Settings struct {
	Verify bool
	Full   bool
	// FullReason is what the evidence names as the reason for the full
	// suite when Full is set.
	FullReason     string
	AllowTestEdits []string
}

// Settings returns the current settings.
func (p *Policy) Settings() Settings {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Settings{Verify: p.opts.Verify, Full: p.opts.Full, FullReason: p.fullReason(), AllowTestEdits: slices.Clone(p.opts.AllowTestEdits)}
}

// SetVerify turns the done-gate on or off.
func (p *Policy) SetVerify(on bool) {
	p.mu.Lock()
	p.opts.Verify = on
	p.mu.Unlock()
}

// SetFull makes the gate run the full suite (true) or the related tests;
// reason is what the evidence names for the full suite ("/verify full").
func (p *Policy) SetFull(full bool, reason string) {
	p.mu.Lock()
	p.opts.Full, p.opts.FullReason = full, reason
	p.mu.Unlock()
}

// AllowTestEdit lets the model change the test files at path (a path or
// glob, as --allow-test-edits takes). Only the user calls it.
func (p *Policy) AllowTestEdit(path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.opts.AllowTestEdits, path) {
		p.opts.AllowTestEdits = append(slices.Clone(p.opts.AllowTestEdits), path)
	}
}
