// Package config loads chanto's TOML configuration (user file, project file,
// flags on top), validates it strictly, remembers where each value came
// from, and keeps the trust store that decides whether a project's
// command-running keys apply.
package config

// Config is the effective configuration.
type Config struct {
	Model       string              `toml:"model"`
	OracleModel string              `toml:"oracle_model"`
	Providers   map[string]Provider `toml:"providers"`
	Guardrails  Guardrails          `toml:"guardrails"`
	Secrets     Secrets             `toml:"secrets"`
	Sandbox     Sandbox             `toml:"sandbox"`
	Permissions Permissions         `toml:"permissions"`
	Hooks       Hooks               `toml:"hooks"`
	// TeamChecks run in every gate run beside the detected or configured
	// checks (trusted folders only).
	TeamChecks []TeamCheck `toml:"team_checks"`
	// MCPServers are the MCP servers to start, by name (Codex's keys).
	MCPServers map[string]MCPServer `toml:"mcp_servers"`
	// MCPProjectServers names the servers of MCPServers that a project
	// file defined (they need the user's approval); set by Load.
	MCPProjectServers []string   `toml:"-"`
	Formatters        Formatters `toml:"formatters"`
	LSP               LSP        `toml:"lsp"`
}

// TeamCheck is a check a team commits once ([[team_checks]]): a lint, a
// type check, a license-header or schema check. It runs after the
// detected or configured checks, always in full, and the evidence names
// it by Name.
type TeamCheck struct {
	Name    string `toml:"name"`
	Command string `toml:"command"`
	// Paths, when set, are globs (relative to the repository root, "**"
	// for any folders): the check runs only when a changed file matches.
	Paths       []string `toml:"paths"`
	TimeoutSecs int      `toml:"timeout_secs"`
}

// Provider is a named model endpoint.
type Provider struct {
	Wire      string `toml:"wire"` // anthropic | openai-chat | openai-responses
	BaseURL   string `toml:"base_url"`
	APIKeyEnv string `toml:"api_key_env"`
	// ContextWindow overrides the model's known window (tokens).
	ContextWindow int `toml:"context_window"`
}

// Guardrails configures verified mode.
type Guardrails struct {
	Enabled        bool     `toml:"enabled"`
	Checks         []string `toml:"checks"`
	Scope          string   `toml:"scope"` // related | full
	MaxAttempts    int      `toml:"max_attempts"`
	ProtectTests   bool     `toml:"protect_tests"`
	Oracle         bool     `toml:"oracle"`
	TimeoutSecs    int      `toml:"timeout_secs"`
	AllowTestEdits []string `toml:"allow_test_edits"`
}

// Secrets configures what checks may see.
type Secrets struct {
	PassEnv []string `toml:"pass_env"`
}

// Sandbox configures the OS sandbox.
type Sandbox struct {
	Mode         string   `toml:"mode"`    // read-only | workspace-write | off
	Network      string   `toml:"network"` // deny | allow | allowlist
	AllowDomains []string `toml:"allow_domains"`
	Writable     []string `toml:"writable"`
}

// Permissions configures the tool policy.
type Permissions struct {
	Mode     string   `toml:"mode"` // default | accept-edits | plan | bypass
	Allow    []string `toml:"allow"`
	Ask      []string `toml:"ask"`
	Deny     []string `toml:"deny"`
	Lockdown bool     `toml:"lockdown"`
}

// Hooks lists user hooks per event.
type Hooks struct {
	SessionStart []Hook `toml:"session_start"`
	UserPrompt   []Hook `toml:"user_prompt"`
	PreToolUse   []Hook `toml:"pre_tool_use"`
	PostToolUse  []Hook `toml:"post_tool_use"`
	Stop         []Hook `toml:"stop"`
}

// Hook is one hook command.
type Hook struct {
	Matcher     string `toml:"matcher"`
	Command     string `toml:"command"`
	TimeoutSecs int    `toml:"timeout_secs"`
}

