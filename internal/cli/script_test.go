package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/chanto-dev/chanto/internal/mcp/mcptest"
)

// TestMain lets testscript run chanto as a command: the test binary is
// re-executed under the name "chanto" and calls Main, as cmd/chanto does.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"chanto": func() {
			os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
		// The putback watcher re-executes chanto under this name (so that
		// pkill -f chanto spares it); the test binary must answer to it too.
		"putback-watch": func() {
			os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
		// An MCP server for the scripts, on the same SDK as the client.
		"mcp-fixture": func() { mcptest.Main(); os.Exit(0) },
	})
}

// TestScripts runs testdata/script/*.txtar: the CLI end to end with the
// scripted model, real git repositories and the real go toolchain.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup:               setupScript,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"jsonl":    cmdJSONL,
			"exitcode": cmdExitCode,
			"sleep":    cmdSleep,
			"capture":  cmdCapture,
		},
	})
}

// setupScript gives each script its own CHANTO_HOME (outside $WORK, so it
// never shows up as a change in the script's repository), no API keys, and
// the Go caches of the machine so `go test` inside a script need not
// rebuild the standard library.
func setupScript(env *testscript.Env) error {
	home, err := os.MkdirTemp("", "chanto-home-")
	if err != nil {
		return err
	}
	env.Defer(func() { os.RemoveAll(home) })
	env.Setenv("CHANTO_HOME", home)
	// testscript does not pass the caller's environment on; blank the keys
	// anyway so no script can ever reach a real provider.
	env.Setenv("ANTHROPIC_API_KEY", "")
	env.Setenv("OPENAI_API_KEY", "")
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		if v := goEnv(k); v != "" {
			env.Setenv(k, v)
		}
	}
	env.Setenv("GOFLAGS", "-mod=mod")
	env.Setenv("GOTOOLCHAIN", "local")
	env.Setenv("GIT_AUTHOR_NAME", "chanto test")
	env.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	env.Setenv("GIT_COMMITTER_NAME", "chanto test")
	env.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
	env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return nil
}

var goEnvCache = map[string]string{}

func goEnv(key string) string {
	if v, ok := goEnvCache[key]; ok {
		return v
	}
	if v := os.Getenv(key); v != "" {
		return v
	}
	// The test harness itself may ask go; the product never does this.
	out, err := exec.Command("go", "env", key).Output()
	v := ""
	if err == nil {
		v = strings.TrimSpace(string(out))
	}
	goEnvCache[key] = v
	return v
}

// cmdJSONL checks that the last command's stdout is pure JSONL: every line
// a JSON object with type, session_id and time, all with the same session.
// Arguments are event types that must appear, in that order.
//
//	jsonl session.started tool.completed session.completed
func cmdJSONL(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! jsonl")
	}
	out := ts.ReadFile("stdout")
	if strings.TrimSpace(out) == "" {
		ts.Fatalf("stdout is empty")
	}
	var types []string
	session := ""
	for i, line := range bytes.Split(bytes.TrimRight([]byte(out), "\n"), []byte("\n")) {
		var ev map[string]any
		if err := json.Unmarshal(line, &ev); err != nil {
			ts.Fatalf("stdout line %d is not JSON: %v: %q", i+1, err, line)
		}
		typ, _ := ev["type"].(string)
		sid, _ := ev["session_id"].(string)
		tm, _ := ev["time"].(string)
		if typ == "" || sid == "" || tm == "" {
			ts.Fatalf("stdout line %d lacks type, session_id or time: %s", i+1, line)
		}
		if session == "" {
			session = sid
		} else if sid != session {
			ts.Fatalf("stdout line %d: session_id %q, earlier %q", i+1, sid, session)
		}
		types = append(types, typ)
	}
	rest := types
	for _, want := range args {
		i := slices.Index(rest, want)
		if i < 0 {
			ts.Fatalf("event %q missing or out of order; events: %s", want, strings.Join(types, " "))
		}
		rest = rest[i+1:]
	}
}

// cmdExitCode runs a command and checks its exit status, which exec alone
// cannot: 0, 1, 2 and 3 mean different things to chanto's users.
//
//	exitcode 2 chanto -p hi --output-format yaml
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdSleep pauses the script, to let a background command get going.
func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	if err != nil {
		ts.Fatalf("sleep: %v", err)
	}
	time.Sleep(d)
}

// cmdCapture sets VAR to the first group of REGEXP in the last stdout, so a
// later command can use it (a session id for --resume).
//
//	capture SESSION '"session_id": "([^"]+)"'
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: capture VAR REGEXP")
	}
	re, err := regexp.Compile(args[1])
	if err != nil {
		ts.Fatalf("capture: %v", err)
	}
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("capture: no match for %s in stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}
