package git

import (
	"io/fs"
	"syscall"
)

// statOf is the stat data git's stat test compares, from an lstat.
func statOf(fi fs.FileInfo) (stat, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return stat{}, false
	}
	return stat{
		ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec, mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
		dev: uint64(st.Dev), ino: st.Ino, mode: st.Mode, uid: st.Uid, gid: st.Gid, size: st.Size,
	}, true
}
