package baseline

import (
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func testWatcher() []string { return []string{os.Args[0], WatchCommand} }

func TestPutbackShowsBaseThenRestores(t *testing.T) {
	root, hist := t.TempDir(), t.TempDir()
	files := fixture(t, root, 1)
	want := snapshot(t, root)
	wantBase := baseTree(want, files)
	// No Watcher: the default, this executable under its own name.
	opts := PutbackOptions{Root: root, Files: files, HistoryDir: hist}
	ran := false
	err := Putback(context.Background(), opts, func(context.Context) error {
		ran = true
		if d, _ := diffTrees(wantBase, snapshot(t, root)); d != "" {
			t.Errorf("during the run the tree is not the base:\n%s", d)
		}
		pids := watcherPIDs(hist)
		if len(pids) != 1 {
			t.Fatalf("watcher processes during the run: %v, want one", pids)
		}
		// Nothing for "pkill -f chanto" or "killall chanto" to match.
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pids[0]) + "/comm")
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pids[0]) + "/cmdline")
		if strings.TrimSpace(string(comm)) != watcherName || strings.Contains(string(cmdline), hist) {
			t.Errorf("watcher name %q, command line %q", comm, cmdline)
		}
		scribble(root, files) // the run edits the same files: the saved version wins
		return nil
	})
	if err != nil || !ran {
		t.Fatalf("Putback: ran=%v err=%v", ran, err)
	}
	if d, _ := diffTrees(want, snapshot(t, root)); d != "" {
		t.Fatalf("after putback the tree differs:\n%s", d)
	}
	if left := saves(hist); len(left) != 0 {
		t.Errorf("save folders left: %v", left)
	}
	if p := watcherPIDs(hist); len(p) != 0 {
		t.Errorf("watcher still running: %v", p)
	}
}

func TestPutbackRestoresAfterErrorAndPanic(t *testing.T) {
	root, hist := t.TempDir(), t.TempDir()
	files := fixture(t, root, 2)
	want := snapshot(t, root)
	opts := PutbackOptions{Root: root, Files: files, HistoryDir: hist, Watcher: testWatcher()}
	boom := errors.New("boom")
	if err := Putback(context.Background(), opts, func(context.Context) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("error not passed through: %v", err)
	}
	if d, _ := diffTrees(want, snapshot(t, root)); d != "" {
		t.Fatalf("after an error:\n%s", d)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic swallowed")
			}
		}()
		_ = Putback(context.Background(), opts, func(context.Context) error { panic("in the run") })
	}()
	if d, _ := diffTrees(want, snapshot(t, root)); d != "" {
		t.Fatalf("after a panic:\n%s", d)
	}
}

func TestPutbackRefusesBadPaths(t *testing.T) {
	root, hist, outside := t.TempDir(), t.TempDir(), t.TempDir()
	mustNo(t, os.Symlink(outside, filepath.Join(root, "out")))
	for _, p := range []string{"../x", "/etc/passwd", "out/x.go", "a/../../x", ""} {
		opts := PutbackOptions{Root: root, Files: []File{{Path: p, Base: []byte("x")}}, HistoryDir: hist, Watcher: testWatcher()}
		err := Putback(context.Background(), opts, func(context.Context) error { t.Errorf("%q: run called", p); return nil })
		if err == nil {
			t.Errorf("%q: accepted", p)
		}
	}
	dup := []File{{Path: "a.go", Base: []byte("x")}, {Path: "./a.go"}}
	if err := Putback(context.Background(), PutbackOptions{Root: root, Files: dup, HistoryDir: hist}, nil); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate path: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.go")); err == nil {
		t.Error("wrote outside the root")
	}
}

