package protect

import (
	"sort"
	"strings"
	"testing"
)

const (
	autoLinksTxt  = "Link: <http://example.com/>.\n\nFtp link: <ftp://example.com>\n"
	autoLinksHTML = "<p>Link: <a href=\"http://example.com/\">http://example.com/</a>.</p>\n<p>Ftp link: <a href=\"ftp://example.com\">ftp://example.com</a></p>\n"
)

// markdownTree is Python-Markdown's layout: a test class walks
// tests/basic and renders each .txt into the .html beside it.
func markdownTree() dirSource {
	return dirSource{
		"tests/test_legacy.py":        "from markdown.test_tools import LegacyTestCase\n\n\nclass TestBasic(LegacyTestCase):\n    location = 'tests/basic'\n",
		"tests/basic/auto-links.txt":  autoLinksTxt,
		"tests/basic/auto-links.html": autoLinksHTML,
		"markdown/inlinepatterns.py":  "AUTOLINK_RE = r'<((?:[Ff]|[Hh][Tt])[Tt][Pp][Ss]?://[^<>]*)>'\n",
	}
}

func with(t dirSource, kv ...string) dirSource {
	out := dirSource{}
	for k, v := range t {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "-" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

// changedPaths lists the paths whose bytes differ between the trees.
func changedPaths(base, cur dirSource) []string {
	var out []string
	for p, b := range base {
		if c, ok := cur[p]; !ok || c != b {
			out = append(out, p)
		}
	}
	for p := range cur {
		if _, ok := base[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// An input file and its expected output side by side in a test folder are
// the test: rewriting either one to match broken code passes it.
func TestTestDataPairs(t *testing.T) {
	md := markdownTree()
	goTree := dirSource{
		"format/format_test.go":             "package format\n",
		"format/testdata/a.input":           "x  :=  1\n",
		"format/testdata/a.output":          "x := 1\n",
		"format/testdata/notes.md":          "how the cases are made\n",
		"format/testdata/run.out":           "ok\n",
		"format/testdata/sum_expected.json": "{\"total\": 3}\n",
	}
	for _, tc := range []struct {
		name      string
		base, cur dirSource
		want      []string // files reported expected_changed
		message   string   // a part of the first report's message
	}{
		{name: "expected output rewritten", base: md, cur: with(md, "tests/basic/auto-links.html", "<p>Link: <http://example.com/>.</p>\n<p>Ftp link: <a href=\"ftp://example.com\">ftp://example.com</a></p>\n"),
			want: []string{"tests/basic/auto-links.html"}, message: "test data changed: the expected output (or input) of a test beside auto-links.txt was rewritten; " + Instruction},
		{name: "input rewritten", base: md, cur: with(md, "tests/basic/auto-links.txt", "Link: <https://example.com/>.\n\nFtp link: <ftp://example.com>\n"),
			want: []string{"tests/basic/auto-links.txt"}, message: "beside auto-links.html"},
		{name: "expected output cut short", base: md, cur: with(md, "tests/basic/auto-links.html", "<p>Link: <a href=\"http://example.com/\">http://example.com/</a>.</p>\n"),
			want: []string{"tests/basic/auto-links.html"}},
		{name: "both rewritten", base: md, cur: with(md, "tests/basic/auto-links.txt", "Link.\n", "tests/basic/auto-links.html", "<p>Link.</p>\n"),
			want: []string{"tests/basic/auto-links.html", "tests/basic/auto-links.txt"}},
		{name: "new pair added", base: md, cur: with(md, "tests/basic/emphasis.txt", "*a*\n", "tests/basic/emphasis.html", "<p><em>a</em></p>\n")},
		{name: "expected output added beside an existing input", base: with(md, "tests/basic/auto-links.html", "-"), cur: md},
		{name: "code fixed", base: md, cur: with(md, "markdown/inlinepatterns.py", "AUTOLINK_RE = r'<((?:[Ff]|[Hh][Tt])[Tt][Pp][Ss]?://[^<> ]*)>'\n")},
		{name: "lone data file", base: dirSource{"tests/data/config.json": "{\"a\": 1}\n"}, cur: dirSource{"tests/data/config.json": "{\"a\": 2}\n"}},
		{name: "pair outside a test folder", base: dirSource{"docs/guide.txt": "a\n", "docs/guide.html": "<p>a</p>\n"}, cur: dirSource{"docs/guide.txt": "a\n", "docs/guide.html": "<p>b</p>\n"}},
		{name: "sibling is code", base: dirSource{"tests/test_cart.py": "def test_total():\n    assert 1\n", "tests/test_cart.json": "[1]\n"}, cur: dirSource{"tests/test_cart.py": "def test_total():\n    assert 1\n", "tests/test_cart.json": "[2]\n"}},
		{name: "pair under __pycache__", base: dirSource{"tests/__pycache__/a.txt": "1\n", "tests/__pycache__/a.html": "1\n"}, cur: dirSource{"tests/__pycache__/a.txt": "1\n", "tests/__pycache__/a.html": "2\n"}},
		{name: "log beside its input", base: dirSource{"tests/run.txt": "1\n", "tests/run.log": "1\n"}, cur: dirSource{"tests/run.txt": "1\n", "tests/run.log": "2\n"}},
		{name: "lock beside a manifest", base: dirSource{"tests/fixtures/app/Pipfile.json": "{}\n", "tests/fixtures/app/Pipfile.lock": "1\n"}, cur: dirSource{"tests/fixtures/app/Pipfile.json": "{}\n", "tests/fixtures/app/Pipfile.lock": "2\n"}},
		{name: "go input and output, output rewritten", base: goTree, cur: with(goTree, "format/testdata/a.output", "x  := 1\n"), want: []string{"format/testdata/a.output"}},
		{name: "go test data notes edited", base: goTree, cur: with(goTree, "format/testdata/notes.md", "how the cases are made, and why\n")},
		{name: "expected name alone", base: goTree, cur: with(goTree, "format/testdata/run.out", "FAIL\n", "format/testdata/sum_expected.json", "{\"total\": 4}\n"),
			want: []string{"format/testdata/run.out", "format/testdata/sum_expected.json"}, message: "golden file changed"},
		{name: "go coverage profile", base: dirSource{"tests/coverage.out": "mode: set\n"}, cur: dirSource{"tests/coverage.out": "mode: count\n"}},
		{name: "expected output deleted", base: md, cur: with(md, "tests/basic/auto-links.html", "-"),
			want: []string{"tests/basic/auto-links.html"}, message: "test data deleted: the expected output (or input) of a test beside auto-links.txt is gone"},
		{name: "pair deleted", base: md, cur: with(md, "tests/basic/auto-links.html", "-", "tests/basic/auto-links.txt", "-"),
			want: []string{"tests/basic/auto-links.html", "tests/basic/auto-links.txt"}},
		{name: "golden file deleted", base: goTree, cur: with(goTree, "format/testdata/run.out", "-"),
			want: []string{"format/testdata/run.out"}, message: "golden file deleted: the expected output is gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs, err := Compare(tc.base, tc.cur, changedPaths(tc.base, tc.cur), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got, all []string
			for _, v := range vs {
				all = append(all, v.String())
				if v.Kind == ExpectedChanged {
					got = append(got, v.File)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") || len(vs) != len(tc.want) {
				t.Fatalf("want expected_changed on %v, got:\n%s", tc.want, strings.Join(all, "\n"))
			}
			if tc.message != "" && !strings.Contains(vs[0].Message, tc.message) {
				t.Errorf("message %q does not say %q", vs[0].Message, tc.message)
			}
		})
	}
}

// The turn snapshot cannot list its folders; the work tree can, and the
// pair is found from it.
func TestTestDataPairBaseUnlisted(t *testing.T) {
	md := markdownTree()
	cur := with(md, "tests/basic/auto-links.html", "<p>Link.</p>\n")
	vs, err := Compare(mapSource(md), cur, []string{"tests/basic/auto-links.html"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Kind != ExpectedChanged || vs[0].Line != 1 {
		t.Fatalf("want one expected_changed at line 1, got %v", vs)
	}
}

// A snapshot taken at turn start keeps the bytes of pair members and of
// files named as expected output, so they can be compared later.
func TestShouldSnapshotTestData(t *testing.T) {
	d := NewDetector(markdownTree())
	for p, want := range map[string]bool{
		"tests/basic/auto-links.html":  true,
		"tests/basic/auto-links.txt":   true,
		"tests/basic/missing.txt":      false,
		"testdata/cases/add.want":      true,
		"markdown/inlinepatterns.html": false,
	} {
		if got := d.ShouldSnapshot(p); got != want {
			t.Errorf("ShouldSnapshot(%s) = %v, want %v", p, got, want)
		}
	}
}

func TestExpectedOutputNames(t *testing.T) {
	for p, want := range map[string]bool{
		"testdata/report.golden":            true, // the rules before
		"src/__snapshots__/a.test.js.snap":  true,
		"testdata/sum.out":                  true,
		"test/cases/add.want":               true,
		"tests/render.expected.html":        true,
		"tests/render_expected.html":        true,
		"spec/fixtures/expected_page.html":  true,
		"testdata/page.golden.json":         true,
		"expected/page.html":                false, // an ordinary name: only as a pair
		"src/sum.out":                       false, // not a test folder
		"tests/a.out":                       false, // a C compiler's default output
		"testdata/cover.out":                false,
		"tests/node_modules/x/expected.out": false,
		"tests/expected_values.py":          false, // code, compared as code
		"tests/.cache/run.out":              false,
	} {
		if got := isGoldenFile(p); got != want {
			t.Errorf("isGoldenFile(%s) = %v, want %v", p, got, want)
		}
	}
}
