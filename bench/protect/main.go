// Command protect measures test protection on a corpus of tampering and
// honest edits per language: detection rate, false-positive rate and the
// median time to compare a changed 1,000-line test file.
//
//	go run ./bench/protect [-corpus bench/protect/corpus] [-v]
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"time"
)

func main() {
	dir := flag.String("corpus", "bench/protect/corpus", "corpus directory")
	verbose := flag.Bool("v", false, "print every failing case with its report")
	flag.Parse()
	if err := run(*dir, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "protect bench:", err)
		os.Exit(1)
	}
}

type row struct {
	tamper, caught, honest, flagged, wrongKind int
	median, cpu, warm                          time.Duration
}

func run(dir string, verbose bool) error {
	cases, bases, err := loadCorpus(dir)
	if err != nil {
		return err
	}
	rows := map[string]*row{}
	for _, c := range cases {
		r := rows[c.lang]
		if r == nil {
			r = &row{}
			rows[c.lang] = r
		}
		res := runCase(c, bases[c.lang])
		if res.err != nil {
			return res.err
		}
		if c.want == "" {
			r.honest++
			if len(res.vs) > 0 {
				r.flagged++
			}
		} else {
			r.tamper++
			if len(res.vs) > 0 {
				r.caught++
			}
			if !res.ok() {
				r.wrongKind++
			}
		}
		if verbose && !res.ok() {
			fmt.Printf("FAIL %s/%s want %q\n", c.lang, c.name, c.want)
			for _, v := range res.vs {
				fmt.Println("   ", v.String())
			}
		}
	}
	langs := make([]string, 0, len(rows))
	for l := range rows {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	fmt.Printf("%-11s %7s %9s %7s %10s %10s %12s %10s %10s\n", "language", "tamper", "detected", "honest", "false-pos", "wrong-kind", "median/file", "cpu/file", "warm/file")
	for _, l := range langs {
		r := rows[l]
		r.median, r.cpu = timeLarge(l, 41, true)
		r.warm, _ = timeLarge(l, 41, false)
		fmt.Printf("%-11s %7d %8.1f%% %7d %9.1f%% %10d %10.2fms %8.2fms %8.2fms\n", l, r.tamper, pct(r.caught, r.tamper), r.honest, pct(r.flagged, r.honest), r.wrongKind, ms(r.median), ms(r.cpu), ms(r.warm))
	}
	return nil
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
