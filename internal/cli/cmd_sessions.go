package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/chanto-dev/chanto/internal/safetext"
	"github.com/chanto-dev/chanto/internal/session"
	"github.com/spf13/cobra"
)

func newSessionsCmd(std *stdio) *cobra.Command {
	var asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List past sessions, newest first (resume one with --resume ID)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSessions(std, asJSON, limit)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	cmd.Flags().IntVarP(&limit, "limit", "n", 0, "show at most `N` sessions (0: all)")
	return cmd
}

func runSessions(std *stdio, asJSON bool, limit int) error {
	if limit < 0 {
		return usageError("--limit must not be negative")
	}
	metas, err := session.List()
	if err != nil {
		return err
	}
	if limit > 0 && len(metas) > limit {
		metas = metas[:limit]
	}
	if asJSON {
		if metas == nil {
			metas = []session.Meta{}
		}
		return writeJSON(std.out, metas)
	}
	if len(metas) == 0 {
		fmt.Fprintln(std.out, "no sessions yet")
		return nil
	}
	tw := tabwriter.NewWriter(std.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tPROMPT\tPROJECT")
	for _, m := range metas {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.ID, m.Created.Local().Format("2006-01-02 15:04"), promptLine(m.FirstPrompt), safetext.Line(m.ProjectDir))
	}
	return tw.Flush()
}

// promptLine is the first line of a prompt, cut to fit a table column.
func promptLine(p string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(p), "\n")
	line = strings.TrimSpace(strings.ReplaceAll(line, "\t", " "))
	if line == "" {
		return "(no prompt)"
	}
	return safetext.Cut(safetext.Line(line), 60)
}
