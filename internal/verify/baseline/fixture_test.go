package baseline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain doubles the test binary as the two processes a putback involves:
// the watcher (argv[1] == WatchCommand, exactly what chanto runs) and a
// stand-in for chanto that performs one putback from a plan, so the tests
// can SIGKILL it at any moment without building the CLI.
func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == WatchCommand {
		if err := Watch("", os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if plan := os.Getenv("BASELINE_TEST_PLAN"); plan != "" {
		os.Exit(helperMain(plan))
	}
	os.Exit(m.Run())
}

// plan is what the helper process does.
type plan struct {
	Root, History string
	Files         []File
	// Hold is how long the run callback takes.
	Hold time.Duration
	// Scribble makes the callback edit the changed files, as a test run may.
	Scribble bool
}

func helperMain(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var p plan
	if err := json.Unmarshal(data, &p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	testHook = func(s string) { os.Stdout.WriteString(s + "\n") }
	os.Stdout.WriteString("start\n")
	opts := PutbackOptions{Root: p.Root, Files: p.Files, HistoryDir: p.History, Watcher: []string{os.Args[0], WatchCommand}}
	err = Putback(context.Background(), opts, func(context.Context) error {
		os.Stdout.WriteString("running\n")
		if p.Scribble {
			scribble(p.Root, p.Files)
		}
		time.Sleep(p.Hold)
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Stdout.WriteString("end\n")
	return 0
}

// scribble edits files the way a test run might, between putback and
// restore: overwrite, chmod, delete, create.
func scribble(root string, files []File) {
	for i, f := range files {
		abs := filepath.Join(root, filepath.FromSlash(f.Path))
		switch i % 4 {
		case 0:
			_ = os.WriteFile(abs, []byte("written by the test run\n"), 0o666)
		case 1:
			_ = os.Chmod(abs, 0o700)
		case 2:
			_ = os.Remove(abs)
		}
	}
}

// entry is one path's state in a tree.
type entry struct {
	Mode    fs.FileMode
	Content string // file bytes or symlink target
	Owner   string // uid:gid, for files not owned by us
}

// fixture builds a tree of about twenty changed files of varied content and
// modes, plus unchanged ones, and returns the putback files. Every kind of
// change is there: edited, mode-only, executable, read-only, empty, binary,
// new since base (absent at base), deleted since base (absent now, in a
// folder that is gone too), a symlink, unicode and spaces in names.
func fixture(t testing.TB, root string, seed uint64) []File {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	blob := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return b
	}
	type spec struct {
		path        string
		cur, base   []byte // nil: absent
		cmode, bmod fs.FileMode
	}
	specs := []spec{
		{"main.go", []byte("package main\n\nfunc main() { println(2) }\n"), []byte("package main\n\nfunc main() { println(1) }\n"), 0o644, 0o644},
		{"run.sh", []byte("#!/bin/sh\necho new\n"), []byte("#!/bin/sh\necho old\n"), 0o755, 0o755},
		{"became-exec.sh", []byte("#!/bin/sh\n"), []byte("#!/bin/sh\n"), 0o755, 0o644},
		{"secret.txt", []byte("mine only, changed"), []byte("mine only"), 0o600, 0o600},
		{"readonly.txt", []byte("cannot write me\n"), []byte("could not write me\n"), 0o444, 0o444},
		{"empty-now.txt", []byte{}, []byte("had content\n"), 0o644, 0o644},
		{"was-empty.txt", []byte("now has content"), []byte{}, 0o640, 0o640},
		{"big.bin", blob(200 << 10), blob(150 << 10), 0o644, 0o644},
		{"one.byte", []byte{0}, []byte{255}, 0o644, 0o644},
		{"pkg/deep/nested/x.go", []byte("package nested // v2\n"), []byte("package nested\n"), 0o644, 0o644},
		{"dir with space/file name.py", []byte("x = 2\n"), []byte("x = 1\n"), 0o644, 0o644},
		{"ünïcødé/日本語.txt", []byte("こんにちは 2\n"), []byte("こんにちは\n"), 0o644, 0o644},
		{"crlf.txt", []byte("a\r\nb\r\n"), []byte("a\nb\n"), 0o644, 0o644},
		{"no-newline.txt", []byte("tail"), []byte("tail\n"), 0o664, 0o664},
		{"new_since_base.go", []byte("package main // new\n"), nil, 0o644, 0},
		{"new dir/new file.txt", []byte("brand new\n"), nil, 0o600, 0},
		{"deleted_since_base.go", nil, []byte("package main // deleted\n"), 0, 0o644},
		{"gone/dir/x.txt", nil, []byte("its folder is gone too\n"), 0, 0o755},
		{"link", nil, nil, 0, 0}, // symlink, filled in below
		{"medium.txt", blob(4 << 10), blob(5 << 10), 0o644, 0o600},
	}
	var files []File
	for _, s := range specs {
		abs := filepath.Join(root, filepath.FromSlash(s.path))
		if s.path == "link" {
			mustNo(t, os.Symlink("main.go", abs))
			files = append(files, File{Path: s.path, Base: []byte("run.sh"), Mode: fs.ModeSymlink | 0o777})
			continue
		}
		if s.cur != nil {
			mustNo(t, os.MkdirAll(filepath.Dir(abs), 0o755))
			mustNo(t, os.WriteFile(abs, s.cur, 0o600))
			mustNo(t, os.Chmod(abs, s.cmode))
		}
		files = append(files, File{Path: s.path, Base: s.base, Mode: s.bmod})
	}
	if os.Getuid() == 0 {
		// Someone else's file, as root: the restore must give it back to them
		// (with its setgid bit, which chown would clear).
		abs := filepath.Join(root, "main.go")
		mustNo(t, os.Lchown(abs, 4321, 4321))
		mustNo(t, os.Chmod(abs, 0o2644))
	}
	for _, u := range []string{"README.md", "pkg/keep.go", "dir with space/keep.txt"} {
		mustNo(t, os.WriteFile(filepath.Join(root, u), []byte("unchanged "+u), 0o644))
	}
	return files
}

func mustNo(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot records every path under root with its mode and content.
func snapshot(t testing.TB, root string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := entry{Mode: fi.Mode()}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
			e.Owner = fmt.Sprintf("%d:%d", st.Uid, st.Gid)
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			e.Content, err = os.Readlink(p)
		case fi.Mode().IsRegular():
			var b []byte
			b, err = os.ReadFile(p)
			e.Content = string(b)
		}
		out[filepath.ToSlash(rel)] = e
		return err
	})
	mustNo(t, err)
	return out
}

// diffTrees describes how got differs from want, and counts file bytes.
func diffTrees(want, got map[string]entry) (string, int64) {
	var b strings.Builder
	var n int64
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			fmt.Fprintf(&b, "%s: missing\n", p)
		case g.Owner != w.Owner:
			fmt.Fprintf(&b, "%s: owner %q, want %q\n", p, g.Owner, w.Owner)
		case g.Mode != w.Mode:
			fmt.Fprintf(&b, "%s: mode %v, want %v\n", p, g.Mode, w.Mode)
		case g.Content != w.Content:
			fmt.Fprintf(&b, "%s: content differs (%d bytes, want %d)\n", p, len(g.Content), len(w.Content))
		}
		n += int64(len(w.Content))
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			fmt.Fprintf(&b, "%s: unexpected\n", p)
		}
	}
	return b.String(), n
}

