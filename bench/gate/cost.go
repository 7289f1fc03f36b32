package main

import (
	"fmt"
	"slices"
	"syscall"
	"time"
)

// cost is what one measured operation took: wall time, and CPU time of this
// process and of the children it waited for (git, go list). On this shared
// 2-core machine wall time stretches with the load; CPU time much less, so
// it is the better guess at the wall time on a quiet machine for work that
// runs on one core.
type cost struct{ wall, cpu time.Duration }

func (c cost) add(d cost) cost  { return cost{c.wall + d.wall, c.cpu + d.cpu} }
func (c cost) times(n int) cost { return cost{c.wall * time.Duration(n), c.cpu * time.Duration(n)} }
func (c cost) String() string   { return ms(c.wall) + " | " + ms(c.cpu) }
func (p point) since() cost     { q := mark(); return cost{q.wall.Sub(p.wall), q.cpu - p.cpu} }
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// point is a moment on both clocks.
type point struct {
	wall time.Time
	cpu  time.Duration
}

func mark() point { return point{time.Now(), cpuTime()} }

// cpuTime is user+system time of this process and its waited-for children.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}

// medianCost takes the median of each clock separately.
func medianCost(cs []cost) cost {
	var w, c []time.Duration
	for _, x := range cs {
		w, c = append(w, x.wall), append(c, x.cpu)
	}
	return cost{median(w), median(c)}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
