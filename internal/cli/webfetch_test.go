package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// web_fetch in print mode against a local server: with network = "allow"
// the page comes back as Markdown; under the default network = "deny" the
// call is refused with the setting to change and the server never hears
// of it. Both runs use the scripted model, which checks what it reads.
func TestWebFetchNetworkSetting(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body><h1>Release notes</h1><p>Version <b>2.0</b> removes <code>Old</code>.</p></body></html>`)
	}))
	defer srv.Close()

	run := func(t *testing.T, config, script string) (string, string, int) {
		home := t.TempDir()
		t.Setenv("CHANTO_HOME", home)
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "model.script")
		if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Chdir(dir)
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), []string{"-p", "read the notes", "--model", "scripted:" + path,
			"--permission-mode", "bypass", "--output-format", "stream-json"}, strings.NewReader(""), &stdout, &stderr)
		return stdout.String(), stderr.String(), code
	}
	call := fmt.Sprintf(`call web_fetch {"url":%q}`, srv.URL+"/notes")

	t.Run("allow", func(t *testing.T) {
		out, errOut, code := run(t, "[sandbox]\nnetwork = \"allow\"\n",
			call+"\n---\nexpect # Release notes\nexpect Version **2.0** removes `Old`.\nsay 2.0 removes Old.\n")
		if code != ExitOK || !strings.Contains(out, `"text":"2.0 removes Old."`) {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		if hits != 1 {
			t.Errorf("%d requests, want 1", hits)
		}
	})
	t.Run("deny", func(t *testing.T) {
		hits = 0
		out, errOut, code := run(t, "",
			call+"\n---\nexpect web_fetch refused: [sandbox] network = \"deny\"\nsay I cannot fetch it.\n")
		if code != ExitOK {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		var refused bool
		for _, line := range strings.Split(out, "\n") {
			var ev struct {
				Type string
				Tool struct {
					Name    string
					Output  string
					IsError bool `json:"is_error"`
				}
			}
			if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "tool.completed" && ev.Tool.Name == "web_fetch" {
				refused = ev.Tool.IsError && strings.Contains(ev.Tool.Output, `set network = "allow"`)
			}
		}
		if !refused || hits != 0 {
			t.Errorf("refused %v, %d requests\n%s", refused, hits, out)
		}
	})
}
