module github.com/chanto-dev/chanto

go 1.26.8

require (
	charm.land/bubbles/v2 v2.2.1 // the TUI's input: the textarea (multi-line prompt, word motions, its key map)
	charm.land/bubbletea/v2 v2.1.1 // the TUI's event loop: inline rendering into the scrollback (Println), synchronized output, bracketed paste, Kitty keyboard (Shift+Enter)
	charm.land/glamour/v2 v2.0.1 // the TUI's markdown style sheets (dark, light, plain): a test keeps internal/tui's own sheets equal to them; not linked into chanto, whose every process would run the package init of chroma's registries that its ansi package links (docs/tui.md)
	charm.land/lipgloss/v2 v2.1.0 // the TUI's styles: ANSI colours that degrade to 16 colours and to none under NO_COLOR
	github.com/BurntSushi/toml v1.6.0 // config files, with key positions for line-numbered errors
	github.com/JohannesKaufmann/html-to-markdown/v2 v2.5.2 // web_fetch: HTML pages to Markdown for the model (maintained, CommonMark, links made absolute)
	github.com/alecthomas/chroma/v2 v2.14.0 // the lexer engine under the TUI's code highlighting (internal/tui/lexers.go); its lexers and styles packages are not linked: they fill their registries in package init
	github.com/anthropics/anthropic-sdk-go/v2 v2.15.0 // the official Anthropic Messages client
	github.com/aymanbagabas/go-udiff v0.4.1 // unified diffs of a turn for the oracle to review (a port of the Go tools' own diff)
	github.com/bmatcuk/doublestar/v4 v4.10.4 // ** globs: the glob tool, policy path rules, runner test patterns
	github.com/charmbracelet/x/ansi v0.11.9 // ANSI-aware wrapping of what the TUI prints into the scrollback (bubbletea's own dependency)
	github.com/google/jsonschema-go v0.4.3 // --output-schema validation (draft 2020-12 and draft-07); the MCP SDK's own, with a package init of 0.1 ms
	github.com/landlock-lsm/go-landlock v0.11.2 // the sandbox's second file layer
	github.com/modelcontextprotocol/go-sdk v1.8.0 // the MCP client: stdio and streamable HTTP servers, their tools (internal/mcp)
	github.com/openai/openai-go/v3 v3.98.0 // the official OpenAI Chat Completions and Responses client
	github.com/rogpeppe/go-internal v1.16.0 // testscript: the CLI tests in testdata/script
	github.com/spf13/cobra v1.10.2 // subcommands and flags
	github.com/tree-sitter/go-tree-sitter v0.25.0 // syntax trees for test protection and JS config reading
	github.com/tree-sitter/tree-sitter-java v0.23.5 // grammar: Java tests (JUnit)
	github.com/tree-sitter/tree-sitter-javascript v0.25.0 // grammar: JavaScript tests and jest/vitest configs
	github.com/tree-sitter/tree-sitter-python v0.23.6 // grammar: Python tests
	github.com/tree-sitter/tree-sitter-rust v0.24.0 // grammar: Rust tests
	github.com/tree-sitter/tree-sitter-typescript v0.23.2 // grammar: TypeScript and TSX tests
	github.com/yuin/goldmark v1.8.2 // parsing the model's markdown in the TUI (glamour's parser), GFM tables and task lists
	go.yaml.in/yaml/v4 v4.0.0-rc.2 // YAML by a parser: CI definitions and .mocharc.yml for test protection, pnpm-workspace.yaml; the YAML org's maintained line (gopkg.in/yaml.v3 is archived)
	golang.org/x/mod v0.43.0 // go.mod and go.work files: Go modules that build against each other in one repository
	golang.org/x/net v0.61.0 // IDNA host canonicalization in the network allowlist proxy
	golang.org/x/sys v0.50.0 // seccomp, inotify and other Linux calls
	golang.org/x/term v0.48.0 // is stdin or stdout a terminal, on every platform
	mvdan.cc/sh/v3 v3.14.1 // parsing shell commands: permission rules, the model's own test runs
)

require (
	go.lsp.dev/jsonrpc2 v0.10.0 // language servers: JSON-RPC 2.0 with LSP's Content-Length framing, the version go.lsp.dev/protocol is built on (one RPC layer, not two)
	go.lsp.dev/protocol v0.12.0 // language servers: the LSP types (initialize, didOpen/didChange, publishDiagnostics); crush's powernap is not served by the module proxy, sourcegraph/jsonrpc2 has no protocol types
	go.lsp.dev/uri v0.3.0 // language servers: file:// URIs as the protocol spells them
)

require (
	github.com/JohannesKaufmann/dom v0.3.1 // indirect
	github.com/atotto/clipboard v0.1.4 // indirect
	github.com/aymerick/douceur v0.2.0 // indirect
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.2 // indirect
	github.com/charmbracelet/colorprofile v0.4.3 // indirect
	github.com/charmbracelet/ultraviolet v0.0.0-20261008173134-6b8d4baf91b4 // indirect
	github.com/charmbracelet/x/exp/slice v0.0.0-20250327172914-2fdc97757edf // indirect
	github.com/charmbracelet/x/term v0.2.2 // indirect
	github.com/charmbracelet/x/termios v0.1.1 // indirect
	github.com/charmbracelet/x/windows v0.2.2 // indirect
	github.com/clipperhouse/displaywidth v0.11.0 // indirect
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/dlclark/regexp2 v1.11.0 // indirect
	github.com/go-logr/logr v1.4.2 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/gorilla/css v1.0.1 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/invopop/jsonschema v0.14.0 // indirect
	github.com/lucasb-eyer/go-colorful v1.4.1 // indirect
	github.com/mattn/go-pointer v0.0.1 // indirect
	github.com/mattn/go-runewidth v0.0.30 // indirect
	github.com/microcosm-cc/bluemonday v1.0.27 // indirect
	github.com/muesli/cancelreader v0.2.2 // indirect
	github.com/pb33f/ordered-map/v2 v2.3.1 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/standard-webhooks/standard-webhooks/libraries v0.0.1 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	github.com/xo/terminfo v1.0.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	github.com/yuin/goldmark-emoji v1.0.5 // indirect
	go.lsp.dev/pkg v0.0.0-20210717090340-384b27a52fb2 // indirect
	go.opentelemetry.io/auto/sdk v1.1.0 // indirect
	go.opentelemetry.io/otel v1.33.0 // indirect
	go.opentelemetry.io/otel/metric v1.33.0 // indirect
	go.opentelemetry.io/otel/trace v1.33.0 // indirect
	go.uber.org/atomic v1.9.0 // indirect
	go.uber.org/multierr v1.8.0 // indirect
	go.uber.org/zap v1.21.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
)
