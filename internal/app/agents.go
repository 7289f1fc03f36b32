package app

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/agents"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/policy"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/sandbox"
	"github.com/chanto-dev/chanto/internal/tool"
)

// Tools are the tools of a session's main agent: the built-in ones and the
// task tool offering agents.
func Tools(set *agents.Set) []tool.Tool {
	return append(tool.Builtin(), agent.Task{Agents: set})
}

// ToolNames are the names an agent file's tools: may use.
func ToolNames() []string {
	var names []string
	for _, t := range Tools(nil) {
		names = append(names, t.Name())
	}
	return names
}

// LoadAgents reads the agent definitions for a session in cwd: the
// built-ins, ~/.chanto/agents, and the project's .chanto/agents (or
// .claude/agents) when the project is trusted. Problems are one line each
// (a bad file, an untrusted project's files) and the rest still load.
func LoadAgents(cfg config.Config, cwd string) agents.Loaded {
	root := config.FindProjectRoot(cwd)
	trusted, err := config.IsTrusted(root)
	if err != nil {
		trusted = false
	}
	return agents.Load(agents.LoadOptions{
		UserDir:     filepath.Join(config.Home(), "agents"),
		ProjectRoot: root,
		Trusted:     trusted,
		Tools:       ToolNames(),
		OracleModel: cfg.OracleModel,
		CheckModel:  config.CheckModelSpec,
	})
}

// models opens the models agents run on, once each: a scripted model
// plays one script across every run that uses it.
type models struct {
	cfg    config.Config
	mu     sync.Mutex
	opened map[string]openedModel
}

type openedModel struct {
	p     llm.Provider
	model string
	err   error
}

func (m *models) open(spec string) (llm.Provider, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o, ok := m.opened[spec]; ok {
		return o.p, o.model, o.err
	}
	p, model, err := OpenProvider(spec, m.cfg)
	if m.opened == nil {
		m.opened = map[string]openedModel{}
	}
	m.opened[spec] = openedModel{p, model, err}
	return p, model, err
}

// readOnlyRunner is the runner of read-only agents' bash calls: the
// session's runner settings in the read-only sandbox, whatever [sandbox]
// mode says (off included: a reviewer's command never writes).
func readOnlyRunner(cfg config.Config, root string, o RunnerOptions) (*run.Runner, error) {
	cfg.Sandbox.Mode = sandbox.ModeReadOnly
	return NewRunner(cfg, root, o)
}

// newWeb is web_fetch's way out: the [sandbox] network setting decides
// where it may connect (deny: nowhere, said before anything is tried), and
// a redirect to another host must pass the permission rules the first URL
// passed (WebFetch(domain:…)).
func (s *Session) newWeb() (*tool.Web, error) {
	sb := s.opts.Config.Sandbox
	dial, err := sandbox.WebDialer(sb)
	if err != nil {
		return nil, err
	}
	w := &tool.Web{Dial: dial}
	if sb.Network == sandbox.NetDeny || sb.Network == "" {
		w.Denied = `[sandbox] network = "deny"; to let tools fetch pages, set network = "allow", or "allowlist" with allow_domains = ["example.com"], in ` + config.UserFile()
	}
	w.Refused = func(u *url.URL) string {
		inner, _ := s.perm.current()
		input, _ := json.Marshal(map[string]string{"url": u.String()})
		d := inner.Policy.Decide("web_fetch", input)
		if d.Verdict == policy.Allow {
			return ""
		}
		return strings.TrimPrefix(d.Reason, "web_fetch refused: ")
	}
	return w, nil
}
