package safetext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\nwith\ttabs", "plain text\nwith\ttabs"},
		{"héllo ✓ 日本", "héllo ✓ 日本"},
		{"\x1b[2J\x1b[Hgotcha", `\x1b[2J\x1b[Hgotcha`},
		{"\x1b]0;owned\x07title", `\x1b]0;owned\x07title`},
		{"FAIL\rVerified", `FAIL\x0dVerified`},
		{"line\r\nnext", "line\nnext"},
		{"del\x7f", `del\x7f`},
		{"csi\u009b31m", `csi\u009b31m`},
		{"abc\u202edcba", `abc\u202edcba`},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"é\x1b", `é\x1b`},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	if got := Line("a\nb\tc\x1b"); got != `a\nb\tc\x1b` {
		t.Errorf("Line = %q", got)
	}
}

func TestCutByCharacter(t *testing.T) {
	s := strings.Repeat("é", 200)
	got := Cut(s, 120)
	if !utf8.ValidString(got) || utf8.RuneCountInString(got) != 120 || !strings.HasSuffix(got, "…") {
		t.Errorf("Cut: %d runes, valid %v: %q", utf8.RuneCountInString(got), utf8.ValidString(got), got)
	}
	if Cut("short", 10) != "short" || Cut("exactly10!", 10) != "exactly10!" {
		t.Error("Cut changed short text")
	}
	if got := FirstLine("  \n  ✓ first line \x1b[31m\nsecond", 80); got != `✓ first line \x1b[31m` {
		t.Errorf("FirstLine = %q", got)
	}
}

func TestHeadTailKeepUTF8(t *testing.T) {
	s := strings.Repeat("日", 10) // 3 bytes each
	for n := 0; n <= len(s); n++ {
		if h := Head(s, n); !utf8.ValidString(h) || len(h) > n {
			t.Fatalf("Head(%d) = %q", n, h)
		}
		if tl := Tail(s, n); !utf8.ValidString(tl) || len(tl) > n {
			t.Fatalf("Tail(%d) = %q", n, tl)
		}
	}
}

func TestJSONEscapesWhatTerminalsRead(t *testing.T) {
	v := map[string]string{"text": "a\x1b[2Jb\u009bc\u202ed\x7fe ✓"}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(raw)
	for _, bad := range []string{"\x1b", "\u009b", "\u202e", "\x7f"} {
		if strings.Contains(string(got), bad) {
			t.Errorf("%q still holds %q", got, bad)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["text"] != v["text"] {
		t.Errorf("round trip: %v %q", err, back["text"])
	}
	if plain := []byte(`{"a":"b"}`); &JSON(plain)[0] != &plain[0] {
		t.Error("plain JSON copied")
	}
}

func TestStreamJudgesSplitPiecesWhole(t *testing.T) {
	var s Stream
	var got strings.Builder
	for _, piece := range []string{"one\r", "\ntwo ", "\xe2\x9c", "\x93 \x1b", "[2J three\r"} {
		got.WriteString(s.Clean(piece))
	}
	got.WriteString(s.Flush())
	if want := "one\ntwo ✓ \\x1b[2J three\\x0d"; got.String() != want {
		t.Errorf("stream = %q, want %q", got.String(), want)
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 102: "102nd", 111: "111th"} {
		if got := Ordinal(n); got != want {
			t.Errorf("Ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}
