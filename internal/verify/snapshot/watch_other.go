//go:build !linux

package snapshot

import "errors"

// watcher is Linux's inotify watcher (watch_linux.go). Elsewhere there is
// none, and every change check is a full scan: slower on a large tree,
// never less exact.
type watcher struct{}

func newWatcher(string) (*watcher, error) {
	return nil, errors.New("no inotify watcher on this platform")
}

func (w *watcher) add([]string) error               { return errors.New("no watcher") }
func (w *watcher) drain() (paths []string, ok bool) { return nil, false }
func (w *watcher) close()                           {}
