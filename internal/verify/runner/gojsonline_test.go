package runner

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// goEventLines are test2json's lines and lines that only look like them.
var goEventLines = []string{
	`{"Time":"2026-12-02T07:00:00.1+00:00","Action":"run","Package":"example.com/m/a","Test":"TestA"}`,
	`{"Time":"2026-12-02T07:00:00.1+00:00","Action":"output","Package":"example.com/m/a","Test":"TestA","Output":"=== RUN   TestA\n"}`,
	`{"Action":"output","Package":"p","Output":"\tx_test.go:12: got \"a\\b\" \u00e9 \ud83d\ude00 \u0000\n"}`,
	`{"Time":"t","Action":"pass","Package":"p","Test":"TestA","Elapsed":0.01}`,
	`{"Action":"fail","Package":"p","Elapsed":1e-3,"FailedBuild":"p [p.test]"}`,
	`{"ImportPath":"p [p.test]","Action":"build-fail"}`,
	`{"Action":"build-output","ImportPath":"p","Output":"# p\n"}`,
	` { "Action" : "skip" , "Test" : "T" } `,
	`{"action":"pass","Test":"lower-case key"}`,
	`{"Action":"pass","Extra":{"nested":true}}`,
	`{"Action":"pass","Test":null}`,
	`{"Action":"pass","Test":5}`,
	`{"Action":"pass","Test":"x"`,
	`{"Action":"pass","Test":"x"} trailing`,
	`{"Action":"pass","Test":"x",}`,
	`{"Action":"pass","Elapsed":01}`,
	`{"Action":"pass","Elapsed":-}`,
	"{\"Action\":\"output\",\"Output\":\"bad \xff utf-8\"}",
	"{\"Action\":\"output\",\"Output\":\"raw\ttab\"}",
	`{"Action":"pass","Action":"fail"}`,
	`{}`,
	`{"Test":"T\u0041"}`,
	`{"Te\u0073t":"escaped key"}`,
}

// decodeGoEvent reads every line as encoding/json does: the same event,
// or an error where encoding/json has one. Recorded go test outputs are
// read too.
func TestDecodeGoEventMatchesEncodingJSON(t *testing.T) {
	lines := append([]string(nil), goEventLines...)
	for _, dir := range []string{"go", "gotestsum"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "output", dir, "*.txtar"))
		for _, f := range files {
			ar, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, file := range ar.Files {
				if file.Name == "stdout" {
					for _, l := range bytes.Split(file.Data, []byte("\n")) {
						lines = append(lines, string(l))
					}
				}
			}
		}
	}
	if len(lines) < 80 {
		t.Fatalf("only %d lines", len(lines))
	}
	for _, l := range lines {
		compareGoEvent(t, []byte(l))
	}
}

func compareGoEvent(t *testing.T, b []byte) {
	t.Helper()
	var want, got goEvent
	werr := json.Unmarshal(b, &want)
	gerr := decodeGoEvent(b, &got)
	if (werr == nil) != (gerr == nil) || werr == nil && got != want {
		t.Errorf("%q:\n got %+v (%v)\nwant %+v (%v)", b, got, gerr, want, werr)
	}
}

func FuzzDecodeGoEvent(f *testing.F) {
	for _, l := range goEventLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, b []byte) { compareGoEvent(t, b) })
}
