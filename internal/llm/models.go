package llm

import "strings"

// DefaultContextWindow is assumed for a model chanto does not know.
const DefaultContextWindow = 128000

// knownWindows maps model-name prefixes to context sizes; the longest
// matching prefix wins.
var knownWindows = map[string]int{
	"claude-":      200000,
	"gpt-5":        400000,
	"gpt-4.1":      1047576,
	"gpt-4o":       128000,
	"gpt-4-turbo":  128000,
	"gpt-4":        8192,
	"gpt-3.5":      16385,
	"o1":           200000,
	"o3":           200000,
	"o4-mini":      200000,
	"codex-mini":   200000,
	"gpt-oss":      131072,
	"qwen2.5-code": 32768,
}

// KnownContextWindow is the context size of a well-known model, or
// DefaultContextWindow. A provider's configured context_window overrides it.
func KnownContextWindow(model string) int {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 { // e.g. openrouter's "anthropic/claude-…"
		m = m[i+1:]
	}
	best, size := 0, DefaultContextWindow
	for prefix, n := range knownWindows {
		if strings.HasPrefix(m, prefix) && len(prefix) > best {
			best, size = len(prefix), n
		}
	}
	return size
}

// TotalInput is every prompt token of the call, cached or not: the
// figure to compare with the context window. Providers report InputTokens
// without the cached part.
func (u Usage) TotalInput() int64 {
	return u.InputTokens + u.CacheReadTokens + u.CacheCreateTokens
}
