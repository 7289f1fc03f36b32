package baseline

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The watcher protocol is two pipes. chanto keeps the write end of the
// watcher's stdin; the kernel closes it the instant chanto dies, however it
// dies, so EOF without "done" means "chanto is gone, restore". The watcher
// writes "ready" on stdout once it holds the save folder open, and chanto
// touches nothing before reading it.
const (
	doneMsg  = "done\n"
	readyMsg = "ready\n"
)

// WatchEnv names the variable that gives the watcher its save folder.
const WatchEnv = "CHANTO_PUTBACK_SAVE"

// watcherName is the watcher's argv[0] and process name; it avoids the
// word "chanto" on purpose (see startWatcher).
const watcherName = "putback-watch"

// readyTimeout bounds the wait for a watcher that never starts.
const readyTimeout = 10 * time.Second

// watcher is chanto's handle on a running watcher process.
type watcher struct {
	cmd  *exec.Cmd
	ctl  *os.File
	exit chan error
}

// startWatcher starts the watcher for dir and waits until it is ready.
//
// This is the one process chanto starts outside internal/run, on purpose:
// run.Runner.Run waits for its command and kills its process group, and the
// watcher must do the opposite: outlive chanto in a session of its own, so
// neither chanto's group kill, a closed terminal nor Ctrl-C reaches it.
func startWatcher(argv []string, dir string) (*watcher, error) {
	name := ""
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		argv, name = []string{exe, WatchCommand}, watcherName
		if filepath.Base(os.Args[0]) != filepath.Base(exe) {
			// A multi-call binary (testscript's, for one) dispatches on
			// argv[0]: keep the name it was called by.
			name = os.Args[0]
		}
	}
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	rdyR, rdyW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, err
	}
	defer rdyR.Close()
	// The save folder goes in the environment, not on the command line:
	// with no "chanto" in its command line or name, the watcher survives
	// the likes of "pkill -9 -f chanto" aimed at chanto itself.
	cmd := exec.Command(argv[0], argv[1:]...)
	if name != "" {
		cmd.Args[0] = name
	}
	cmd.Env = append(os.Environ(), WatchEnv+"="+dir)
	cmd.Stdin, cmd.Stdout = ctlR, rdyW
	cmd.Dir = "/" // keep no project folder busy
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	ctlR.Close()
	rdyW.Close()
	if err != nil {
		ctlW.Close()
		return nil, err
	}
	w := &watcher{cmd: cmd, ctl: ctlW, exit: make(chan error, 1)}
	go func() { w.exit <- cmd.Wait() }()
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(rdyR).ReadString('\n')
		got <- line
	}()
	select {
	case line := <-got:
		if line == readyMsg {
			return w, nil
		}
		err = errors.New("watcher exited before it was ready")
	case <-time.After(readyTimeout):
		err = errors.New("watcher not ready after " + readyTimeout.String())
	}
	w.ctl.Close()
	_ = cmd.Process.Kill()
	<-w.exit
	return nil, err
}

// finish ends the watcher. With ok it is told the putback is complete and
// exits without touching anything; otherwise its control pipe just closes,
// which it reads as "restore what is saved". Either way it is reaped here,
// so no process is left behind.
func (w *watcher) finish(ok bool) {
	if ok {
		_, _ = io.WriteString(w.ctl, doneMsg)
	}
	w.ctl.Close()
	select {
	case <-w.exit:
	case <-time.After(5 * time.Second):
		if ok {
			_ = w.cmd.Process.Kill()
			<-w.exit
		}
	}
}

// Watch is the watcher process: dir is the save folder (empty: from
// WatchEnv), control its stdin
// and ready its stdout. It waits until control says "done" (exit, touch
// nothing) or reaches EOF without it (chanto died: restore the save under
// its lock, then remove it). It returns when there is nothing left to do.
func Watch(dir string, control io.Reader, ready io.Writer) error {
	// No terminal signal may stop the watcher; it ends when chanto does.
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGPIPE)
	// The kernel named the process after chanto's executable; rename it
	// (the thread group leader's name, which ps, pkill and killall read).
	_ = os.WriteFile("/proc/self/comm", []byte(watcherName), 0)
	if dir == "" {
		dir = os.Getenv(WatchEnv)
	}
	if dir == "" {
		return errors.New("putback watcher: no save folder (" + WatchEnv + " is empty)")
	}
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("putback watcher: %w", err)
	}
	if _, err := io.WriteString(ready, readyMsg); err != nil {
		return fmt.Errorf("putback watcher: %w", err)
	}
	if c, ok := ready.(io.Closer); ok {
		c.Close()
	}
	msg, _ := io.ReadAll(control)
	if strings.HasPrefix(string(msg), strings.TrimSpace(doneMsg)) {
		return nil
	}
	_, err := restoreDir(dir, true)
	return err
}

// restoreDir restores one save folder under its lock (waiting for it when
// wait is set, otherwise skipping a folder someone holds) and removes it.
// A folder without a manifest never reached the tree and is just removed.
func restoreDir(dir string, wait bool) (*Restored, error) {
	lock, err := lockDir(dir, wait)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	m, err := readManifest(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(dir); serr == nil {
			return nil, os.RemoveAll(dir)
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	changed, err := restoreSave(dir, m)
	if err != nil {
		return nil, fmt.Errorf("restore %s: %w (nothing removed from the save)", dir, err)
	}
	if err := removeSave(dir); err != nil {
		return nil, err
	}
	return &Restored{Root: m.Root, PID: m.PID, Files: changed, Dir: dir}, nil
}

// ServeWatchIfAsked makes a test binary stand in for chanto's putback
// watcher: when the process was started as "BINARY __putback-watch
// [DIR]" (a putback baseline starts it from os.Executable), it runs Watch
// and exits; otherwise it returns. Test packages that run putback
// baselines call it first in their TestMain.
func ServeWatchIfAsked() {
	if len(os.Args) < 2 || os.Args[1] != WatchCommand {
		return
	}
	dir := ""
	if len(os.Args) > 2 {
		dir = os.Args[2]
	}
	if err := Watch(dir, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
