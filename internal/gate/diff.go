package gate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"

	"github.com/chanto-dev/chanto/internal/verify/snapshot"
)

// Limits of the diff the oracle reviews.
const (
	// diffFileCap: a file larger than this on either side is summarised.
	diffFileCap = 256 << 10
	// diffCap bounds the whole diff; files past it are only named.
	diffCap = 120 << 10
)

// turnDiff is a turn's change as a unified diff against the turn-start
// snapshot: modified, added (untracked included) and deleted files;
// binary and huge files summarised in a line; the whole capped, with a
// note naming the files left out.
type turnDiff struct {
	Text  string
	Files int
}

func buildDiff(snap *snapshot.Snapshot, c snapshot.Change) turnDiff {
	var b strings.Builder
	paths := c.All()
	var left []string
	for i, p := range paths {
		part := fileDiff(snap, p)
		if b.Len()+len(part) > diffCap {
			left = paths[i:]
			break
		}
		b.WriteString(part)
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, "\n[diff capped at %d KB: %d more changed file(s) not shown: %s; read them yourself]\n",
			diffCap>>10, len(left), strings.Join(left, ", "))
	}
	return turnDiff{Text: b.String(), Files: len(paths)}
}

// fileDiff is one file's part of the diff.
func fileDiff(snap *snapshot.Snapshot, p string) string {
	var old, cur []byte
	had := snap.Has(p)
	if had {
		var err error
		if old, err = snap.ReadFile(p); err != nil {
			return fmt.Sprintf("diff --git a/%s b/%s\n[the turn-start version could not be read: %v]\n", p, p, err)
		}
	}
	full := filepath.Join(snap.Root(), filepath.FromSlash(p))
	fi, err := os.Lstat(full)
	exists := err == nil
	switch {
	case exists && fi.Mode()&os.ModeSymlink != 0:
		target, _ := os.Readlink(full)
		cur = []byte("symbolic link to " + target + "\n")
	case exists && fi.Mode().IsRegular():
		if cur, err = os.ReadFile(full); err != nil {
			return fmt.Sprintf("diff --git a/%s b/%s\n[the current version could not be read: %v]\n", p, p, err)
		}
	case exists:
		cur = []byte(fmt.Sprintf("(%s)\n", fi.Mode().Type()))
	}
	head := fmt.Sprintf("diff --git a/%s b/%s\n", p, p)
	switch {
	case !had:
		head += "new file\n"
	case !exists:
		head += "deleted file\n"
	}
	if binary(old) || binary(cur) {
		return head + fmt.Sprintf("[binary file changed: %d → %d bytes]\n", len(old), len(cur))
	}
	if len(old) > diffFileCap || len(cur) > diffFileCap {
		return head + fmt.Sprintf("[large file changed: %d → %d bytes; not shown, read it yourself]\n", len(old), len(cur))
	}
	from, to := "a/"+p, "b/"+p
	if !had {
		from = "/dev/null"
	}
	if !exists {
		to = "/dev/null"
	}
	return head + udiff.Unified(from, to, string(old), string(cur))
}

// binary reports content a text diff cannot show: a NUL in its first
// 8000 bytes (git's test) or bytes that are not UTF-8.
func binary(b []byte) bool {
	head := b[:min(len(b), 8000)]
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(b)
}
