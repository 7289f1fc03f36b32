package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/chanto-dev/chanto/internal/verify"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/protect"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
	"github.com/chanto-dev/chanto/internal/verify/snapshot"
)

// components measures each piece of the gate as internal/gate calls it in
// one turn: Take at turn start; after each tool call Changes, Digest and
// protect.Compare; at the final answer the same update and verify.Run.
func (b *bench) components(ctx context.Context) ([]row, error) {
	root := filepath.Join(b.work, "big")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	fmt.Fprintf(b.log, "generating %d packages x %d files ...\n", b.opts.pkgs, b.opts.perPkg)
	if err := module(ctx, b.r, root, b.opts.pkgs, b.opts.perPkg); err != nil {
		return nil, err
	}
	files := b.opts.pkgs*b.opts.perPkg + 1
	fmt.Fprintln(b.log, "snapshot.Take ...")
	take, snap, err := b.takes(ctx, root, files)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	ed, err := makeEdit(root, b.opts.pkgs)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(b.log, "update after a tool call ...")
	up, change, err := b.updates(ctx, snap)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(b.log, "verify.Run with check `true` ...")
	trivial, checkOwn, err := b.trivialGate(ctx, root, snap, change)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(b.log, "selection ...")
	sel, err := b.selection(ctx, root, change)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(b.log, "verify.Run, detected checks settled by the model's run ...")
	prior, err := b.priorGate(ctx, root, snap, change)
	if err != nil {
		return nil, err
	}
	upTotal := up.total()
	repo := fmt.Sprintf("%d files, %d packages", files, b.opts.pkgs)
	rows := []row{
		{figure: "snapshot.Take (turn start)", value: take, target: "≤ 150 ms", note: repo},
		{figure: "update: Changes", value: up.changes, note: fmt.Sprintf("edit: %s, %s", ed.source, ed.test)},
		{figure: "update: Digest", value: up.digest},
		{figure: "update: protect.Compare on the changed files", value: up.protect, note: "2 files, 1 of them a test"},
		{figure: "update per tool call (sum)", value: upTotal, target: "≤ 30 ms"},
		{figure: "selecttest.Select, cold (`go list`, no cache)", value: sel.cold, note: fmt.Sprintf("median of %d; %s", b.opts.cold, sel.command)},
		{figure: "selecttest.Select, graph from disk cache (new process)", value: sel.disk},
		{figure: "selecttest.Select, graph in memory (same session)", value: sel.memory},
		{figure: "verify.Run with check `true`, minus the check's own time", value: trivial, note: "check itself: " + ms(checkOwn) + " (wall, subtracted)"},
		{figure: "verify.Run, detected go vet + go test settled by the model's run, cold graph", value: prior.cold, note: prior.note},
		{figure: "verify.Run, same, graph from disk cache", value: prior.disk},
		{figure: "verify.Run, same, graph in memory", value: prior.memory},
		{figure: "gate overhead per turn, 1 tool call, check `true` (update + update + verify.Run)", value: upTotal.times(2).add(trivial), target: "≤ 100 ms", note: "snapshot not included"},
		{figure: "gate overhead per turn, 1 tool call, detected Go checks, disk-cached graph", value: upTotal.times(2).add(prior.disk), target: "≤ 100 ms", note: "snapshot not included"},
		{figure: "same, with the snapshot", value: take.add(upTotal.times(2)).add(prior.disk)},
	}
	return rows, nil
}

// takes times Take and returns a fresh snapshot of the unchanged tree.
func (b *bench) takes(ctx context.Context, root string, files int) (cost, *snapshot.Snapshot, error) {
	var d []cost
	for i := 0; i < b.opts.n+1; i++ {
		start := mark()
		s, err := snapshot.Take(ctx, b.r, root)
		el := start.since()
		if err != nil {
			return cost{}, nil, err
		}
		if s.Len() != files {
			return cost{}, nil, fmt.Errorf("snapshot has %d files, want %d", s.Len(), files)
		}
		s.Close()
		if i > 0 { // the first run warms the page cache and the git index
			d = append(d, el)
		}
	}
	s, err := snapshot.Take(ctx, b.r, root)
	return medianCost(d), s, err
}

type update struct{ changes, digest, protect cost }

func (u update) total() cost { return u.changes.add(u.digest).add(u.protect) }

func (b *bench) updates(ctx context.Context, snap *snapshot.Snapshot) (update, snapshot.Change, error) {
	var ch, dg, pr []cost
	var last snapshot.Change
	for i := 0; i < b.opts.n; i++ {
		t0 := mark()
		c, err := snap.Changes(ctx)
		ch = append(ch, t0.since())
		if err != nil {
			return update{}, last, err
		}
		if len(c.All()) != 2 {
			return update{}, last, fmt.Errorf("change set %v, want 2 files", c.All())
		}
		t1 := mark()
		_ = snap.Digest(c)
		dg = append(dg, t1.since())
		t2 := mark()
		vs, err := protect.Compare(snap, verify.DirSource(snap.Root()), c.All(), protect.Options{Root: snap.Root()})
		pr = append(pr, t2.since())
		if err != nil {
			return update{}, last, err
		}
		if len(vs) != 0 {
			return update{}, last, fmt.Errorf("a new test was reported as tampering: %v", vs)
		}
		last = c
	}
	return update{medianCost(ch), medianCost(dg), medianCost(pr)}, last, nil
}

