package provider

import (
	"testing"

	"github.com/chanto-dev/chanto/internal/llm/llmtest"
)

func newChatServer(t *testing.T) *llmtest.Server {
	return llmtest.NewServer(t, llmtest.Reply{Events: []string{
		llmtest.Data(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"qwen","choices":[{"index":0,"delta":{"role":"assistant","content":"hello"},"finish_reason":null}]}`),
		llmtest.Data(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"qwen","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
		llmtest.Data(`[DONE]`),
	}})
}
