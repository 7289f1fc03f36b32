// Command pyimports times the Python import graph on a real project: the
// related-test selection for pytest (selecttest.Select), which parses the
// project's files and resolves their imports, for each of a sample of
// changed source files: cold (nothing parsed yet) and cached (the same
// selection again, as later in a session). CPU time is printed beside wall
// time, which under load says more about the other processes.
//
//	go run ./bench/pyimports -dir /path/to/project [-files 12] [-runs 3]
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

func main() {
	dir := flag.String("dir", "", "the Python project (its root, where pytest would run)")
	files := flag.Int("files", 12, "changed source files to sample, evenly spread over the project")
	runs := flag.Int("runs", 3, "selections per sampled file; the median counts")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "pyimports: -dir is required")
		os.Exit(2)
	}
	if err := bench(*dir, *files, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "pyimports:", err)
		os.Exit(1)
	}
}

func bench(dir string, nfiles, runs int) error {
	home, err := os.MkdirTemp("", "pyimports-home-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	os.Setenv("CHANTO_HOME", home)
	var sources []string
	var pyFiles, pyBytes int
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == ".git" || d.Name() == "__pycache__" || d.Name() == ".venv") {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".py") {
			return nil
		}
		pyFiles++
		if info, err := d.Info(); err == nil {
			pyBytes += int(info.Size())
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if base := filepath.Base(rel); !strings.HasPrefix(base, "test_") && !strings.HasSuffix(base, "_test.py") && base != "conftest.py" {
			sources = append(sources, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(sources) == 0 {
		return fmt.Errorf("no Python source files under %s", dir)
	}
	slices.Sort(sources)
	check := detect.Check{Args: []string{"/usr/bin/python3", "-m", "pytest", "-q"}, Dir: dir, Runner: detect.Pytest, Narrowable: true}
	var cold, coldCPU, cached, cachedCPU []time.Duration
	fmt.Printf("%s: %d .py files, %.1f MB\n", dir, pyFiles, float64(pyBytes)/1e6)
	fmt.Println("changed file\tcold wall\tcold CPU\tcached wall\tcached CPU\tselected")
	for i := 0; i < nfiles && i < len(sources); i++ {
		f := sources[i*len(sources)/min(nfiles, len(sources))]
		in := selecttest.Input{Check: check, Changed: []string{f}}
		var w, c, cw, cc []time.Duration
		var sel selecttest.Selection
		for r := 0; r < runs; r++ {
			// Cold: nothing parsed in memory or on disk.
			selecttest.ResetGoCache()
			os.RemoveAll(filepath.Join(home, "cache"))
			start, cpu := time.Now(), cpuTime()
			if sel, err = selecttest.Select(context.Background(), nil, in); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			w, c = append(w, time.Since(start)), append(c, cpuTime()-cpu)
			// Cached: the same selection again, as later in a session.
			start, cpu = time.Now(), cpuTime()
			if _, err = selecttest.Select(context.Background(), nil, in); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			cw, cc = append(cw, time.Since(start)), append(cc, cpuTime()-cpu)
		}
		row := []time.Duration{median(w), median(c), median(cw), median(cc)}
		cold, coldCPU = append(cold, row[0]), append(coldCPU, row[1])
		cached, cachedCPU = append(cached, row[2]), append(cachedCPU, row[3])
		what := fmt.Sprintf("%d targets", len(sel.Targets))
		if sel.Full {
			what = "full: " + sel.Reason.String()
		}
		fmt.Printf("%s\t%.1f ms\t%.1f ms\t%.1f ms\t%.1f ms\t%s\n", f, ms(row[0]), ms(row[1]), ms(row[2]), ms(row[3]), what)
	}
	fmt.Printf("median of %d files: cold %.1f ms (CPU %.1f ms), cached %.1f ms (CPU %.1f ms)\n", len(cold),
		ms(median(cold)), ms(median(coldCPU)), ms(median(cached)), ms(median(cachedCPU)))
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// cpuTime is the process's user and system time so far: under load the
// wall time of a selection says more about the other processes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
