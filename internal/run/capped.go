package run

import (
	"strconv"
	"sync"
)

// Capped is an io.Writer that keeps the first and last half of its limit
// and drops the middle, so a command that prints megabytes costs a bounded
// amount of memory and its end (where failures are summarized) survives.
type Capped struct {
	mu      sync.Mutex
	limit   int
	head    []byte
	tail    []byte // ring buffer of the last limit/2 bytes
	pos     int    // next write position in tail once it is full
	dropped int64
}

// NewCapped returns a writer keeping at most limit bytes.
func NewCapped(limit int) *Capped {
	if limit < 2 {
		limit = 2
	}
	return &Capped{limit: limit}
}

// Write never fails.
func (c *Capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	headMax := c.limit / 2
	if len(c.head) < headMax {
		k := min(headMax-len(c.head), len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	tailMax := c.limit - headMax
	for len(p) > 0 {
		if len(c.tail) < tailMax {
			k := min(tailMax-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := min(tailMax-c.pos, len(p))
		c.dropped += int64(k)
		copy(c.tail[c.pos:], p[:k])
		c.pos = (c.pos + k) % tailMax
		p = p[k:]
	}
	return n, nil
}

// Truncated reports whether bytes were dropped.
func (c *Capped) Truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped > 0
}

// Bytes returns head, a marker line when the middle was dropped, and tail.
func (c *Capped) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]byte, 0, len(c.head)+len(c.tail)+64)
	out = append(out, c.head...)
	if c.dropped > 0 {
		out = append(out, []byte("\n… ["+strconv.FormatInt(c.dropped, 10)+" bytes of output omitted] …\n")...)
	}
	out = append(out, c.tail[c.pos:]...)
	out = append(out, c.tail[:c.pos]...)
	return out
}
