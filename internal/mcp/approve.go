package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/durable"
)

// ApprovalFile is the user's list of approved project servers: for each
// project folder, server name → the fingerprint approved. A changed
// command, arguments, environment or URL needs approving again.
func ApprovalFile() string { return filepath.Join(config.Home(), "mcp-approved.json") }

var approvalMu sync.Mutex

func readApprovals() (map[string]map[string]string, error) {
	data, err := os.ReadFile(ApprovalFile())
	if errors.Is(err, os.ErrNotExist) {
		return map[string]map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object of folders and servers: %v", ApprovalFile(), err)
	}
	return m, nil
}

// Approved reports whether the user approved s for the project at root.
func Approved(root string, s Spec) (bool, error) {
	approvalMu.Lock()
	defer approvalMu.Unlock()
	m, err := readApprovals()
	if err != nil {
		return false, err
	}
	return m[canonicalRoot(root)][s.Name] == s.Fingerprint, nil
}

// Approve records the user's approval of specs for the project at root.
func Approve(root string, specs ...Spec) error {
	approvalMu.Lock()
	defer approvalMu.Unlock()
	m, err := readApprovals()
	if err != nil {
		return err
	}
	key := canonicalRoot(root)
	if m[key] == nil {
		m[key] = map[string]string{}
	}
	for _, s := range specs {
		m[key][s.Name] = s.Fingerprint
	}
	data, _ := json.MarshalIndent(m, "", "  ")
	if err := os.MkdirAll(config.Home(), 0o700); err != nil {
		return err
	}
	return durable.WriteFile(ApprovalFile(), append(data, '\n'), 0o600)
}

// Revoke forgets the approval of the server called name at root.
func Revoke(root, name string) error {
	approvalMu.Lock()
	defer approvalMu.Unlock()
	m, err := readApprovals()
	if err != nil {
		return err
	}
	key := canonicalRoot(root)
	if _, ok := m[key][name]; !ok {
		return nil
	}
	delete(m[key], name)
	data, _ := json.MarshalIndent(m, "", "  ")
	return durable.WriteFile(ApprovalFile(), append(data, '\n'), 0o600)
}

func canonicalRoot(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		return root
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}