func TestPutbackWithoutWatcherTouchesNothing(t *testing.T) {
	root, hist := t.TempDir(), t.TempDir()
	files := fixture(t, root, 3)
	want := snapshot(t, root)
	opts := PutbackOptions{Root: root, Files: files, HistoryDir: hist, Watcher: []string{"/nonexistent/chanto"}}
	err := Putback(context.Background(), opts, func(context.Context) error { t.Error("run called"); return nil })
	if err == nil || !strings.Contains(err.Error(), "watcher") {
		t.Fatalf("want a watcher error, got %v", err)
	}
	if d, _ := diffTrees(want, snapshot(t, root)); d != "" {
		t.Fatalf("tree touched:\n%s", d)
	}
	if left := saves(hist); len(left) != 0 {
		t.Errorf("save folders left: %v", left)
	}
}

// TestKillDuringPutback is the crash-safety test: the process doing the
// putback is SIGKILLed at a random moment of its life, a hundred times; the
// watcher must leave every byte and mode as it was.
func TestKillDuringPutback(t *testing.T) {
	iterations := 100
	if testing.Short() {
		iterations = 10
	}
	// Half the kills land at a uniformly random moment of the helper's
	// life; the other half first wait for a random step, so every phase
	// (saving, putting back, running, restoring) is hit, then add jitter.
	span := calibrate(t)
	t.Logf("one putback takes about %v from start to end", span)
	steps := []string{"locked", "watching", "saved", "put back", "running", "restoring"}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	lastSteps := map[string]int{}
	var bytesChecked int64
	began := time.Now()
	for i := range iterations {
		dir := t.TempDir()
		root, hist := filepath.Join(dir, "proj ü"), filepath.Join(dir, "home", "history")
		mustNo(t, os.MkdirAll(root, 0o755))
		files := fixture(t, root, uint64(i))
		want := snapshot(t, root)
		h := startHelper(t, plan{Root: root, History: hist, Files: files, Hold: time.Duration(rng.IntN(15)) * time.Millisecond, Scribble: i%3 != 0})
		h.waitStep(t, "start")
		if i%2 == 0 {
			time.Sleep(time.Duration(rng.Int64N(int64(span))))
		} else {
			h.waitStep(t, steps[rng.IntN(len(steps))])
			time.Sleep(time.Duration(rng.Int64N(int64(5 * time.Millisecond))))
		}
		lastSteps[h.kill()]++
		settle(t, hist, 20*time.Second)
		d, n := diffTrees(want, snapshot(t, root))
		if d != "" {
			t.Fatalf("iteration %d: bytes lost after kill:\n%s", i, d)
		}
		bytesChecked += n
		if r, err := Recover(hist); err != nil || len(r) != 0 {
			t.Fatalf("iteration %d: recovery after the watcher: %v %v", i, r, err)
		}
	}
	t.Logf("%d kills, %d file bytes compared, %v; last step before each kill: %v", iterations, bytesChecked, time.Since(began).Round(time.Millisecond), lastSteps)
}

// calibrate runs one putback to completion and returns its duration.
func calibrate(t *testing.T) time.Duration {
	dir := t.TempDir()
	root, hist := filepath.Join(dir, "proj"), filepath.Join(dir, "history")
	mustNo(t, os.MkdirAll(root, 0o755))
	files := fixture(t, root, 99)
	want := snapshot(t, root)
	h := startHelper(t, plan{Root: root, History: hist, Files: files, Hold: time.Millisecond})
	h.waitStep(t, "start")
	start := time.Now()
	h.waitStep(t, "end")
	span := time.Since(start)
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("calibration run: %v", err)
	}
	if d, _ := diffTrees(want, snapshot(t, root)); d != "" {
		t.Fatalf("calibration run changed the tree:\n%s", d)
	}
	return span + span/10
}

