package config

import (
	"fmt"
	"reflect"
)

// notYetInEffect lists documented keys that no code reads yet, with what
// they wait for. Setting one to anything but its default warns once per
// run, and `chanto config` marks it, so nobody believes a setting is at
// work when it is not. Delete the entry when the feature lands.
var notYetInEffect = map[string]string{
	"oracle_model":      "the oracle reviewer is not built yet",
	"guardrails.oracle": "the oracle reviewer is not built yet",
}

// NotYetInEffect reports whether key is accepted but does nothing yet.
func NotYetInEffect(key string) bool {
	_, ok := notYetInEffect[key]
	return ok
}

// warnNotInEffect adds one warning for each key of notYetInEffect that a
// file or flag set to a value other than its default.
func (l *Loaded) warnNotInEffect() {
	for _, s := range l.Sources() {
		why, ok := notYetInEffect[s.Key]
		if !ok || s.From == "default" || reflect.ValueOf(s.Raw).IsZero() {
			continue
		}
		l.Warnings = append(l.Warnings, fmt.Sprintf("%s = %s (%s) is not yet in effect: %s", s.Key, s.Value, s.From, why))
	}
}
