package cli

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/goal"
)

// goalOptions are the flags that set a goal (docs/goals.md).
type goalOptions struct {
	statement string
	criteria  []string
	file      string
	maxTurns  int
	maxTokens int64
}

// goalPrompt is the prompt of a print-mode run given a goal and no prompt.
const goalPrompt = "Work towards the goal above until its criteria hold."

func addGoalFlags(cmd *cobra.Command, o *goalOptions) {
	f := cmd.Flags()
	f.StringVar(&o.statement, "goal", "", "a goal `TEXT` for the model; its --criterion commands must hold before the answer stands")
	f.StringArrayVar(&o.criteria, "criterion", nil, "an outcome `CRITERION` of the goal: a command that must exit 0, or test: NAME, output: /RE/ CMD, file: PATH [/RE/] (repeatable)")
	f.StringVar(&o.file, "goal-file", "", "read the goal from `FILE` (or NAME for .chanto/goals/NAME.toml)")
	f.IntVar(&o.maxTurns, "goal-max-turns", 0, "the goal's budget of model calls (`N`); when spent the run ends not verified")
	f.Int64Var(&o.maxTokens, "goal-max-tokens", 0, "the goal's budget of tokens (`N`, input and output)")
}

func (o *goalOptions) set() bool {
	return o.statement != "" || len(o.criteria) > 0 || o.file != "" || o.maxTurns != 0 || o.maxTokens != 0
}

// build assembles the goal from a goal file and the flags laid over it;
// nil when no goal flag was given. A goal file inside an untrusted project
// is refused: its criteria are commands.
func (o *goalOptions) build(l *config.Loaded, cwd string) (*goal.Goal, error) {
	if !o.set() {
		return nil, nil
	}
	if o.maxTurns < 0 || o.maxTokens < 0 {
		return nil, usageError("--goal-max-turns and --goal-max-tokens must not be negative")
	}
	g := &goal.Goal{}
	if o.file != "" {
		root := l.ProjectDir
		if root == "" {
			root = cwd
		}
		path := goal.Resolve(root, o.file)
		if !filepath.IsAbs(path) {
			path = filepath.Join(cwd, path)
		}
		if err := goalFileTrusted(l, path); err != nil {
			return nil, err
		}
		loaded, err := goal.LoadFile(path)
		if err != nil {
			return nil, usageError("--goal-file: %v", err)
		}
		g = loaded
	}
	if o.statement != "" {
		g.Statement = strings.TrimSpace(o.statement)
	}
	for _, s := range o.criteria {
		c, err := goal.ParseCriterion(s)
		if err != nil {
			return nil, usageError("--criterion: %v", err)
		}
		g.Criteria = append(g.Criteria, c)
	}
	if o.maxTurns > 0 {
		g.MaxTurns = o.maxTurns
	}
	if o.maxTokens > 0 {
		g.MaxTokens = o.maxTokens
	}
	if err := g.Validate(); err != nil {
		return nil, usageError("goal: %v", err)
	}
	return g, nil
}

// goalFileTrusted refuses a goal file that lies in an untrusted project.
func goalFileTrusted(l *config.Loaded, path string) error {
	if l.ProjectDir == "" {
		return nil
	}
	trusted, err := config.IsTrusted(l.ProjectDir)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(l.ProjectDir, path)
	if trusted || err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	return usageError("--goal-file %s: its criteria are commands, and %s is not trusted (run: chanto trust %s)", rel, l.ProjectDir, l.ProjectDir)
}