// TestRecoverAfterWatcherKilled kills the watcher and then chanto while the
// files are put back: the tree shows the base until the next start, whose
// Recover restores everything and names the files.
func TestRecoverAfterWatcherKilled(t *testing.T) {
	dir := t.TempDir()
	root, hist := filepath.Join(dir, "my project"), filepath.Join(dir, "history")
	mustNo(t, os.MkdirAll(root, 0o755))
	files := fixture(t, root, 5)
	want := snapshot(t, root)
	h := startHelper(t, plan{Root: root, History: hist, Files: files, Hold: time.Minute})
	h.waitStep(t, "running")
	pids := watcherPIDs(hist)
	if len(pids) != 1 {
		t.Fatalf("watchers: %v", pids)
	}
	killWatchers(t, hist)
	helperPID := h.cmd.Process.Pid
	h.kill()
	if d, _ := diffTrees(baseTree(want, files), snapshot(t, root)); d != "" {
		t.Fatalf("with chanto and watcher dead, the tree should still be put back:\n%s", d)
	}
	restored, err := Recover(hist)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := diffTrees(want, snapshot(t, root)); d != "" {
		t.Fatalf("after Recover:\n%s", d)
	}
	if len(restored) != 1 {
		t.Fatalf("restored %d saves, want 1", len(restored))
	}
	r := restored[0]
	if r.PID != helperPID || r.Root == "" {
		t.Errorf("restored = %+v, want pid %d", r, helperPID)
	}
	// Every listed file differed from its saved version, so all are named.
	if len(r.Files) != len(files) {
		t.Errorf("restored %d files, want %d: %v", len(r.Files), len(files), r.Files)
	}
	msg := r.Message()
	if !strings.HasPrefix(msg, "restored 20 files left put back by an interrupted run (pid ") || !strings.Contains(msg, "ünïcødé/日本語.txt") {
		t.Errorf("message: %s", msg)
	}
	if again, err := Recover(hist); err != nil || len(again) != 0 {
		t.Errorf("second Recover: %v %v", again, err)
	}
}

// TestRecoverAfterBothKilledAtRandom kills the watcher and chanto at random
// moments; whatever the watcher did not finish, Recover must.
func TestRecoverAfterBothKilledAtRandom(t *testing.T) {
	iterations := 20
	if testing.Short() {
		iterations = 5
	}
	span := calibrate(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	recovered := 0
	for i := range iterations {
		dir := t.TempDir()
		root, hist := filepath.Join(dir, "proj"), filepath.Join(dir, "history")
		mustNo(t, os.MkdirAll(root, 0o755))
		files := fixture(t, root, uint64(i+1000))
		want := snapshot(t, root)
		h := startHelper(t, plan{Root: root, History: hist, Files: files, Hold: 2 * time.Millisecond, Scribble: true})
		h.waitStep(t, "start")
		time.Sleep(time.Duration(rng.Int64N(int64(span))))
		killWatchers(t, hist)
		h.kill()
		killWatchers(t, hist) // one started in between
		r, err := Recover(hist)
		if err != nil {
			t.Fatalf("iteration %d: %v", i, err)
		}
		recovered += len(r)
		if d, _ := diffTrees(want, snapshot(t, root)); d != "" {
			t.Fatalf("iteration %d: after Recover:\n%s", i, d)
		}
	}
	t.Logf("%d double kills, %d needed Recover", iterations, recovered)
}

func TestRecoverDamagedSaveTouchesNothing(t *testing.T) {
	dir := t.TempDir()
	root, hist := filepath.Join(dir, "proj"), filepath.Join(dir, "history")
	mustNo(t, os.MkdirAll(root, 0o755))
	files := fixture(t, root, 6)
	h := startHelper(t, plan{Root: root, History: hist, Files: files, Hold: time.Minute})
	h.waitStep(t, "running")
	killWatchers(t, hist)
	h.kill()
	blobs, _ := filepath.Glob(filepath.Join(hist, "putback", "*", "0000.blob"))
	if len(blobs) != 1 {
		t.Fatalf("blobs: %v", blobs)
	}
	mustNo(t, os.WriteFile(blobs[0], []byte("corrupted"), 0o600))
	before := snapshot(t, root)
	if _, err := Recover(hist); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("want a checksum error, got %v", err)
	}
	if d, _ := diffTrees(before, snapshot(t, root)); d != "" {
		t.Fatalf("a damaged save was written into the tree:\n%s", d)
	}
	if _, err := os.Stat(filepath.Dir(blobs[0])); err != nil {
		t.Fatalf("the damaged save was removed: %v", err)
	}
}

