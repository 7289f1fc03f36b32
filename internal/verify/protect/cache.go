package protect

import (
	"crypto/sha256"
	"sync"

	ts "github.com/tree-sitter/go-tree-sitter"
)

// baseTrees keeps the syntax trees of recently seen base files. The agent
// gate compares the same turn-start snapshot after every tool call, so the
// base side of a file is usually parsed once per turn; the current side is
// then parsed incrementally from a clone.
var baseTrees = &treeCache{max: 64, m: map[[32]byte]*ts.Tree{}}

type treeCache struct {
	mu    sync.Mutex
	max   int
	m     map[[32]byte]*ts.Tree
	order [][32]byte
}

func treeKey(lang string, src []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(lang))
	h.Write([]byte{0})
	h.Write(src)
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
}

// get returns a clone of the cached tree, which the caller closes.
func (c *treeCache) get(k [32]byte) *ts.Tree {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.m[k]; ok {
		return t.Clone()
	}
	return nil
}

// put stores a clone of t, evicting the oldest tree when full.
func (c *treeCache) put(k [32]byte, t *ts.Tree) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return
	}
	if len(c.order) >= c.max {
		old := c.order[0]
		c.order = c.order[1:]
		c.m[old].Close()
		delete(c.m, old)
	}
	c.m[k] = t.Clone()
	c.order = append(c.order, k)
}

// ResetCache drops the cached base trees, so the next Compare parses every
// file afresh (benchmarks use it to measure the one-shot cost).
func ResetCache() {
	c := baseTrees
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.m {
		t.Close()
	}
	c.m = map[[32]byte]*ts.Tree{}
	c.order = nil
}