// baseTree is the tree the putback should show: want with files at base.
func baseTree(want map[string]entry, files []File) map[string]entry {
	out := map[string]entry{}
	for k, v := range want {
		out[k] = v
	}
	for _, f := range files {
		if f.Base == nil {
			delete(out, f.Path)
			continue
		}
		mode := f.Mode
		if mode&fs.ModeSymlink == 0 {
			mode = permBits(mode)
		}
		out[f.Path] = entry{Mode: mode, Content: string(f.Base), Owner: want[f.Path].Owner}
		for d := filepath.Dir(f.Path); d != "."; d = filepath.Dir(d) {
			if _, ok := out[d]; !ok {
				out[d] = entry{Mode: fs.ModeDir | 0o755}
			}
		}
	}
	return out
}

// helper is a running stand-in for chanto.
type helper struct {
	cmd   *exec.Cmd
	steps chan string
	last  string // the last step seen
}

// startHelper runs the plan in a child process. exec is used directly: the
// test must hold the process to SIGKILL it, which internal/run hides.
func startHelper(t testing.TB, p plan) *helper {
	t.Helper()
	data, err := json.Marshal(p)
	mustNo(t, err)
	planFile := filepath.Join(p.History, "plan.json")
	mustNo(t, os.MkdirAll(p.History, 0o700))
	mustNo(t, os.WriteFile(planFile, data, 0o600))
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "BASELINE_TEST_PLAN="+planFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	mustNo(t, err)
	mustNo(t, cmd.Start())
	h := &helper{cmd: cmd, steps: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			h.steps <- sc.Text()
		}
		close(h.steps)
	}()
	return h
}

