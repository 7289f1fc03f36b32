package detect

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestConfigured(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts":{"test":"vitest run"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		command    string
		runner     Runner
		args       []string
		narrowable bool
	}{
		{"npx jest --ci", Jest, []string{"npx", "jest", "--ci"}, true},
		{"npx jest --env node -c jest.local.cjs", Jest, []string{"npx", "jest", "--env", "node", "-c", "jest.local.cjs"}, false},
		{"npx vitest run", Vitest, []string{"npx", "vitest", "run"}, true},
		{"go test ./...", Go, []string{"go", "test", "./..."}, true},
		{"npm test", Vitest, []string{"npm", "test"}, true},
		{"npx jest && eslint .", Custom, nil, false},
		{"CI=1 npx jest", Custom, nil, false},
		{"./scripts/check", Custom, nil, false},
	}
	for _, tc := range cases {
		c := Configured(dir, tc.command)
		if c.Runner != tc.runner || !slices.Equal(c.Args, tc.args) || c.Narrowable != tc.narrowable || !c.Configured || c.Command != tc.command || c.Dir != dir {
			t.Errorf("%q: got %+v; want runner %s args %q narrowable %v", tc.command, c, tc.runner, tc.args, tc.narrowable)
		}
		if wantWhy := !tc.narrowable && tc.runner != Custom; c.AsWritten.IsZero() == wantWhy {
			t.Errorf("%q: reason to run as written %q", tc.command, c.AsWritten)
		}
	}
}
