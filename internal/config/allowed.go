package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/chanto-dev/chanto/internal/durable"
)

// The allow rules a user added by answering "always" to a permission
// question are kept per project folder in the user's own home, not in the
// project: the model cannot write there, and a cloned repository cannot
// bring rules of its own. They apply in that folder (and below it) in
// every later session, like permissions.allow in the user's config.

// AllowFile holds the saved rules: a JSON object from a canonical project
// folder to its list of rules.
func AllowFile() string { return filepath.Join(Home(), "allowed.json") }

func readAllowed() (map[string][]string, error) {
	data, err := os.ReadFile(AllowFile())
	if errors.Is(err, os.ErrNotExist) {
		return map[string][]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string][]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object of folders to rule lists: %v", AllowFile(), err)
	}
	return m, nil
}

// SavedAllows are the rules saved for the project folder root.
func SavedAllows(root string) ([]string, error) {
	real, err := canonical(root)
	if err != nil {
		return nil, err
	}
	m, err := readAllowed()
	if err != nil {
		return nil, err
	}
	return m[real], nil
}

// SaveAllow adds rule to the saved rules of the project folder root.
func SaveAllow(root, rule string) error {
	real, err := canonical(root)
	if err != nil {
		return err
	}
	m, err := readAllowed()
	if err != nil {
		return err
	}
	if slices.Contains(m[real], rule) {
		return nil
	}
	m[real] = append(m[real], rule)
	data, _ := json.MarshalIndent(m, "", "  ")
	if err := os.MkdirAll(Home(), 0o700); err != nil {
		return err
	}
	if err := durable.WriteFile(AllowFile(), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save allow rule: %w", err)
	}
	return nil
}
