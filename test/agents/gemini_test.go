package agents

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// geminiServer serves the Gemini API (streamGenerateContent, SSE) for
// gemini-cli: requests offering tools follow the script; its JSON-mode
// side requests (routing, next speaker) get an answer that hands the turn
// back to the user.
func geminiServer(t *testing.T, m *fakeModel) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Tools            []map[string]any `json:"tools"`
			GenerationConfig struct {
				ResponseMimeType string `json:"responseMimeType"`
			} `json:"generationConfig"`
		}
		json.Unmarshal(body, &req)
		if strings.Contains(r.URL.Path, "countTokens") {
			fmt.Fprint(w, `{"totalTokens":10}`)
			return
		}
		var parts []map[string]any
		switch {
		case len(req.Tools) > 0 && req.GenerationConfig.ResponseMimeType == "":
			rep := m.next(string(body))
			if rep.Text != "" {
				parts = append(parts, map[string]any{"text": rep.Text})
			}
			for _, c := range rep.Calls {
				parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": c.Input}})
			}
		case req.GenerationConfig.ResponseMimeType != "":
			parts = []map[string]any{{"text": `{"reasoning":"done","next_speaker":"user","model_choice":"flash"}`}}
		default:
			parts = []map[string]any{{"text": "ok"}}
		}
		resp := map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}, "modelVersion": "gemini-2.5-pro"}
		b, _ := json.Marshal(resp)
		if strings.Contains(r.URL.Path, "stream") {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s\n\n", b)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

const geminiPackage = "@google/gemini-cli@0.61.0"

// runGemini runs gemini-cli headless (-p, --yolo) on dir against the fake
// model, with the hooks `chanto hook install gemini` writes, and returns
// what it printed.
func runGemini(t *testing.T, dir, config string, m *fakeModel) string {
	t.Helper()
	js := install(t, geminiPackage, "@google/gemini-cli/bundle/gemini.js")
	home := t.TempDir()
	installHooks(t, dir, []string{"HOME=" + home}, "gemini")
	// An API key as the auth type, and no folder-trust question (headless).
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	user := `{"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}}}`
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := geminiServer(t, m)
	cmd := exec.CommandContext(agentContext(t), "node", js, "-p", "Fix the failing test in this Go module.", "--yolo", "-m", "gemini-2.5-pro")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(os.Environ(), "HOME="+home, "GEMINI_API_KEY=fake-for-tests", "GOOGLE_GEMINI_BASE_URL="+srv.URL, "CHANTO_HOME="+chantoHome(t, config))
	cmd.Env = append(cmd.Env, goEnv(t)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out)
	}
	m.check(t)
	return string(out)
}

func runShell(command string) call {
	return call{Name: "run_shell_command", Input: map[string]any{"command": command}}
}

func TestGeminiLazyClaimIsDeniedThenVerified(t *testing.T) {
	dir := project(t, brokenCalc)
	m := scripted(t,
		step{expect: []string{"Fix the failing test"}, reply: reply{Text: "All tests pass."}},
		step{expect: []string{"TestAdd", "want 5", "Fix the code, not the tests"}, reply: reply{Calls: []call{runShell(writeFile("calc.go", fixedCalc))}}},
		step{reply: reply{Text: "Fixed Add: it subtracted."}},
	)
	out := runGemini(t, dir, "", m)
	if !strings.Contains(out, "Hook system message: Verified: go vet ./...") {
		t.Fatalf("the evidence line did not reach the user:\n%s", out)
	}
}

func TestGeminiDeletedTestIsDenied(t *testing.T) {
	dir := project(t, brokenCalc)
	m := scripted(t,
		step{reply: reply{Calls: []call{runShell("rm calc_test.go")}}},
		step{expect: []string{"test file deleted", "fix the code, not the tests"}, reply: reply{Text: "All tests pass."}},
		step{expect: []string{"Your answer was not accepted", "fix the code, not the tests"}, reply: reply{Calls: []call{runShell("git checkout calc_test.go")}}},
		step{reply: reply{Calls: []call{runShell(writeFile("calc.go", fixedCalc))}}},
		step{reply: reply{Text: "Restored the test and fixed Add."}},
	)
	out := runGemini(t, dir, "", m)
	if !strings.Contains(out, "Hook system message: Verified: go vet ./...") {
		t.Fatalf("not verified after the restore:\n%s", out)
	}
}

func TestGeminiCapAllowsTheStopNotVerified(t *testing.T) {
	dir := project(t, fixedCalc)
	m := scripted(t,
		step{reply: reply{Calls: []call{runShell(writeFile("calc.go", wrongCalc("a - b")))}}},
		step{reply: reply{Text: "Refactored. All tests pass."}},
		step{expect: []string{"TestAdd", "attempt 1 of 2"}, reply: reply{Calls: []call{runShell(writeFile("calc.go", wrongCalc("a * b")))}}},
		step{reply: reply{Text: "All tests pass."}},
		step{expect: []string{"TestAdd", "attempt 2 of 2"}, reply: reply{Calls: []call{runShell(writeFile("calc.go", wrongCalc("a - b - 1")))}}},
		step{reply: reply{Text: "All tests pass."}},
	)
	out := runGemini(t, dir, "[guardrails]\nmax_attempts = 2\n", m)
	if !strings.Contains(out, "Hook system message: chanto sent this answer back 2 times") || !strings.Contains(out, "⚠ Not verified") {
		t.Fatalf("the cap was not shown as Not verified:\n%s", out)
	}
}
