package app

import "sync"

// queue is an unbounded channel of updates: the agent never blocks on a
// slow face, and nothing is dropped.
type queue struct {
	out    chan Update
	mu     sync.Mutex
	items  []Update
	wake   chan struct{}
	closed bool
}

func newQueue() *queue {
	q := &queue{out: make(chan Update), wake: make(chan struct{}, 1)}
	go q.pump()
	return q
}

func (q *queue) push(u Update) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.items = append(q.items, u)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pump hands the items to out in order, then closes out once closed and
// drained. Items not read after close are dropped with the session.
func (q *queue) pump() {
	for {
		q.mu.Lock()
		items, closed := q.items, q.closed
		q.items = nil
		q.mu.Unlock()
		if closed {
			close(q.out)
			return
		}
		for _, u := range items {
			q.out <- u
		}
		if len(items) == 0 {
			<-q.wake
		}
	}
}
