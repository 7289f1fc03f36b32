package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/config"
)

func bashIn(cmd string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return b
}

func pathIn(p string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"file_path": p})
	return b
}

func newPolicy(t *testing.T, cfg config.Permissions, root string, interactive bool) *Policy {
	t.Helper()
	t.Setenv("CHANTO_HOME", filepath.Join(t.TempDir(), "chanto-home"))
	p, err := New(cfg, root, interactive)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBashAllowRuleBypasses throws the classic parser bypasses at an
// allow rule; none may come out allowed.
func TestBashAllowRuleBypasses(t *testing.T) {
	p := newPolicy(t, config.Permissions{Allow: []string{"Bash(npm run test:*)"}}, t.TempDir(), true)
	cases := []struct {
		cmd  string
		want Verdict
	}{
		{"npm run test", Allow},
		{"npm run test -- --watch=false", Allow},
		{"npm  run   test", Allow},
		{`npm "run" 'test'`, Allow},
		{"npm run test > /dev/null 2>&1", Allow},
		{"npm run test && npm run test", Allow},
		{"npm run test:x; rm -rf /", Ask},
		{"npm run test; rm -rf /", Ask},
		{"npm run test && rm -rf /", Ask},
		{"npm run test || rm -rf /", Ask},
		{"npm run test | sh", Ask},
		{"npm run test | rm -rf /", Ask},
		{"npm run test & rm -rf /", Ask},
		{"npm run test $(rm -rf /)", Ask},
		{"npm run test `rm -rf /`", Ask},
		{"npm run test \"$(rm -rf /)\"", Ask},
		{"npm run test <(rm -rf /)", Ask},
		{"npm run test >(rm -rf /)", Ask},
		{"npm run test\nrm -rf /", Ask},
		{"npm${IFS}run${IFS}test", Ask},
		{"npm run test${IFS}x", Ask},
		{"npm run test $[1+1]", Ask},
		{"npm run test $((1+1))", Ask},
		{"eval npm run test", Ask},
		{"eval 'npm run test; rm -rf /'", Ask},
		{"sh -c 'npm run test'", Ask},
		{"bash -c 'npm run test; rm -rf /'", Ask},
		{"FOO=bar npm run test", Ask},
		{"PATH=/tmp/evil npm run test", Ask},
		{"PATH=/tmp/evil; npm run test", Ask},
		{"env npm run test", Ask},
		{"xargs npm run test", Ask},
		{"\"npm run\" test", Ask},
		{"'npm run test'", Ask},
		{"npm 'run test'", Ask},
		{"npm run tes\"t;\" rm", Ask},
		{"npm run testx", Allow},
		{"npm run test:unit", Allow},
		{"npm run test:x; rm -rf /", Ask},
		{`npm run "test; rm -rf /"`, Ask},
		{`npm run 'test$(id)'`, Ask},
		{"npm run 'test x'", Ask},
		{"npm run", Ask},
		{"npm install", Ask},
		{"/tmp/evil/npm run test", Ask},
		{"$X run test", Ask},
		{"np? run test", Ask},
		{"n{pm,} run test", Ask},
		{"npm run test > ~/.bashrc", Ask},
		{"npm run test >> out.txt", Ask},
		{"npm() { rm -rf /; }; npm run test", Ask},
		{"npm run test ${x@P}", Ask},
		{"npm run test ${x:-$(id)}", Ask},
		{"[[ $x -eq 1 ]] && npm run test", Ask},
		{"npm run test \\\n; rm -rf /", Ask},
		{"npm run test $'\\x3b' rm", Ask},
		{"find . -exec rm {} \\;", Ask},
		{"command npm run test", Ask},
		{"exec npm run test", Ask},
		{"coproc npm run test", Ask},
		{"npm run test )", Ask},
		{"npm run 'test", Ask},
		{"npm run test <<EOF\n$(rm -rf /)\nEOF", Ask},
		{"npm run test <<'EOF'\n$(rm -rf /)\nEOF", Allow},
		{"npm run test\uff1brm -rf /", Ask},
		{"npm run test \\; rm -rf /", Allow},
		{"\\npm run test", Allow},
		{"npm run test # ; rm -rf /", Allow},
		{"{ npm run test; } > out", Ask},
		{"a=(rm -rf /); \"${a[@]}\"", Ask},
		{"npm run test 2>&1 | tee log", Ask},
		{"npm run test && cd .. && npm run test", Ask},
		{"npm run test $HOME", Allow},
		{"time npm run test", Allow},
		{"npm run test{,}", Ask},
		{"npm run test > >(rm x)", Ask},
	}
	for _, c := range cases {
		d := p.Decide("bash", bashIn(c.cmd))
		if d.Verdict != c.want {
			t.Errorf("%q: got %s (%s), want %s", c.cmd, d.Verdict, d.Reason, c.want)
		}
	}
}

func TestBashDenyRulesSeeThroughWrappers(t *testing.T) {
	p := newPolicy(t, config.Permissions{Mode: ModeBypass, Deny: []string{"Bash(rm:*)", "Bash(git push:*)"}}, t.TempDir(), true)
	cases := []struct {
		cmd  string
		want Verdict
	}{
		{"ls -la", Allow},
		{"rm -rf /", Deny},
		{"/bin/rm -rf /", Deny},
		{"echo hi; rm x", Deny},
		{"sudo rm x", Deny},
		{"env FOO=1 rm x", Deny},
		{"timeout 5 rm x", Deny},
		{"xargs rm < list", Deny},
		{"sh -c 'rm -rf /'", Deny},
		{"bash -c \"echo; bash -c 'rm x'\"", Deny},
		{"eval 'rm x'", Deny},
		{"echo $(rm x)", Deny},
		{"r\\m x", Deny},
		{"'rm' x", Deny},
		{"git push origin main", Deny},
		{"git status", Allow},
		{"$(echo rm) x", Ask},
		{"eval \"$CMD\"", Ask},
		{"git commit -m 'rm stuff'", Allow},
	}
	for _, c := range cases {
		d := p.Decide("Bash", bashIn(c.cmd))
		if d.Verdict != c.want {
			t.Errorf("%q: got %s (%s), want %s", c.cmd, d.Verdict, d.Reason, c.want)
		}
	}
}

func TestModes(t *testing.T) {
	root := t.TempDir()
	cases := []struct {
		mode, tool, path string
		want             Verdict
	}{
		{ModeDefault, "Read", "a.go", Allow},
		{ModeDefault, "Grep", "", Allow},
		{ModeDefault, "Edit", "a.go", Ask},
		{ModeDefault, "Write", "a.go", Ask},
		{ModeDefault, "Read", "/etc/passwd", Ask},
		{ModeAcceptEdits, "Edit", "a.go", Allow},
		{ModeAcceptEdits, "Write", "sub/new.go", Allow},
		{ModeAcceptEdits, "Write", "../outside.go", Ask},
		{ModeAcceptEdits, "Write", "/tmp/x.go", Ask},
		{ModePlan, "Read", "a.go", Allow},
		{ModePlan, "Edit", "a.go", Deny},
		{ModePlan, "Write", "a.go", Deny},
		{ModeBypass, "Write", "/tmp/x.go", Allow},
		{ModeBypass, "Write", ".chanto/config.toml", Deny},
		{ModeBypass, "Edit", ".git/hooks/pre-commit", Deny},
		{ModeBypass, "Edit", ".git/config", Deny},
		{ModeBypass, "Edit", "sub/../.chanto/x", Deny},
		{ModeBypass, "Edit", ".CHANTO/x", Deny},
		{ModeBypass, "Read", ".chanto/config.toml", Allow},
	}
	for _, c := range cases {
		p := newPolicy(t, config.Permissions{Mode: c.mode}, root, true)
		d := p.Decide(c.tool, pathIn(c.path))
		if d.Verdict != c.want {
			t.Errorf("%s %s %s: got %s (%s), want %s", c.mode, c.tool, c.path, d.Verdict, d.Reason, c.want)
		}
	}
	for _, mode := range []string{ModeDefault, ModeAcceptEdits} {
		p := newPolicy(t, config.Permissions{Mode: mode}, root, true)
		if d := p.Decide("bash", bashIn("ls")); d.Verdict != Ask {
			t.Errorf("%s: bash ls got %s, want ask", mode, d.Verdict)
		}
	}
	p := newPolicy(t, config.Permissions{Mode: ModePlan, Allow: []string{"Bash(ls:*)"}}, root, true)
	if d := p.Decide("bash", bashIn("ls")); d.Verdict != Deny {
		t.Errorf("plan: bash ls got %s, want deny", d.Verdict)
	}
	p = newPolicy(t, config.Permissions{Mode: ModeBypass}, root, true)
	for _, cmd := range []string{"rm -rf build", "echo $(date)"} {
		if d := p.Decide("bash", bashIn(cmd)); d.Verdict != Allow {
			t.Errorf("bypass: %q got %s, want allow", cmd, d.Verdict)
		}
	}
	for _, cmd := range []string{"cd .chanto && echo x > config.toml", "echo x > .chanto/config.toml", "cp evil .git/hooks/pre-commit", "cd .cha* && ls", "sh -c 'cat > .chanto/x'"} {
		if d := p.Decide("bash", bashIn(cmd)); d.Verdict != Deny {
			t.Errorf("bypass: %q got %s (%s), want deny", cmd, d.Verdict, d.Reason)
		}
	}
}

func TestPathRulesResolveSymlinks(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, ".env"), []byte("K=1"), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "src", "deep"), 0o755))
	must(t, os.Symlink(filepath.Join(root, ".env"), filepath.Join(root, "innocent.txt")))
	must(t, os.Symlink(filepath.Join(root, ".chanto"), filepath.Join(root, "src", "cfg")))
	outside := t.TempDir()
	must(t, os.Symlink(outside, filepath.Join(root, "src", "escape")))
	p := newPolicy(t, config.Permissions{
		Deny:  []string{"Read(.env)", "Edit(secrets/**)"},
		Allow: []string{"Edit(src/**)"},
	}, root, true)
	cases := []struct {
		tool, path string
		want       Verdict
	}{
		{"Read", ".env", Deny},
		{"Read", "./sub/../.env", Deny},
		{"Read", filepath.Join(root, ".env"), Deny},
		{"Read", "innocent.txt", Deny},
		{"Grep", ".env", Deny},
		{"Read", "src/deep/x.go", Allow},
		{"Edit", "src/deep/x.go", Allow},
		{"Write", "src/new/file.go", Allow},
		{"Edit", "src/../main.go", Ask},
		{"Edit", "src/escape/x.go", Ask},
		{"Edit", "src/cfg/config.toml", Deny},
		{"Write", "secrets/key.pem", Deny},
		{"Write", "src/deep/../../secrets/k", Deny},
		{"Edit", "src/escape/../x.go", Ask},
		{"Read", "src/escape/../../.env", Deny},
	}
	for _, c := range cases {
		d := p.Decide(c.tool, pathIn(c.path))
		if d.Verdict != c.want {
			t.Errorf("%s %s: got %s (%s), want %s", c.tool, c.path, d.Verdict, d.Reason, c.want)
		}
	}
	if !p.PathDenied("grep", filepath.Join(root, ".env")) {
		t.Error("PathDenied(grep, .env) = false")
	}
}

