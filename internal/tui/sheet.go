package tui

import "github.com/alecthomas/chroma/v2"

// A sheet is how replies look: glamour's dark, light and plain (NO_COLOR)
// style sheets, the fields this renderer reads, with each heading already
// laid over the common heading style. They are values of our own because
// every glamour package that holds the sheets imports glamour's ansi
// package, and that one links chroma's style and lexer registries, whose
// package initializers (21 ms of CPU, 4 MB of heap) ran in every chanto
// process, verify, hooks and the sandbox helper's parent included
// (docs/benchmarks.md, "Start-up"). TestSheetsAreGlamours keeps each one
// equal to glamour's (charm.land/glamour/v2 v2.0.1, a test dependency).
type sheet struct {
	H                                        [6]mdStyle // H1 to H6
	BlockQuote, HorizontalRule, Item, Strong mdStyle
	Emph, Strikethrough, Code                mdStyle
	Link, LinkText, Image, ImageText         mdStyle
	Ticked, Unticked                         string // task list boxes
	// Tokens colours code blocks by chroma's token types; a type without
	// an entry takes its sub-category's, then its category's, then Text's.
	Tokens map[chroma.TokenType]mdStyle
}

// mdStyle is one element's look: 256-colour numbers or #RRGGBB colours as
// lipgloss reads them, attributes, and the text around it. Mark is what
// plain output writes around emphasis (glamour's block prefix).
type mdStyle struct {
	Color, Background                          string
	Bold, Faint, Italic, Underline, CrossedOut bool
	Prefix, Suffix, Mark                       string
}

// darkSheet is glamour's dark sheet.
var darkSheet = sheet{
	H: [6]mdStyle{
		{Color: "228", Background: "63", Bold: true, Prefix: " ", Suffix: " "},
		{Color: "39", Bold: true, Prefix: "## "},
		{Color: "39", Bold: true, Prefix: "### "},
		{Color: "39", Bold: true, Prefix: "#### "},
		{Color: "39", Bold: true, Prefix: "##### "},
		{Color: "35", Prefix: "###### "},
	},
	HorizontalRule: mdStyle{Color: "240"},
	Item:           mdStyle{Mark: "• "},
	Strong:         mdStyle{Bold: true},
	Emph:           mdStyle{Italic: true},
	Strikethrough:  mdStyle{CrossedOut: true},
	Code:           mdStyle{Color: "203", Background: "236", Prefix: "\u00a0", Suffix: "\u00a0"},
	Link:           mdStyle{Color: "30", Underline: true},
	LinkText:       mdStyle{Color: "35", Bold: true},
	Image:          mdStyle{Color: "212", Underline: true},
	ImageText:      mdStyle{Color: "243"},
	Ticked:         "[✓] ",
	Unticked:       "[ ] ",
	Tokens: map[chroma.TokenType]mdStyle{
		chroma.Error:               {Color: "#F1F1F1", Background: "#F05B5B"},
		chroma.Keyword:             {Color: "#00AAFF"},
		chroma.KeywordNamespace:    {Color: "#FF5F87"},
		chroma.KeywordReserved:     {Color: "#FF5FD2"},
		chroma.KeywordType:         {Color: "#6E6ED8"},
		chroma.Name:                {Color: "#C4C4C4"},
		chroma.NameAttribute:       {Color: "#7A7AE6"},
		chroma.NameBuiltin:         {Color: "#FF8EC7"},
		chroma.NameClass:           {Color: "#F1F1F1", Bold: true, Underline: true},
		chroma.NameDecorator:       {Color: "#FFFF87"},
		chroma.NameFunction:        {Color: "#00D787"},
		chroma.NameTag:             {Color: "#B083EA"},
		chroma.LiteralString:       {Color: "#C69669"},
		chroma.LiteralStringEscape: {Color: "#AFFFD7"},
		chroma.LiteralNumber:       {Color: "#6EEFC0"},
		chroma.Operator:            {Color: "#EF8080"},
		chroma.Punctuation:         {Color: "#E8E8A8"},
		chroma.Comment:             {Color: "#676767"},
		chroma.CommentPreproc:      {Color: "#FF875F"},
		chroma.GenericDeleted:      {Color: "#FD5B5B"},
		chroma.GenericEmph:         {Italic: true},
		chroma.GenericInserted:     {Color: "#00D787"},
		chroma.GenericStrong:       {Bold: true},
		chroma.GenericSubheading:   {Color: "#777777"},
		chroma.Text:                {Color: "#C4C4C4"},
	},
}

