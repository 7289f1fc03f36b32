// Package safetext makes text that chanto did not write itself — the
// model's answer, tool and check output, test names read from that output,
// file names — safe to show: control characters and escape sequences are
// shown as visible escapes instead of reaching the terminal, where they could
// move the cursor, rewrite the screen or set the window title, and text is
// cut by character, never inside a UTF-8 sequence. It is the one place that
// does this; every face (print mode, chanto verify, the TUI) goes through it.
// It also spells the ordinals names shown to people use (Ordinal).
package safetext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Clean returns s with every character a terminal would act on shown as a
// visible escape: C0 controls other than newline and tab (ESC becomes
// `\x1b`, a lone carriage return `\x0d`), DEL, the C1 controls (U+0080 to
// U+009F, which some terminals read as ESC sequences) and the bidirectional
// overrides that make text read differently from what it is. A CRLF
// becomes a newline; invalid UTF-8 becomes U+FFFD.
func Clean(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// CRLF line ends are plain line ends.
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Line is Clean for text that must stay on one line: newlines and tabs are
// shown as escapes too.
func Line(s string) string {
	s = Clean(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(s)
}

// Cut returns s shortened to at most n characters, the last of them "…"
// when anything was cut. It never splits a UTF-8 sequence.
func Cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n-1 {
			return s[:i] + "…"
		}
		count++
	}
	return s
}

// FirstLine returns the first non-blank line of s, trimmed, cleaned and cut
// to n characters: the form for a one-line summary of foreign text.
func FirstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return Cut(Line(strings.TrimSpace(s)), n)
}

// Head returns at most n bytes of s, fewer rather than splitting a UTF-8
// sequence: for byte budgets (output sent to the model).
func Head(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Tail returns at most n bytes of the end of s, fewer rather than starting
// inside a UTF-8 sequence.
func Tail(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// unsafeRune reports the characters Clean escapes.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// isClean is the fast path: plain text passes through without a copy.
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return isCleanUTF8(s[i:])
		}
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func isCleanUTF8(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return false
			}
		}
		if unsafeRune(r) {
			return false
		}
	}
	return true
}

// JSON escapes, inside already-encoded JSON, the characters encoding/json
// leaves raw although a terminal acts on them: DEL, the C1 controls and
// the bidirectional overrides become \u escapes. They can only occur inside
// strings (JSON's own syntax is ASCII), so the result is the same JSON
// value, safe to cat to a terminal.
func JSON(b []byte) []byte {
	clean := true
	for _, c := range b {
		if c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r != '\n' && r != '\t' && unsafeRune(r) && size > 0 && !(r == utf8.RuneError && size == 1) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// Stream cleans text that arrives in pieces (a model's streamed deltas):
// a carriage return or a UTF-8 sequence cut at the end of a piece is held
// until the next one, so a CRLF or a character split across two pieces is
// judged whole.
type Stream struct {
	carry string
}

// Clean returns the cleaned text of chunk that can be shown now.
func (s *Stream) Clean(chunk string) string {
	text := s.carry + chunk
	s.carry = ""
	cut := len(text)
	for i := len(text) - 1; i >= 0 && i >= len(text)-utf8.UTFMax; i-- {
		if utf8.RuneStart(text[i]) {
			if !utf8.FullRuneInString(text[i:]) {
				cut = i
			}
			break
		}
	}
	if cut > 0 && text[cut-1] == '\r' {
		cut--
	}
	text, s.carry = text[:cut], text[cut:]
	return Clean(text)
}

// Flush returns what is still held, cleaned.
func (s *Stream) Flush() string {
	text := s.carry
	s.carry = ""
	return Clean(text)
}

// Ordinal writes n as an English ordinal: 1st, 2nd, 3rd, 4th, 11th, 21st.
func Ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}
