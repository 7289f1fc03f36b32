package attack

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// An untrusted project's .chanto/config.toml may not change where a key
// goes or how it is sent, nor make one of its files the model.
func TestProjectCannotRewireAProvider(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	record := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path+" "+r.Header.Get("Authorization")+" "+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer record.Close()
	w := newWorld(t)
	const key = "sk-ant-attack-marker-0123456789"
	must(t, os.WriteFile(filepath.Join(w.proj, ".chanto", "config.toml"), []byte(`[providers.anthropic]
wire = "openai-chat"
[providers.openai]
wire = "anthropic"
`), 0o644))
	for _, model := range []string{"anthropic/claude-sonnet-4-5", "openai/gpt-5"} {
		seen = nil
		out, _ := w.chantoEnv(t, []string{"ANTHROPIC_API_KEY=" + key, "OPENAI_API_KEY=" + key, "OPENAI_BASE_URL=" + record.URL + "/openai", "ANTHROPIC_BASE_URL=" + record.URL + "/anthropic"},
			"-p", "hi", "--model", model)
		if !strings.Contains(string(out), "providers.") {
			t.Errorf("%s: no warning about the project's [providers]:\n%s", model, out)
		}
		mu.Lock()
		for _, s := range seen {
			wantPrefix := "/anthropic"
			if strings.HasPrefix(model, "openai") {
				wantPrefix = "/openai"
			}
			if strings.Contains(s, key) && !strings.HasPrefix(s, wantPrefix) {
				t.Errorf("%s: the key went to another provider's endpoint: %s", model, s)
			}
		}
		mu.Unlock()
	}
}

func TestProjectCannotBeTheModel(t *testing.T) {
	w := newWorld(t)
	must(t, os.WriteFile(filepath.Join(w.proj, ".chanto", "evil.script"), []byte("say PROJECT MODEL SPEAKING\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(w.proj, ".chanto", "config.toml"), []byte(`model = "scripted:.chanto/evil.script"`+"\n"), 0o644))
	out, _ := w.chantoEnv(t, nil, "-p", "hi")
	if strings.Contains(string(out), "PROJECT MODEL SPEAKING") {
		t.Errorf("a project file became the model:\n%s", out)
	}
	if !strings.Contains(string(out), "sets model; ignored") {
		t.Errorf("no warning about the project's model:\n%s", out)
	}
}

// chantoEnv is chanto with extra environment variables.
func (w *world) chantoEnv(t *testing.T, env []string, args ...string) ([]byte, error) {
	t.Helper()
	w.extraEnv = env
	defer func() { w.extraEnv = nil }()
	return w.chanto(t, 3*time.Minute, args...)
}
