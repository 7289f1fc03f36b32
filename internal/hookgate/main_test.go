package hookgate

import (
	"fmt"
	"os"
	"testing"

	"github.com/chanto-dev/chanto/internal/verify/baseline"
)

// TestMain lets the test binary stand in for chanto's putback watcher
// ("chanto __putback-watch DIR"), which a putback baseline starts from
// os.Executable.
func TestMain(m *testing.M) {
	if len(os.Args) >= 2 && os.Args[1] == baseline.WatchCommand {
		dir := ""
		if len(os.Args) > 2 {
			dir = os.Args[2]
		}
		if err := baseline.Watch(dir, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
