package tui

import (
	"reflect"
	"testing"

	"charm.land/glamour/v2/ansi"
	glamstyles "charm.land/glamour/v2/styles"
	"github.com/alecthomas/chroma/v2"
)

// glamourSheet is the sheet a glamour style config makes: headings laid
// over the common heading style as glamour cascades them, and the code
// colours that set anything.
func glamourSheet(c ansi.StyleConfig) sheet {
	s := sheet{
		BlockQuote: fromGlamour(c.BlockQuote.StylePrimitive), HorizontalRule: fromGlamour(c.HorizontalRule),
		Item: fromGlamour(c.Item), Strong: fromGlamour(c.Strong), Emph: fromGlamour(c.Emph),
		Strikethrough: fromGlamour(c.Strikethrough), Code: fromGlamour(c.Code.StylePrimitive),
		Link: fromGlamour(c.Link), LinkText: fromGlamour(c.LinkText), Image: fromGlamour(c.Image),
		ImageText: fromGlamour(c.ImageText), Ticked: c.Task.Ticked, Unticked: c.Task.Unticked,
	}
	for i, h := range []ansi.StyleBlock{c.H1, c.H2, c.H3, c.H4, c.H5, c.H6} {
		s.H[i] = fromGlamour(overHeading(c.Heading.StylePrimitive, h.StylePrimitive))
	}
	if ch := c.CodeBlock.Chroma; ch != nil {
		s.Tokens = map[chroma.TokenType]mdStyle{}
		for t, p := range map[chroma.TokenType]ansi.StylePrimitive{
			chroma.Text: ch.Text, chroma.Error: ch.Error, chroma.Comment: ch.Comment, chroma.CommentPreproc: ch.CommentPreproc,
			chroma.Keyword: ch.Keyword, chroma.KeywordReserved: ch.KeywordReserved, chroma.KeywordNamespace: ch.KeywordNamespace,
			chroma.KeywordType: ch.KeywordType, chroma.Operator: ch.Operator, chroma.Punctuation: ch.Punctuation,
			chroma.Name: ch.Name, chroma.NameBuiltin: ch.NameBuiltin, chroma.NameTag: ch.NameTag, chroma.NameAttribute: ch.NameAttribute,
			chroma.NameClass: ch.NameClass, chroma.NameConstant: ch.NameConstant, chroma.NameDecorator: ch.NameDecorator,
			chroma.NameException: ch.NameException, chroma.NameFunction: ch.NameFunction, chroma.NameOther: ch.NameOther,
			chroma.Literal: ch.Literal, chroma.LiteralNumber: ch.LiteralNumber, chroma.LiteralDate: ch.LiteralDate,
			chroma.LiteralString: ch.LiteralString, chroma.LiteralStringEscape: ch.LiteralStringEscape,
			chroma.GenericDeleted: ch.GenericDeleted, chroma.GenericEmph: ch.GenericEmph, chroma.GenericInserted: ch.GenericInserted,
			chroma.GenericStrong: ch.GenericStrong, chroma.GenericSubheading: ch.GenericSubheading,
		} {
			if p.Color != nil || p.Bold != nil || p.Italic != nil || p.Underline != nil || p.BackgroundColor != nil {
				s.Tokens[t] = fromGlamour(p)
			}
		}
	}
	return s
}

// overHeading lays the set fields of h over the common heading style, as
// glamour cascades H1 over Heading.
func overHeading(a, h ansi.StylePrimitive) ansi.StylePrimitive {
	if h.Color != nil {
		a.Color = h.Color
	}
	if h.BackgroundColor != nil {
		a.BackgroundColor = h.BackgroundColor
	}
	if h.Bold != nil {
		a.Bold = h.Bold
	}
	if h.Italic != nil {
		a.Italic = h.Italic
	}
	if h.Underline != nil {
		a.Underline = h.Underline
	}
	a.Prefix, a.Suffix = h.Prefix, h.Suffix
	return a
}

func fromGlamour(p ansi.StylePrimitive) mdStyle {
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	on := func(b *bool) bool { return b != nil && *b }
	return mdStyle{
		Color: str(p.Color), Background: str(p.BackgroundColor),
		Bold: on(p.Bold), Faint: on(p.Faint), Italic: on(p.Italic), Underline: on(p.Underline), CrossedOut: on(p.CrossedOut),
		Prefix: p.Prefix, Suffix: p.Suffix, Mark: p.BlockPrefix,
	}
}

func TestSheetsAreGlamours(t *testing.T) {
	for _, tc := range []struct {
		name string
		ours sheet
		cfg  ansi.StyleConfig
	}{
		{"dark", darkSheet, glamstyles.DarkStyleConfig},
		{"light", lightSheet, glamstyles.LightStyleConfig},
		{"plain", plainSheet, glamstyles.NoTTYStyleConfig},
	} {
		want := glamourSheet(tc.cfg)
		for tok, st := range want.Tokens {
			if tc.ours.Tokens[tok] != st {
				t.Errorf("%s sheet, code token %s = %+v; glamour's is %+v", tc.name, tok, tc.ours.Tokens[tok], st)
			}
		}
		for tok := range tc.ours.Tokens {
			if _, ok := want.Tokens[tok]; !ok {
				t.Errorf("%s sheet, code token %s is styled; glamour's sheet leaves it alone", tc.name, tok)
			}
		}
		want.Tokens, tc.ours.Tokens = nil, nil
		ov, wv := reflect.ValueOf(tc.ours), reflect.ValueOf(want)
		for i := range ov.NumField() {
			if !reflect.DeepEqual(ov.Field(i).Interface(), wv.Field(i).Interface()) {
				t.Errorf("%s sheet, %s = %+v; glamour's is %+v", tc.name, ov.Type().Field(i).Name, ov.Field(i).Interface(), wv.Field(i).Interface())
			}
		}
	}
}