func TestPrintModeMessage(t *testing.T) {
	p := newPolicy(t, config.Permissions{}, t.TempDir(), false)
	d := p.Decide("bash", bashIn("npm install"))
	want := `bash refused: "npm install" needs approval; in print mode add an allow rule such as Bash(npm install:*) under [permissions] or use --permission-mode bypass`
	if d.Verdict != Deny || d.Reason != want {
		t.Errorf("got %s %q\nwant deny %q", d.Verdict, d.Reason, want)
	}
	d = p.Decide("edit", pathIn("src/a.go"))
	if d.Verdict != Deny || !strings.Contains(d.Reason, "Edit(src/a.go)") {
		t.Errorf("edit in print mode: %s %q", d.Verdict, d.Reason)
	}
	if d := p.Decide("read", pathIn("a.go")); d.Verdict != Allow {
		t.Errorf("read in print mode: %s", d.Verdict)
	}
}

func TestLockdown(t *testing.T) {
	p := newPolicy(t, config.Permissions{
		Mode: ModeBypass, Lockdown: true,
		Allow: []string{"Bash(go test:*)", "Read(src/**)", "Bash(go vet:*)"},
		Ask:   []string{"Bash(go test -run:*)"},
	}, t.TempDir(), true)
	cases := []struct {
		tool string
		in   json.RawMessage
		want Verdict
	}{
		{"bash", bashIn("go test ./..."), Allow},
		{"bash", bashIn("go test ./... && go vet ./..."), Allow},
		{"bash", bashIn("go test -run X"), Deny},
		{"bash", bashIn("go build"), Deny},
		{"bash", bashIn("go test $(echo x)"), Deny},
		{"read", pathIn("src/a.go"), Allow},
		{"read", pathIn("README.md"), Deny},
		{"edit", pathIn("src/a.go"), Deny},
		{"task", json.RawMessage(`{"description":"x"}`), Deny},
		{"mystery", json.RawMessage(`{}`), Deny},
	}
	for _, c := range cases {
		d := p.Decide(c.tool, c.in)
		if d.Verdict != c.want {
			t.Errorf("%s %s: got %s (%s), want %s", c.tool, c.in, d.Verdict, d.Reason, c.want)
		}
		if d.Verdict == Deny && d.Reason == "" {
			t.Errorf("%s %s: deny without reason", c.tool, c.in)
		}
	}
}