// waitStep waits for the helper to report step s.
func (h *helper) waitStep(t testing.TB, s string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case got, ok := <-h.steps:
			if !ok {
				t.Fatalf("helper ended before step %q", s)
			}
			h.last = got
			if got == s {
				return
			}
		case <-timeout:
			t.Fatalf("no step %q after 10s", s)
		}
	}
}

// kill SIGKILLs the helper, reaps it and returns the last step it reported.
func (h *helper) kill() string {
	_ = h.cmd.Process.Signal(syscall.SIGKILL)
	_ = h.cmd.Wait()
	for s := range h.steps {
		h.last = s
	}
	return h.last
}

// settle waits until no save under hist is pending: none has a manifest and
// none is locked (a watcher restoring). A folder without manifest and lock
// never reached the tree.
func settle(t testing.TB, hist string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		pending := ""
		entries, _ := os.ReadDir(filepath.Join(hist, "putback"))
		for _, e := range entries {
			dir := filepath.Join(hist, "putback", e.Name())
			if _, err := os.Stat(filepath.Join(dir, manifestName)); err == nil {
				pending = e.Name()
				break
			}
			if l, err := lockDir(dir, false); err == nil {
				l.Close()
			} else if err == syscall.EWOULDBLOCK {
				pending = e.Name()
				break
			}
		}
		if pending == "" {
			return
		}
		if time.Now().After(deadline) {
			_, manifest := os.Stat(filepath.Join(hist, "putback", pending, manifestName))
			_, err := Recover(hist)
			t.Logf("manifest: %v", manifest)
			t.Fatalf("save %s still pending after %v (watchers %v; Recover: %v)", pending, limit, watcherPIDs(hist), err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// watcherPIDs finds watcher processes for saves under hist, by the save
// folder in their environment.
func watcherPIDs(hist string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(data), "\x00") {
			if strings.HasPrefix(kv, WatchEnv+"="+hist) {
				var pid int
				fmt.Sscanf(filepath.Base(filepath.Dir(p)), "%d", &pid)
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// killWatchers SIGKILLs the watchers of saves under hist and waits until
// they are dead (their locks released): they are not our children, so
// there is nothing to reap, only /proc to watch.
func killWatchers(t testing.TB, hist string) {
	t.Helper()
	pids := watcherPIDs(hist)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for {
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			// The state follows the ")" closing the command name.
			if err != nil || strings.Contains(string(stat[bytes.LastIndexByte(stat, ')')+1:]), " Z ") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("watcher %d still alive 10s after SIGKILL", pid)
			}
			time.Sleep(time.Millisecond)
		}
	}
}