func TestRecoverLeftovers(t *testing.T) {
	hist := t.TempDir()
	parent := filepath.Join(hist, "putback")
	// A dead owner's save that never got its manifest: garbage.
	dead := filepath.Join(parent, "999999999-x")
	mustNo(t, os.MkdirAll(dead, 0o700))
	mustNo(t, os.WriteFile(filepath.Join(dead, "0000.blob"), []byte("x"), 0o600))
	// A live owner (us) between mkdir and lock: must be left alone.
	live := filepath.Join(parent, strconv.Itoa(os.Getpid())+"-y")
	mustNo(t, os.MkdirAll(live, 0o700))
	r, err := Recover(hist)
	if err != nil || len(r) != 0 {
		t.Fatalf("Recover: %v %v", r, err)
	}
	if _, err := os.Stat(dead); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("garbage save kept: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live owner's folder was removed: %v", err)
	}
	if r, err := Recover(filepath.Join(hist, "none")); err != nil || r != nil {
		t.Errorf("missing history: %v %v", r, err)
	}
}

// saves lists the save folders under hist.
func saves(hist string) []string {
	var out []string
	entries, _ := os.ReadDir(filepath.Join(hist, "putback"))
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestConcurrentPutbacksOfOneProject: a second putback of the same files
// must not save the first one's base versions as "current".
func TestConcurrentPutbacksOfOneProject(t *testing.T) {
	root, hist := t.TempDir(), t.TempDir()
	files := fixture(t, root, 7)
	want := snapshot(t, root)
	opts := PutbackOptions{Root: root, Files: files, HistoryDir: hist, Watcher: testWatcher()}
	firstIn := make(chan struct{})
	errs := make(chan error, 2)
	go func() {
		errs <- Putback(context.Background(), opts, func(context.Context) error {
			close(firstIn)
			time.Sleep(100 * time.Millisecond)
			return nil
		})
	}()
	<-firstIn
	go func() {
		errs <- Putback(context.Background(), opts, func(context.Context) error {
			time.Sleep(150 * time.Millisecond)
			return nil
		})
	}()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if d, _ := diffTrees(want, snapshot(t, root)); d != "" {
		t.Fatalf("after two overlapping putbacks:\n%s", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	hold, held := make(chan struct{}), make(chan error)
	go func() {
		held <- Putback(context.Background(), opts, func(context.Context) error { <-hold; return nil })
	}()
	time.Sleep(100 * time.Millisecond)
	err := Putback(ctx, opts, func(context.Context) error { t.Error("ran while another putback held the project"); return nil })
	close(hold)
	if err == nil || !strings.Contains(err.Error(), "another putback") {
		t.Errorf("waiting past ctx: %v", err)
	}
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if d, _ := diffTrees(want, snapshot(t, root)); d != "" {
		t.Fatalf("after the held putback:\n%s", d)
	}
}

// TestPutbackRestoresLeftoverSaveFirst: chanto and its watcher died with the
// tree put back; the next putback of that project restores the old save
// before saving anything.
func TestPutbackRestoresLeftoverSaveFirst(t *testing.T) {
	dir := t.TempDir()
	root, hist := filepath.Join(dir, "proj"), filepath.Join(dir, "history")
	mustNo(t, os.MkdirAll(root, 0o755))
	files := fixture(t, root, 8)
	want := snapshot(t, root)
	h := startHelper(t, plan{Root: root, History: hist, Files: files, Hold: time.Minute})
	h.waitStep(t, "running")
	killWatchers(t, hist)
	h.kill()
	opts := PutbackOptions{Root: root, Files: files, HistoryDir: hist, Watcher: testWatcher()}
	err := Putback(context.Background(), opts, func(context.Context) error {
		if d, _ := diffTrees(baseTree(want, files), snapshot(t, root)); d != "" {
			t.Errorf("during the second putback:\n%s", d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := diffTrees(want, snapshot(t, root)); d != "" {
		t.Fatalf("after the second putback:\n%s", d)
	}
	if left := saves(hist); len(left) != 0 {
		t.Errorf("saves left: %v", left)
	}
}