// lightSheet is glamour's light sheet, for a terminal with a light background.
var lightSheet = sheet{
	H: [6]mdStyle{
		{Color: "228", Background: "63", Bold: true, Prefix: " ", Suffix: " "},
		{Color: "27", Bold: true, Prefix: "## "},
		{Color: "27", Bold: true, Prefix: "### "},
		{Color: "27", Bold: true, Prefix: "#### "},
		{Color: "27", Bold: true, Prefix: "##### "},
		{Color: "27", Prefix: "###### "},
	},
	HorizontalRule: mdStyle{Color: "249"},
	Item:           mdStyle{Mark: "• "},
	Strong:         mdStyle{Bold: true},
	Emph:           mdStyle{Italic: true},
	Strikethrough:  mdStyle{CrossedOut: true},
	Code:           mdStyle{Color: "203", Background: "254", Prefix: "\u00a0", Suffix: "\u00a0"},
	Link:           mdStyle{Color: "36", Underline: true},
	LinkText:       mdStyle{Color: "29", Bold: true},
	Image:          mdStyle{Color: "205", Underline: true},
	ImageText:      mdStyle{Color: "243"},
	Ticked:         "[✓] ",
	Unticked:       "[ ] ",
	Tokens: map[chroma.TokenType]mdStyle{
		chroma.Error:               {Color: "#F1F1F1", Background: "#FF5555"},
		chroma.Keyword:             {Color: "#279EFC"},
		chroma.KeywordNamespace:    {Color: "#FB406F"},
		chroma.KeywordReserved:     {Color: "#FF5FD2"},
		chroma.KeywordType:         {Color: "#7049C2"},
		chroma.NameAttribute:       {Color: "#8362CB"},
		chroma.NameBuiltin:         {Color: "#0A1BB1"},
		chroma.NameClass:           {Color: "#212121", Bold: true, Underline: true},
		chroma.NameConstant:        {Color: "#581290"},
		chroma.NameDecorator:       {Color: "#A3A322"},
		chroma.NameFunction:        {Color: "#019F57"},
		chroma.NameTag:             {Color: "#581290"},
		chroma.LiteralString:       {Color: "#7E5B38"},
		chroma.LiteralStringEscape: {Color: "#00AEAE"},
		chroma.LiteralNumber:       {Color: "#22CCAE"},
		chroma.Operator:            {Color: "#FF2626"},
		chroma.Punctuation:         {Color: "#FA7878"},
		chroma.Comment:             {Color: "#8D8D8D"},
		chroma.CommentPreproc:      {Color: "#FF875F"},
		chroma.GenericDeleted:      {Color: "#FD5B5B"},
		chroma.GenericEmph:         {Italic: true},
		chroma.GenericInserted:     {Color: "#00D787"},
		chroma.GenericStrong:       {Bold: true},
		chroma.GenericSubheading:   {Color: "#777777"},
		chroma.Text:                {Color: "#2A2A2A"},
	},
}

// plainSheet is glamour's plain (notty) sheet, for NO_COLOR: no colours, the marks kept as text.
var plainSheet = sheet{
	H: [6]mdStyle{
		{Prefix: "# "},
		{Prefix: "## "},
		{Prefix: "### "},
		{Prefix: "#### "},
		{Prefix: "##### "},
		{Prefix: "###### "},
	},
	Item:          mdStyle{Mark: "• "},
	Strong:        mdStyle{Mark: "**"},
	Emph:          mdStyle{Mark: "*"},
	Strikethrough: mdStyle{Mark: "~~"},
	Code:          mdStyle{Mark: "`"},
	Ticked:        "[x] ",
	Unticked:      "[ ] ",
}
