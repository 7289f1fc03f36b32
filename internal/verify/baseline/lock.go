package baseline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// lockPoll is how often a busy lock is retried while waiting on ctx.
const lockPoll = 20 * time.Millisecond

// lockProject takes the per-project putback lock, a file named after the
// root's hash beside the save folders, waiting for it until ctx ends. The
// unlock removes the file (a clean run leaves nothing behind); whoever
// waited on the removed file sees that its lock is on a file no longer
// there and takes the lock again on the new one.
func lockProject(ctx context.Context, parent, root string) (func(), error) {
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(root))
	path := filepath.Join(parent, hex.EncodeToString(sum[:8])+".lock")
	for {
		f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := flockCtx(ctx, f, root); err != nil {
			f.Close()
			return nil, err
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return func() {
				_ = os.Remove(path)
				f.Close()
			}, nil
		}
		f.Close()
	}
}

// flockCtx takes an exclusive flock on f, retrying until ctx ends.
func flockCtx(ctx context.Context, f *os.File, what string) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for another putback of %s: %w", what, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}

// settleOverlapping restores, before a new putback, every earlier save
// whose root is root or nested with it: one left by a chanto that died
// with its watcher, or one a watcher is restoring right now (waited for).
// A save of a live chanto with a nested root is waited for too.
func settleOverlapping(ctx context.Context, parent, root string) error {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		m, err := readManifest(dir)
		if err != nil || !nested(m.Root, root) {
			continue // no manifest: never reached a tree
		}
		lock, err := os.Open(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		err = flockCtx(ctx, lock, m.Root)
		lock.Close() // restoreDir takes its own; a race only finds it done
		if err != nil {
			return err
		}
		if _, err := restoreDir(dir, true); err != nil {
			return fmt.Errorf("an earlier putback of %s is not restored: %w", m.Root, err)
		}
	}
	return nil
}

// nested reports whether a and b are the same folder or one holds the other.
func nested(a, b string) bool {
	within := func(x, y string) bool {
		return x == y || strings.HasPrefix(x, strings.TrimSuffix(y, string(filepath.Separator))+string(filepath.Separator))
	}
	return within(a, b) || within(b, a)
}