func TestBadRules(t *testing.T) {
	for _, r := range []string{"Bash(", "Bsh(ls)", "Bash()", "Read([)", "Bash(:*)", "Frobnicate"} {
		_, err := New(config.Permissions{Allow: []string{r}}, t.TempDir(), true)
		if err == nil || !strings.Contains(err.Error(), r) {
			t.Errorf("rule %q: err = %v, want one naming the rule", r, err)
		}
	}
	if _, err := New(config.Permissions{Mode: "yolo"}, t.TempDir(), true); err == nil {
		t.Error("mode yolo accepted")
	}
}

func TestStrictestWins(t *testing.T) {
	p := newPolicy(t, config.Permissions{
		Allow: []string{"Bash(git:*)", "Edit", "Read"},
		Ask:   []string{"Bash(git push:*)"},
		Deny:  []string{"Bash(git push --force:*)", "Edit(*.lock)"},
	}, t.TempDir(), true)
	cases := []struct {
		tool string
		in   json.RawMessage
		want Verdict
	}{
		{"bash", bashIn("git status"), Allow},
		{"bash", bashIn("git push origin"), Ask},
		{"bash", bashIn("git push --force origin"), Deny},
		{"edit", pathIn("a.go"), Allow},
		{"edit", pathIn("sub/go.lock"), Deny},
	}
	for _, c := range cases {
		if d := p.Decide(c.tool, c.in); d.Verdict != c.want {
			t.Errorf("%s %s: got %s (%s), want %s", c.tool, c.in, d.Verdict, d.Reason, c.want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The oracle's bash: reading commands pass, anything that writes, deletes
// or hides what it runs is refused with the reason.
func TestReadOnlyCommand(t *testing.T) {
	for line, want := range map[string]bool{
		"ls -la":                            true,
		"cat a.go | grep -n Foo":            true,
		"git log --oneline -5 && git diff":  true,
		"grep -rn Add . 2>/dev/null | head": true,
		"find . -name '*.go'":               true,
		"go list ./...":                     true,
		"rm -rf x":                          false,
		"echo hi > a.txt":                   false,
		"cat a >> b":                        false,
		"sed -i s/a/b/ f":                   false,
		"find . -delete":                    false,
		"find . -exec rm {} ;":              false,
		"git commit -am x":                  false,
		"git checkout -- .":                 false,
		"go test ./...":                     false,
		"touch x":                           false,
		"python3 -c 'open(\"x\",\"w\")'":    false,
		"sh -c 'rm x'":                      false,
		"cat $(echo x)":                     false,
		"tee out.txt":                       false,
		"mv a b":                            false,
		"sort -o f f":                       false,
		"cp a b":                            false,
		"FOO=1 ls":                          false,
	} {
		ok, why := ReadOnlyCommand(line)
		if ok != want {
			t.Errorf("ReadOnlyCommand(%q) = %v (%s), want %v", line, ok, why, want)
		}
		if !ok && why == "" {
			t.Errorf("ReadOnlyCommand(%q): no reason", line)
		}
	}
}

// web_fetch is ruled by the URL's host: deny beats allow, a wildcard takes
// subdomains only, and without a rule it asks (refused in print mode,
// naming the rule to add).
func TestWebFetchRules(t *testing.T) {
	root := t.TempDir()
	cfg := config.Permissions{Allow: []string{"WebFetch(domain:pkg.go.dev)", "WebFetch(domain:*.example.com)"}, Deny: []string{"WebFetch(domain:evil.example.com)"}}
	p := newPolicy(t, cfg, root, false)
	for url, want := range map[string]Verdict{
		"https://pkg.go.dev/net/http":      Allow,
		"https://docs.example.com/x":       Allow,
		"https://example.com/":             Deny, // no rule: asks, and print mode refuses
		"https://evil.example.com/":        Deny,
		"https://pkg.go.dev.attacker.com/": Deny,
		"not a url":                        Deny,
	} {
		d := p.Decide("web_fetch", json.RawMessage(`{"url":"`+url+`"}`))
		if d.Verdict != want {
			t.Errorf("%s: %s (%s), want %s", url, d.Verdict, d.Reason, want)
		}
	}
	d := p.Decide("web_fetch", json.RawMessage(`{"url":"https://example.com/"}`))
	if !strings.Contains(d.Reason, "WebFetch(domain:example.com)") {
		t.Errorf("no rule suggested: %s", d.Reason)
	}
	if d := newPolicy(t, config.Permissions{Mode: ModeBypass, Deny: cfg.Deny}, root, false).Decide("web_fetch", json.RawMessage(`{"url":"https://evil.example.com"}`)); d.Verdict != Deny {
		t.Errorf("bypass beat a deny rule: %+v", d)
	}
	for _, bad := range []string{"WebFetch(example.com)", "WebFetch(domain:)", "WebFetch(domain:a.com/x)"} {
		if _, err := New(config.Permissions{Allow: []string{bad}}, root, false); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
