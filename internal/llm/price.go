package llm

import "strings"

// Price is what a model's tokens cost, in US dollars per million.
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
}

// knownPrices are the providers' list prices (late 2025) by model-name
// prefix; the longest matching prefix wins. This is the one place chanto
// knows them: a model not here is shown in tokens only, never guessed.
// OpenAI charges no premium for writing its cache.
var knownPrices = map[string]Price{
	"claude-opus-4-5":   {5, 25, 0.50, 6.25},
	"claude-opus-4":     {15, 75, 1.50, 18.75},
	"claude-sonnet-4":   {3, 15, 0.30, 3.75},
	"claude-3-7-sonnet": {3, 15, 0.30, 3.75},
	"claude-haiku-4-5":  {1, 5, 0.10, 1.25},
	"claude-3-5-haiku":  {0.80, 4, 0.08, 1},
	"gpt-5":             {1.25, 10, 0.125, 1.25},
	"gpt-5-mini":        {0.25, 2, 0.025, 0.25},
	"gpt-5-nano":        {0.05, 0.40, 0.005, 0.05},
	"gpt-4.1":           {2, 8, 0.50, 2},
	"gpt-4.1-mini":      {0.40, 1.60, 0.10, 0.40},
	"gpt-4.1-nano":      {0.10, 0.40, 0.025, 0.10},
	"gpt-4o":            {2.50, 10, 1.25, 2.50},
	"gpt-4o-mini":       {0.15, 0.60, 0.075, 0.15},
	"o3":                {2, 8, 0.50, 2},
	"o4-mini":           {1.10, 4.40, 0.275, 1.10},
}

// KnownPrice is the list price of a well-known model; false for any other
// (local models, proxies' own names, the scripted model).
func KnownPrice(model string) (Price, bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 { // e.g. openrouter's "anthropic/claude-…"
		m = m[i+1:]
	}
	best, price := 0, Price{}
	for prefix, p := range knownPrices {
		if strings.HasPrefix(m, prefix) && len(prefix) > best {
			best, price = len(prefix), p
		}
	}
	return price, best > 0
}

// Cost is what u costs at p, in US dollars.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*p.CacheRead + float64(u.CacheCreateTokens)*p.CacheWrite) / 1e6
}
