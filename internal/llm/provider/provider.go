// Package provider turns a --model spec ("anthropic/claude-sonnet-4-5",
// "local/qwen", "scripted:demo.txt") and the configuration into a ready
// llm.Provider: it resolves the wire, base URL and API key, and wraps real
// providers in the shared retry policy.
package provider

import (
	"fmt"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/llm/anthropic"
	"github.com/chanto-dev/chanto/internal/llm/openai"
	"github.com/chanto-dev/chanto/internal/llm/scripted"
)

// Wires chanto speaks.
const (
	WireAnthropic       = "anthropic"
	WireOpenAIChat      = string(openai.Chat)
	WireOpenAIResponses = string(openai.Responses)
)

// builtin are the providers known without configuration.
var builtin = map[string]config.Provider{
	"anthropic":        {Wire: WireAnthropic, APIKeyEnv: "ANTHROPIC_API_KEY"},
	"openai":           {Wire: WireOpenAIChat, APIKeyEnv: "OPENAI_API_KEY"},
	"openai-responses": {Wire: WireOpenAIResponses, APIKeyEnv: "OPENAI_API_KEY"},
}

// defaultKeyEnv is the key variable of each wire's home service.
var defaultKeyEnv = map[string]string{
	WireAnthropic:       "ANTHROPIC_API_KEY",
	WireOpenAIChat:      "OPENAI_API_KEY",
	WireOpenAIResponses: "OPENAI_API_KEY",
}

// ScriptedPrefix introduces a scripted model spec.
const ScriptedPrefix = "scripted:"

// Options tunes Open beyond the configuration; the zero value is fine.
type Options struct {
	// Retry is passed to llm.WithRetry for real providers.
	Retry llm.RetryOptions
}

// Open resolves spec against cfg and returns the provider and the model
// name to put in requests. getenv reads API keys (os.Getenv in production).
// Open touches no network: every error it returns is a setup mistake the
// user must fix (bad spec, unknown provider or wire, missing key, script
// syntax), worded as one line that names it.
func Open(spec string, cfg config.Config, getenv func(string) string) (llm.Provider, string, error) {
	return OpenWith(spec, cfg, getenv, Options{})
}

// OpenWith is Open with options.
func OpenWith(spec string, cfg config.Config, getenv func(string) string, opts Options) (llm.Provider, string, error) {
	if path, ok := strings.CutPrefix(spec, ScriptedPrefix); ok {
		if path == "" {
			return nil, "", fmt.Errorf("--model %q: scripted: needs a file, e.g. scripted:demo.txt", spec)
		}
		m, err := scripted.Open(path)
		if err != nil {
			return nil, "", err
		}
		return m, "scripted", nil
	}
	name, model, ok := strings.Cut(spec, "/")
	if !ok || name == "" || model == "" {
		return nil, "", fmt.Errorf("--model %q: want PROVIDER/MODEL (e.g. anthropic/claude-sonnet-4-5) or scripted:FILE", spec)
	}
	pc, known := resolve(name, cfg)
	if !known {
		return nil, "", fmt.Errorf("unknown provider %q in --model %q (known: %s)", name, spec, strings.Join(Known(cfg), ", "))
	}
	if pc.BaseURL == "" {
		// The variables the official SDKs and other agents honour: a user
		// pointing every tool at a proxy or a local server sets them once.
		pc.BaseURL = strings.TrimSpace(getenv(baseURLEnv[pc.Wire]))
	}
	key, err := apiKey(name, spec, pc, getenv)
	if err != nil {
		return nil, "", err
	}
	var p llm.Provider
	switch pc.Wire {
	case WireAnthropic:
		p = anthropic.New(anthropic.Options{Name: name, APIKey: key, KeyEnv: keyEnv(name, pc),
			BaseURL: pc.BaseURL, ContextWindow: pc.ContextWindow})
	case WireOpenAIChat, WireOpenAIResponses:
		p = openai.New(openai.Options{Name: name, Wire: openai.Wire(pc.Wire), APIKey: key, KeyEnv: keyEnv(name, pc),
			BaseURL: pc.BaseURL, ContextWindow: pc.ContextWindow})
	case "":
		return nil, "", fmt.Errorf("provider %q: wire is not set (want %s, %s or %s)", name, WireAnthropic, WireOpenAIChat, WireOpenAIResponses)
	default:
		return nil, "", fmt.Errorf("provider %q: unknown wire %q (want %s, %s or %s)", name, pc.Wire, WireAnthropic, WireOpenAIChat, WireOpenAIResponses)
	}
	return llm.WithRetry(p, opts.Retry), model, nil
}

// baseURLEnv names the variable that moves a wire's default endpoint. It
// is the user's environment, never a project file.
var baseURLEnv = map[string]string{
	WireAnthropic:       "ANTHROPIC_BASE_URL",
	WireOpenAIChat:      "OPENAI_BASE_URL",
	WireOpenAIResponses: "OPENAI_BASE_URL",
}

// resolve merges a configured [providers.NAME] over the built-in entry of
// the same name, if any.
func resolve(name string, cfg config.Config) (config.Provider, bool) {
	b, isBuiltin := builtin[name]
	c, isConfigured := cfg.Providers[name]
	if !isConfigured {
		return b, isBuiltin
	}
	if c.Wire == "" {
		c.Wire = b.Wire
	}
	if c.APIKeyEnv == "" && isBuiltin {
		c.APIKeyEnv = b.APIKeyEnv
	}
	return c, true
}

// keyEnv names the variable a provider's key is read from ("" for none).
func keyEnv(name string, pc config.Provider) string {
	if pc.APIKeyEnv != "" {
		return pc.APIKeyEnv
	}
	if pc.BaseURL == "" {
		return defaultKeyEnv[pc.Wire]
	}
	return ""
}

// apiKey reads the key. A configured provider with its own base URL and no
// api_key_env is a local server: it needs no key, and the well-known keys
// are not sent to it.
func apiKey(name, spec string, pc config.Provider, getenv func(string) string) (string, error) {
	env := keyEnv(name, pc)
	if env == "" {
		return "", nil
	}
	key := strings.TrimSpace(getenv(env))
	if key == "" {
		_, isBuiltin := builtin[name]
		if pc.BaseURL != "" && pc.APIKeyEnv == builtin[name].APIKeyEnv && isBuiltin {
			return "", nil // a proxy in front of a known service may not need the key
		}
		return "", fmt.Errorf("%s is not set (needed for --model %s)", env, spec)
	}
	return key, nil
}

// Known lists the provider names usable in --model: built-in ones and
// configured ones, sorted.
func Known(cfg config.Config) []string {
	seen := map[string]bool{}
	for n := range builtin {
		seen[n] = true
	}
	for n := range cfg.Providers {
		seen[n] = true
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
