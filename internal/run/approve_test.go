package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestApproveCheckRefusesBeforeStart(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	var asked []string
	r := &Runner{ApproveCheck: func(_ context.Context, cmd string) (bool, string) {
		asked = append(asked, cmd)
		return false, "refused by test"
	}}
	_, err := r.Run(context.Background(), Spec{Args: []string{"touch", marker, "a b", "it's"}, Purpose: Check})
	var re *RefusedError
	if !errors.As(err, &re) || re.Reason != "refused by test" {
		t.Fatalf("err = %v, want RefusedError", err)
	}
	if want := "touch " + marker + ` 'a b' "it's"`; len(asked) != 1 || asked[0] != want {
		t.Fatalf("asked %q, want [%q]", asked, want)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("refused check ran: %v", err)
	}
	// Only checks are asked: the model's commands have their own approver.
	if _, err := r.Run(context.Background(), Spec{Args: []string{"touch", marker}, Purpose: Model}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil || len(asked) != 1 {
		t.Fatalf("model command: stat %v, asked %d times", err, len(asked))
	}
}