// gateOptions are the options internal/gate passes at the final answer.
// Test protection is left off as the gate leaves it: the policy has just
// run protect.Compare itself (counted in the update).
func (b *bench) gateOptions(root string, snap *snapshot.Snapshot, c snapshot.Change) verify.Options {
	return verify.Options{Root: root, BaseSource: snap, Changed: c.All(), Added: c.Added,
		Runner: b.r, HistoryDir: filepath.Join(b.home, "history")}
}

// trivialGate times verify.Run with the check `true` and subtracts the
// check's own run.
// The CPU column keeps the check's own CPU time (it cannot be told apart).
func (b *bench) trivialGate(ctx context.Context, root string, snap *snapshot.Snapshot, c snapshot.Change) (cost, time.Duration, error) {
	var over []cost
	var own []time.Duration
	for i := 0; i < b.opts.n; i++ {
		opts := b.gateOptions(root, snap, c)
		opts.Checks = []string{"true"}
		start := mark()
		rep, err := verify.Run(ctx, opts)
		el := start.since()
		if err != nil {
			return cost{}, 0, err
		}
		if rep.Verdict != verify.Verified || len(rep.Checks) != 1 {
			return cost{}, 0, fmt.Errorf("gate with `true`: %s %s", rep.Verdict, rep.Evidence)
		}
		el.wall -= rep.Checks[0].Duration
		over = append(over, el)
		own = append(own, rep.Checks[0].Duration)
	}
	return medianCost(over), median(own), nil
}

// coldWarm is a figure measured with no graph cache, with the disk cache
// only, and with the in-memory cache.
type coldWarm struct {
	cold, disk, memory cost
	command, note      string
}

func (b *bench) forgetGraphs(disk bool) error {
	selecttest.ResetGoCache()
	if disk {
		return os.RemoveAll(filepath.Join(b.home, "cache"))
	}
	return nil
}

// timed runs f reps times after prepare, returning the median.
func timed(reps int, prepare func() error, f func() error) (cost, error) {
	var d []cost
	for i := 0; i < reps; i++ {
		if err := prepare(); err != nil {
			return cost{}, err
		}
		start := mark()
		if err := f(); err != nil {
			return cost{}, err
		}
		d = append(d, start.since())
	}
	return medianCost(d), nil
}

// coldWarm measures f cold, with the disk cache and from memory.
func (b *bench) coldWarm(f func() error) (coldWarm, error) {
	var cw coldWarm
	var err error
	if cw.cold, err = timed(b.opts.cold, func() error { return b.forgetGraphs(true) }, f); err != nil {
		return cw, err
	}
	if cw.disk, err = timed(b.opts.n, func() error { return b.forgetGraphs(false) }, f); err != nil {
		return cw, err
	}
	cw.memory, err = timed(b.opts.n, func() error { return nil }, f)
	return cw, err
}

// selection times selecttest.Select for the detected go test check.
func (b *bench) selection(ctx context.Context, root string, c snapshot.Change) (coldWarm, error) {
	projects, err := detect.ProjectsContext(ctx, root, c.All(), b.r)
	if err != nil {
		return coldWarm{}, err
	}
	var check *detect.Check
	for _, p := range projects {
		for i := range p.Checks {
			if p.Checks[i].Runner == detect.Go {
				check = &p.Checks[i]
			}
		}
	}
	if check == nil {
		return coldWarm{}, fmt.Errorf("no go test check detected in %v", projects)
	}
	var sel selecttest.Selection
	cw, err := b.coldWarm(func() error {
		var err error
		sel, err = selecttest.Select(ctx, b.r, selecttest.Input{Check: *check, Changed: c.All(), Added: c.Added})
		if err == nil && sel.Full {
			err = fmt.Errorf("selection ran the full suite: %s", sel.Reason)
		}
		return err
	})
	cw.command = fmt.Sprintf("`%s`", sel.Command)
	if len(sel.Command) > 80 {
		cw.command = fmt.Sprintf("%d packages selected", len(sel.Targets))
	}
	return cw, err
}

// priorGate times verify.Run with the detected checks, each settled by a
// passing run of the model's (nothing executes), as internal/gate does
// when the model ran `go vet ./...` and `go test ./...` itself.
func (b *bench) priorGate(ctx context.Context, root string, snap *snapshot.Snapshot, c snapshot.Change) (coldWarm, error) {
	var rep *verify.Report
	cw, err := b.coldWarm(func() error {
		opts := b.gateOptions(root, snap, c)
		opts.Prior = func(p verify.Planned) *verify.Prior {
			return &verify.Prior{Command: string(p.Runner) + " (the model's run)", Passed: true}
		}
		var err error
		rep, err = verify.Run(ctx, opts)
		if err != nil {
			return err
		}
		for _, ch := range rep.Checks {
			if !ch.FromModelRun {
				return fmt.Errorf("check %s was executed", ch.Command)
			}
		}
		if rep.Verdict != verify.Verified {
			return fmt.Errorf("verdict %s: %s", rep.Verdict, rep.Evidence)
		}
		return nil
	})
	if rep != nil {
		cw.note = fmt.Sprintf("%d checks, 0 executed", len(rep.Checks))
	}
	return cw, err
}
