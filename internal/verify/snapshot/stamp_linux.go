package snapshot

import (
	"io/fs"
	"syscall"
)

// inodeAndCtime returns the file's inode and change time, which catch a
// rewrite that kept size and modification time (git checkout, touch -r).
func inodeAndCtime(fi fs.FileInfo) (uint64, int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, st.Ctim.Sec*1e9 + st.Ctim.Nsec
	}
	return 0, 0
}
