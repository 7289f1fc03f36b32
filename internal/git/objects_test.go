package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
)

// Any number of reads cost one start, and each answers as cat-file does:
// blobs, trees (parsed), ids, and missing names.
func TestObjectsReadsThroughOneStart(t *testing.T) {
	dir := t.TempDir()
	sh(t, dir, "init", "-q")
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "bin"), []byte("x\n\x00\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "two words.txt"), []byte(""), 0o644)
	sh(t, dir, "add", "-A")
	sh(t, dir, "commit", "-qm", "init")
	ctx := context.Background()
	starts := 0
	o := NewObjects(ctx, &run.Runner{GitSandbox: sandboxLike{&starts}}, dir)
	defer o.Close()
	if starts != 0 {
		t.Fatalf("%d starts before any read", starts)
	}
	blob, err := o.Read("HEAD:sub/bin")
	if err != nil || blob.Type != "blob" || string(blob.Data) != "x\n\x00\n" {
		t.Fatalf("blob: %+v, %v", blob, err)
	}
	if b, err := o.Read("HEAD:two words.txt"); err != nil || b.Type != "blob" || len(b.Data) != 0 {
		t.Fatalf("empty blob with a space in its name: %+v, %v", b, err)
	}
	root, err := o.Read("HEAD:")
	if err != nil || root.Type != "tree" {
		t.Fatalf("root tree: %+v, %v", root, err)
	}
	entries, err := ParseTree(root.ID, root.Data)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 || entries[0].Name != "a.txt" || entries[1].Name != "sub" || entries[1].Mode != 0o40000 || entries[2].Name != "two words.txt" {
		t.Errorf("root entries %+v", entries)
	}
	sub, _ := o.Read("HEAD:sub")
	if es, _ := ParseTree(sub.ID, sub.Data); len(es) != 1 || es[0].Mode != 0o100755 {
		t.Errorf("sub entries %+v", es)
	}
	tree, err := o.Read("HEAD^{tree}")
	want, _ := Output(ctx, nil, dir, "rev-parse", "HEAD^{tree}")
	if err != nil || tree.ID != strings.TrimSpace(string(want)) {
		t.Errorf("HEAD^{tree}: %q, %v; rev-parse says %q", tree.ID, err, want)
	}
	for _, name := range []string{"HEAD:gone.txt", "HEAD:sub/gone", "no-such-rev:a.txt"} {
		if _, err := o.Read(name); !errors.Is(err, ErrMissing) {
			t.Errorf("%s: %v, want ErrMissing", name, err)
		}
	}
	// A miss leaves the process answering.
	if b, err := o.Read("HEAD:a.txt"); err != nil || string(b.Data) != "a\n" {
		t.Errorf("after misses: %+v, %v", b, err)
	}
	if _, err := o.Read("HEAD:a\nHEAD:sub/bin"); err == nil || errors.Is(err, ErrMissing) {
		t.Errorf("a name with a newline: %v", err)
	}
	if starts != 1 {
		t.Errorf("%d starts, want 1", starts)
	}
	o.Close()
	if _, err := o.Read("HEAD:a.txt"); err == nil {
		t.Error("a read after Close answered")
	}
}

// A tree that does not parse is an error, not a short listing.
func TestParseTreeRefusesTruncatedEntries(t *testing.T) {
	id := strings.Repeat("ab", 20)
	good := append([]byte("100644 a.txt\x00"), make([]byte, 20)...)
	if es, err := ParseTree(id, good); err != nil || len(es) != 1 || es[0].Name != "a.txt" || es[0].Mode != 0o100644 {
		t.Fatalf("%+v, %v", es, err)
	}
	for _, bad := range [][]byte{good[:len(good)-1], []byte("100644 a.txt"), []byte("x a\x00")} {
		if _, err := ParseTree(id, bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if _, err := ParseTree("abc", good); err == nil {
		t.Error("an id of no known hash size parsed")
	}
	// SHA-256 repositories have 32-byte ids.
	long := append([]byte("40000 d\x00"), make([]byte, 32)...)
	if es, err := ParseTree(strings.Repeat("ab", 32), long); err != nil || len(es) != 1 || es[0].Mode != 0o40000 {
		t.Errorf("sha256 tree: %+v, %v", es, err)
	}
}

// The commands' outputs are Output's, and the same start then answers
// object reads; a failing command is reported as Output reports it.
func TestOutputsThenObjectsSharesOneStart(t *testing.T) {
	dir, cmds := markedRepo(t)
	ctx := context.Background()
	starts := 0
	r := &run.Runner{GitSandbox: sandboxLike{&starts}}
	outs, objs, err := OutputsThenObjects(ctx, r, dir, cmds...)
	if err != nil {
		t.Fatal(err)
	}
	defer objs.Close()
	for i, c := range cmds {
		want, err := Output(ctx, nil, dir, c...)
		if err != nil {
			t.Fatal(err)
		}
		if string(outs[i]) != string(want) {
			t.Errorf("%v: %q, alone %q", c, outs[i], want)
		}
	}
	if b, err := objs.Read("HEAD:a.txt"); err != nil || string(b.Data) != "a\n" {
		t.Errorf("read after the commands: %+v, %v", b, err)
	}
	if _, err := objs.Read("HEAD:gone"); !errors.Is(err, ErrMissing) {
		t.Errorf("missing: %v", err)
	}
	if starts != 1 {
		t.Errorf("%d starts, want 1", starts)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("a file name ran as a command")
	}
	_, objs2, err := OutputsThenObjects(ctx, r, dir, []string{"rev-parse", "HEAD"}, []string{"rev-parse", "--verify", "no-such-rev"})
	ge, ok := err.(*Error)
	if !ok || ge.ExitCode == 0 || ge.Args[len(ge.Args)-1] != "no-such-rev" || objs2 != nil {
		t.Fatalf("a failing second command: %v, %v", err, objs2)
	}
}

// Markers are counted however the stream is cut into writes.
func TestMarkedStreamCountsMarkersSplitAcrossWrites(t *testing.T) {
	whole := "warn\x00chanto-ab 0\x00\x00chanto-ab 12\x00cat-file noise"
	for _, size := range []int{1, 2, 3, 7, len(whole)} {
		m := &markedStream{marker: "\x00chanto-ab ", want: 2, done: make(chan struct{})}
		for i := 0; i < len(whole); i += size {
			m.Write([]byte(whole[i:min(i+size, len(whole))]))
		}
		select {
		case <-m.done:
		default:
			t.Fatalf("writes of %d: done not closed (%d seen)", size, m.seen)
		}
		if got := string(m.bytes()); got != "warn\x00chanto-ab 0\x00\x00chanto-ab 12\x00" {
			t.Errorf("writes of %d: kept %q", size, got)
		}
	}
}
