package snapshot

import (
	"errors"
	"path"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watchMask is what a changed file looks like to inotify: written, closed
// after writing, chmod-ed, created, deleted, renamed in or out.
const watchMask = unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_CREATE |
	unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// maxWatches bounds the folders watched; a larger tree falls back to full
// scans rather than exhaust the user's inotify watches.
const maxWatches = 4096

// watcher turns inotify events into the paths that may have changed, so a
// change check after a tool call that touched nothing costs one read(2)
// instead of listing and stat-ing the whole tree. Anything it cannot
// account for (a folder created or moved, a queue overflow) makes the next
// check a full scan, and the final check of a turn is always a full scan,
// so a missed event can delay a report but never hide a change.
type watcher struct {
	mu   sync.Mutex
	fd   int
	dirs map[int]string // watch descriptor → folder, relative ("." for the root)
	have map[string]bool
	root string
}

func newWatcher(root string) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &watcher{fd: fd, dirs: map[int]string{}, have: map[string]bool{}, root: root}, nil
}

// add watches the folders holding paths (and their parents).
func (w *watcher) add(paths []string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range paths {
		for d := path.Dir(p); ; d = path.Dir(d) {
			if w.have[d] {
				break
			}
			if len(w.dirs) >= maxWatches {
				return errors.New("too many folders to watch")
			}
			wd, err := unix.InotifyAddWatch(w.fd, filepath.Join(w.root, filepath.FromSlash(d)), watchMask|unix.IN_ONLYDIR)
			if err != nil {
				return err
			}
			w.dirs[wd], w.have[d] = d, true
			if d == "." {
				break
			}
		}
	}
	return nil
}

// drain reads every pending event. It returns the files they name, and
// ok=false when only a full scan can tell what changed.
func (w *watcher) drain() (paths []string, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ok = true
	var buf [64 << 10]byte
	for {
		n, err := unix.Read(w.fd, buf[:])
		if errors.Is(err, unix.EAGAIN) || n == 0 {
			return paths, ok
		}
		if err != nil {
			return nil, false
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			nameBytes := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0,
				ev.Mask&unix.IN_ISDIR != 0,
				ev.Mask&(unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0:
				ok = false
				continue
			}
			dir, known := w.dirs[int(ev.Wd)]
			if !known {
				ok = false
				continue
			}
			name := string(nameBytes)
			for len(name) > 0 && name[len(name)-1] == 0 {
				name = name[:len(name)-1]
			}
			paths = append(paths, path.Join(dir, name))
		}
	}
}

func (w *watcher) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
	}
}
