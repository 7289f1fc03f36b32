package llm

import (
	"math"
	"testing"
)

func TestKnownPrice(t *testing.T) {
	for _, c := range []struct {
		model string
		input float64
		ok    bool
	}{
		{"claude-sonnet-4-5", 3, true},
		{"claude-opus-4-5-20251101", 5, true}, // the longest prefix, not claude-opus-4
		{"claude-opus-4-1", 15, true},
		{"anthropic/claude-haiku-4-5", 1, true},
		{"gpt-5-mini", 0.25, true},
		{"GPT-5", 1.25, true},
		{"qwen2.5-coder", 0, false},
		{"test", 0, false},
	} {
		p, ok := KnownPrice(c.model)
		if ok != c.ok || p.Input != c.input {
			t.Errorf("KnownPrice(%q) = %v, %v; want input %v, %v", c.model, p, ok, c.input, c.ok)
		}
	}
}

func TestPriceCost(t *testing.T) {
	p, _ := KnownPrice("claude-sonnet-4-5")
	got := p.Cost(Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadTokens: 2_000_000, CacheCreateTokens: 100_000})
	// 3 + 1.5 + 0.6 + 0.375
	if math.Abs(got-5.475) > 1e-9 {
		t.Errorf("cost = %v, want 5.475", got)
	}
}