// MCPServer is one [mcp_servers.NAME] table, with Codex's keys: a stdio
// server (command, args, env, env_vars, cwd) or a streamable HTTP one
// (url, http_headers, env_http_headers, bearer_token_env_var). network
// and allow_domains are chanto's: the sandbox network a stdio server
// needs (the [sandbox] network when unset); only the user's own file
// may set them.
type MCPServer struct {
	Command           string            `toml:"command"`
	Args              []string          `toml:"args"`
	Env               map[string]string `toml:"env"`
	EnvVars           []string          `toml:"env_vars"`
	Cwd               string            `toml:"cwd"`
	URL               string            `toml:"url"`
	HTTPHeaders       map[string]string `toml:"http_headers"`
	EnvHTTPHeaders    map[string]string `toml:"env_http_headers"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var"`
	// Enabled is nil when unset (enabled).
	Enabled           *bool    `toml:"enabled"`
	EnabledTools      []string `toml:"enabled_tools"`
	DisabledTools     []string `toml:"disabled_tools"`
	StartupTimeoutSec float64  `toml:"startup_timeout_sec"`
	ToolTimeoutSec    float64  `toml:"tool_timeout_sec"`
	Network           string   `toml:"network"`
	AllowDomains      []string `toml:"allow_domains"`
}

// Default returns the built-in configuration.
func Default() Config {
	return Config{
		Model: "anthropic/claude-sonnet-4-5",
		Guardrails: Guardrails{
			Scope:        "related",
			MaxAttempts:  3,
			ProtectTests: true,
			TimeoutSecs:  600,
		},
		Sandbox:     Sandbox{Mode: "workspace-write", Network: "deny"},
		Permissions: Permissions{Mode: "default"},
		Formatters:  Formatters{Enabled: true},
		LSP:         LSP{Enabled: true, WaitMS: DefaultLSPWaitMS},
	}
}

// Formatters configures the formatters run on a file after the write and
// edit tools changed it (docs/lsp-and-formatters.md).
type Formatters struct {
	// Enabled false turns every formatter off.
	Enabled bool `toml:"enabled"`
	// Tools adjusts a built-in formatter (gofmt, rustfmt, prettier, ruff,
	// black) or adds one.
	Tools map[string]Formatter `toml:"tools"`
}

// Formatter is one formatter's settings.
type Formatter struct {
	// Command is a shell line run in the file's folder; $FILE is the
	// file's absolute path. Empty keeps a built-in's own command.
	Command string `toml:"command"`
	// Extensions the formatter takes (".go"); a new formatter needs them.
	Extensions []string `toml:"extensions"`
	Disabled   bool     `toml:"disabled"`
}

// DefaultLSPWaitMS is how long an edit waits for a language server's
// diagnostics by default.
const DefaultLSPWaitMS = 3000

// LSP configures the language servers whose diagnostics are appended to
// the write and edit tools' results.
type LSP struct {
	// Enabled false starts no language server.
	Enabled bool `toml:"enabled"`
	// WaitMS bounds the wait for diagnostics after an edit.
	WaitMS int `toml:"wait_ms"`
	// Warnings adds warnings to the errors reported.
	Warnings bool `toml:"warnings"`
	// Servers adjusts a built-in server (gopls, pyright, basedpyright,
	// typescript, rust-analyzer) or adds one.
	Servers map[string]Server `toml:"servers"`
}

// Server is one language server's settings.
type Server struct {
	// Command is the argv that starts the server on stdio.
	Command []string `toml:"command"`
	// Extensions are the files it checks (".go"); a new server needs them.
	Extensions []string `toml:"extensions"`
	// RootMarkers are file names whose folder is the server's root
	// (go.mod); the nearest one above the edited file wins.
	RootMarkers []string `toml:"root_markers"`
	// LanguageID is the LSP language id of its files (default: the
	// extension without its dot).
	LanguageID string `toml:"language_id"`
	Disabled   bool   `toml:"disabled"`
	// Settings answer the server's workspace/configuration requests and
	// go out in didChangeConfiguration; InitOptions are its
	// initializationOptions.
	Settings    map[string]any `toml:"settings"`
	InitOptions map[string]any `toml:"init_options"`
}
