package session

import (
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/llm"
)

// BenchmarkAppend measures one synced transcript line of about 1 KB.
func BenchmarkAppend(b *testing.B) {
	b.Setenv("CHANTO_HOME", b.TempDir())
	s, err := Create(b.TempDir(), "m/x")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	msg := llm.Message{Role: llm.User, Parts: []llm.Part{{Type: llm.ToolResult, ID: "t1", Text: strings.Repeat("output line\n", 80)}}}
	for b.Loop() {
		if err := s.Append(msg); err != nil {
			b.Fatal(err)
		}
	}
}
