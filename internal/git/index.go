package git

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// IndexEntry is one stage-0 entry of git's index, with the stat data git
// recorded when it last found the file clean.
type IndexEntry struct {
	Path string
	// Mode is git's: 100644, 100755, 120000 or 160000 (a submodule).
	Mode uint32
	ID   string // blob id, hex
	// Checkable is set when the stat data may vouch for the content: the
	// entry is not racy (written in the same instant as the index or
	// later), and no flag tells git to skip the check (assume-unchanged,
	// skip-worktree, intent-to-add).
	Checkable bool
	// The recorded stat data (nanoseconds; the rest as git keeps them,
	// the low 32 bits).
	MTime, CTime             int64
	Dev, Ino, UID, GID, Size uint32
}

// CleanFor reports whether the file whose lstat is fi may be trusted to
// hold ID: git's own stat test made stricter (exact nanoseconds, inode,
// device, owner, size and mode), on a checkable entry. A file that fails
// it is hashed by the caller, never trusted.
func (e IndexEntry) CleanFor(fi fs.FileInfo) bool {
	st, ok := statOf(fi)
	if !e.Checkable || !ok {
		return false
	}
	return st.ctime == e.CTime && st.mtime == e.MTime &&
		uint32(st.dev) == e.Dev && uint32(st.ino) == e.Ino && modeOfStat(st.mode) == e.Mode && st.uid == e.UID && st.gid == e.GID &&
		uint32(st.size) == e.Size && uint64(st.size) == uint64(e.Size)
}

// stat is the part of a file's lstat that git's index records.
type stat struct {
	ctime, mtime int64 // nanoseconds
	dev, ino     uint64
	mode         uint32
	uid, gid     uint32
	size         int64
}

// errIndexUnknown marks an index this reader does not understand fully
// (a split or sparse index, another hash, an unknown version): the
// caller asks git instead.
var errIndexUnknown = errors.New("index form not read in-process")

// ReadIndex reads the index of the repository Discover found. Paths are
// slash-separated and relative to the top, in index order (sorted);
// unmerged entries are left out of the list (ls-files lists them once: the
// caller sees them as dirty through Unmerged). An error means: ask git.
func ReadIndex(repo Repo) (entries []IndexEntry, unmerged []string, err error) {
	path := filepath.Join(repo.GitDir, "index")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil // no index yet: nothing tracked
	}
	if err != nil {
		return nil, nil, err
	}
	ist, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	indexMtime := ist.ModTime().UnixNano()
	if len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return nil, nil, fmt.Errorf("%s: %w", path, errIndexUnknown)
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, nil, fmt.Errorf("%s: version %d: %w", path, version, errIndexUnknown)
	}
	n := int(binary.BigEndian.Uint32(data[8:12]))
	const hashLen = 20
	body := data[:len(data)-hashLen]
	off := 12
	var prev []byte
	seenUnmerged := map[string]bool{}
	for i := 0; i < n; i++ {
		start := off
		if off+62 > len(body) {
			return nil, nil, fmt.Errorf("%s: truncated: %w", path, errIndexUnknown)
		}
		be := binary.BigEndian
		f := body[off:]
		ctime := int64(be.Uint32(f[0:]))*1e9 + int64(be.Uint32(f[4:]))
		mtime := int64(be.Uint32(f[8:]))*1e9 + int64(be.Uint32(f[12:]))
		dev, ino := be.Uint32(f[16:]), be.Uint32(f[20:])
		mode, uid, gid, size := be.Uint32(f[24:]), be.Uint32(f[28:]), be.Uint32(f[32:]), be.Uint32(f[36:])
		id := hex.EncodeToString(f[40:60])
		flags := be.Uint16(f[60:])
		off += 62
		var ext uint16
		if flags&0x4000 != 0 {
			if version < 3 || off+2 > len(body) {
				return nil, nil, fmt.Errorf("%s: %w", path, errIndexUnknown)
			}
			ext = be.Uint16(body[off:])
			off += 2
		}
		var name []byte
		if version == 4 {
			strip, k := binary.Uvarint(body[off:])
			if k <= 0 || int(strip) > len(prev) {
				return nil, nil, fmt.Errorf("%s: %w", path, errIndexUnknown)
			}
			off += k
			end := bytes.IndexByte(body[off:], 0)
			if end < 0 {
				return nil, nil, fmt.Errorf("%s: %w", path, errIndexUnknown)
			}
			name = append(append([]byte{}, prev[:len(prev)-int(strip)]...), body[off:off+end]...)
			off += end + 1
		} else {
			end := bytes.IndexByte(body[off:], 0)
			if end < 0 {
				return nil, nil, fmt.Errorf("%s: %w", path, errIndexUnknown)
			}
			name = body[off : off+end]
			// Entries are padded with 1 to 8 NULs to a multiple of 8.
			off = start + (off+end-start+8)&^7
		}
		prev = name
		p := string(name)
		if mode&0o170000 == 0o040000 {
			return nil, nil, fmt.Errorf("%s: sparse directory entry: %w", path, errIndexUnknown)
		}
		if stage := flags >> 12 & 3; stage != 0 {
			if !seenUnmerged[p] {
				seenUnmerged[p] = true
				unmerged = append(unmerged, p)
			}
			continue
		}
		const assumeValid, skipWorktree, intentToAdd = 0x8000, 0x4000, 0x2000
		e := IndexEntry{Path: p, Mode: mode, ID: id, MTime: mtime, CTime: ctime, Dev: dev, Ino: ino, UID: uid, GID: gid, Size: size,
			Checkable: flags&assumeValid == 0 && ext&(skipWorktree|intentToAdd) == 0 && mtime < indexMtime}
		entries = append(entries, e)
	}
	// Extensions: the ones that change what the entries mean stop us.
	for off+8 <= len(body) {
		sig := string(body[off : off+4])
		size := int(binary.BigEndian.Uint32(body[off+4:]))
		switch sig {
		case "link", "sdir":
			return nil, nil, fmt.Errorf("%s: %s extension: %w", path, sig, errIndexUnknown)
		}
		if sig[0] < 'A' || sig[0] > 'Z' {
			return nil, nil, fmt.Errorf("%s: required extension %q: %w", path, sig, errIndexUnknown)
		}
		off += 8 + size
	}
	return entries, unmerged, nil
}

// modeOfStat is the mode git records for a file of this lstat mode (its
// ce_mode_from_stat): a symlink, or a regular file executable by its owner
// or not; 0 for anything else, which never matches an entry.
func modeOfStat(m uint32) uint32 {
	switch m & syscall.S_IFMT {
	case syscall.S_IFLNK:
		return 0o120000
	case syscall.S_IFREG:
		if m&0o100 != 0 {
			return 0o100755
		}
		return 0o100644
	}
	return 0
}
