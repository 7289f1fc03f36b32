package cli

import (
	"fmt"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/verify/baseline"
)

// recoverPutbacks restores files left put back by a chanto that died in
// the middle of a baseline run (and whose watcher died too), and says so.
// Every start that may touch a project does this first (DESIGN §5).
func recoverPutbacks(std *stdio) {
	restored, err := baseline.Recover(config.HistoryDir())
	for _, r := range restored {
		fmt.Fprintf(std.err, "chanto: %s\n", r.Message())
	}
	if err != nil {
		fmt.Fprintf(std.err, "chanto: %v\n", err)
	}
}
