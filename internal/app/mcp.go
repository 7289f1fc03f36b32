package app

import (
	"context"
	"os"
	"slices"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/mcp"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/sandbox"
	"github.com/chanto-dev/chanto/internal/tool"
)

// startMCP starts the session's MCP servers: the admitted ones (a
// project's only when the folder is trusted and the user approved
// each), through the session's runner. Print mode waits for them
// here; an interactive session starts them in the background, asking
// about unapproved project servers, and its first model call waits.
func (s *Session) startMCP() {
	root := config.FindProjectRoot(s.opts.Cwd)
	specs, warns := mcp.Specs(s.opts.Config, root, os.Getenv)
	for _, w := range warns {
		s.opts.Warn(w)
	}
	s.mcp = mcp.NewManager(mcp.Options{
		Runner:     s.runner,
		SandboxFor: s.serverSandbox,
		Root:       s.opts.Cwd,
		Warn:       s.opts.Warn,
		Logger:     s.log,
	})
	if len(specs) == 0 {
		s.mcp.Start(nil, nil)
		return
	}
	trusted, err := config.IsTrusted(root)
	if err != nil {
		s.opts.Warn(err.Error())
	}
	adm := mcp.Admission{Root: root, Trusted: trusted, Approve: s.opts.MCPApprove}
	if s.opts.Interactive {
		adm.Ask = s.askServer
	}
	begin := func() {
		start, held, warns := adm.Admit(context.Background(), specs)
		for _, w := range warns {
			s.opts.Warn(w)
		}
		s.mcp.Start(start, held)
	}
	if s.opts.Interactive {
		go begin()
		return
	}
	begin()
}

// mcpTools are the servers' tools, once their start is over.
func (s *Session) mcpTools() []tool.Tool {
	s.mcp.Wait(context.Background())
	return s.mcp.Tools()
}

// MCPServerQuestion is the Tool of a Question asking whether a project's
// MCP server may start.
const MCPServerQuestion = "mcp server"

// askServer asks the user whether a project's server may start; "always"
// records the approval for later sessions.
func (s *Session) askServer(ctx context.Context, sp mcp.Spec) (allow, always bool) {
	a := s.ask(ctx, Question{
		Tool:    MCPServerQuestion,
		Subject: sp.Name + ": " + sp.CommandLine(),
		Why:     "the project's " + sp.Where + " defines this MCP server; start it?",
		Suggest: "approve " + sp.Name,
	})
	return a.Allow, a.Always
}

// serverSandbox is the sandbox of a stdio server that needs a network
// of its own (declared in the user's file, or a package launcher's
// registry): the session's confinement with that network.
func (s *Session) serverSandbox(network string, domains []string) (run.Wrapper, error) {
	sb := s.opts.Config.Sandbox
	if sb.Mode == sandbox.ModeOff || sb.Network == sandbox.NetAllow && network != sandbox.NetDeny {
		return nil, nil // the session's own sandbox has the network already
	}
	if network == sandbox.NetAllowlist && sb.Network == sandbox.NetAllowlist {
		domains = append(slices.Clone(sb.AllowDomains), domains...)
	}
	if network != "" {
		sb.Network = network
	}
	sb.AllowDomains = domains
	return sandbox.New(sb, config.FindProjectRoot(s.opts.Cwd), s.opts.Sandbox...)
}

// MCP is the status of every configured MCP server (/mcp).
func (s *Session) MCP() []mcp.Status { return s.mcp.Status() }

// StopMCP stops the session's MCP servers (Close does too).
func (s *Session) StopMCP() { s.mcp.Close() }

// MCPWait waits until the servers' start is over (tests, /mcp).
func (s *Session) MCPWait() { s.mcp.Wait(context.Background()) }
