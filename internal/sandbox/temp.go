package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
)

// Every sandboxed command gets a private, empty /tmp. Tools that cache in
// the temp folder (jest's transform cache under $TMPDIR/jest_*, pytest's
// basetemp, compilers' scratch files) would then start cold on every run,
// so TMPDIR names a per-project folder under chanto's home instead, kept
// across runs. It is bound at its own path, so chanto can put files there
// for a check (a baseline copy of the tree, the runners' report files) and
// read what the check wrote. The host's /tmp stays hidden.
//
// Checks (and chanto's own commands and dependency downloads) and the
// model's commands get separate folders: the model cannot reach the one
// whose caches the gate's runs read, nor the baseline copy a check runs in.
// Nothing else of chanto's home becomes visible: it stays covered by an
// empty read-only folder, with only the temp folder bound on top.

// tempKinds name the two temp folders of a project.
const (
	tempChecks = "check"
	tempModel  = "model"
)

// tempKind is the temp folder a command of purpose p uses.
func tempKind(p run.Purpose) string {
	switch p {
	case run.Model, run.Hook, run.Server:
		return tempModel
	}
	return tempChecks
}

// projectTempBase is the folder holding a project's temp folders:
// ~/.chanto/tmp/<name>-<hash of the root path>.
func projectTempBase(root string) string {
	sum := sha256.Sum256([]byte(root))
	name := filepath.Base(root)
	if len(name) > 24 {
		name = name[:24]
	}
	name = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, name)
	return filepath.Join(config.Home(), "tmp", name+"-"+hex.EncodeToString(sum[:6]))
}

// TempDir is the temp folder commands of purpose p see as TMPDIR, created
// if needed; "" when it cannot be made (then they get the private /tmp
// only, as before).
func (s *Sandbox) TempDir(p run.Purpose) string {
	if s.mode == ModeOff {
		return ""
	}
	kind := tempKind(p)
	s.tempMu.Lock()
	defer s.tempMu.Unlock()
	if d, ok := s.temps[kind]; ok {
		return d
	}
	d := filepath.Join(projectTempBase(s.root), kind)
	if err := os.MkdirAll(d, 0o700); err != nil {
		d = ""
	}
	if s.temps == nil {
		s.temps = map[string]string{}
	}
	s.temps[kind] = d
	return d
}
