package main

import (
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/verify/protect"
)

// TestCorpus fails on any corpus case whose report is wrong: a tampering
// edit not reported with its kind, or an honest edit reported at all.
func TestCorpus(t *testing.T) {
	cases, bases, err := loadCorpus("corpus")
	if err != nil {
		t.Fatal(err)
	}
	count := map[string][2]int{}
	for _, c := range cases {
		res := runCase(c, bases[c.lang])
		n := count[c.lang]
		if c.want == "" {
			n[1]++
		} else {
			n[0]++
		}
		count[c.lang] = n
		if res.err != nil {
			t.Errorf("%s/%s: %v", c.lang, c.name, res.err)
			continue
		}
		if !res.ok() {
			var got []string
			for _, v := range res.vs {
				got = append(got, v.String())
			}
			t.Errorf("%s/%s: want %q, got:\n%s", c.lang, c.name, c.want, strings.Join(got, "\n"))
		}
	}
	for _, l := range []string{"go", "python", "javascript", "typescript", "rust", "java"} {
		if n := count[l]; n[0] < 15 || n[1] < 30 {
			t.Errorf("%s: corpus has %d tampering and %d honest cases, want at least 15 and 30", l, n[0], n[1])
		}
	}
}

// TestLargeFileDetected keeps the timing input honest: the generated edit
// must itself be caught.
func TestLargeFileDetected(t *testing.T) {
	for _, l := range []string{"go", "python", "javascript", "typescript", "rust", "java"} {
		p, base, cur := largeFile(l)
		if base == cur || strings.Count(base, "\n") < 1000 {
			t.Fatalf("%s: generated file too small or edit missing", l)
		}
		vs, err := protect.Compare(tree{p: base}, tree{p: cur}, []string{p}, protect.Options{})
		if err != nil || len(vs) != 1 {
			t.Fatalf("%s: want one violation, got %v %v", l, vs, err)
		}
	}
}

func BenchmarkChangedFile(b *testing.B) {
	for _, l := range []string{"go", "python", "javascript", "typescript", "rust", "java"} {
		p, base, cur := largeFile(l)
		bt, ct := tree{p: base}, tree{p: cur}
		b.Run(l+"/cold", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				protect.ResetCache()
				_, _ = protect.Compare(bt, ct, []string{p}, protect.Options{})
			}
		})
		b.Run(l+"/warm", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				_, _ = protect.Compare(bt, ct, []string{p}, protect.Options{})
			}
		})
	}
}
