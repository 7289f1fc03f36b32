package hookinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/chanto-dev/chanto/internal/shell"
)

// This file is the edit of one settings file's text: the three agents
// share the shape {"hooks": {"Event": [{"matcher": …, "hooks": [{"type":
// "command", "command": …}]}]}}.

// Found is one chanto hook in a settings file.
type Found struct {
	Event   string
	Matcher string
	Command string
	// Group and Handler are its position: the index in the event's list
	// and in that group's hooks (Codex keys its approvals by them).
	Group, Handler int
	// Current is set when the entry is exactly what install writes now.
	Current bool
	// Shaped is set when it is what install writes but for the command
	// (an install with --command, or by a chanto at another path).
	Shaped bool
}

// ours reports whether command runs chanto's hook for agent a, wherever
// chanto is: `chanto hook claude`, `/opt/bin/chanto hook claude --timeout 5m`.
func ours(a Agent, command string) bool {
	s, err := shell.Parse(command)
	if err != nil || !s.Simple {
		return false
	}
	args := s.Commands[0].Args
	return len(args) >= 3 && strings.HasPrefix(filepath.Base(args[0]), "chanto") && args[1] == "hook" && args[2] == string(a)
}

// hooksObject is the document's "hooks" object, nil when there is none.
func hooksObject(root *value) (*value, error) {
	if root.kind != '{' {
		return nil, errors.New("the file is not a JSON object")
	}
	h := root.get("hooks")
	if h != nil && h.kind != '{' {
		return nil, errors.New(`"hooks" is not an object`)
	}
	return h, nil
}

// scan finds chanto's hooks for agent a in the document.
func scan(src []byte, root *value, a Agent, command string) ([]Found, error) {
	h, err := hooksObject(root)
	if err != nil || h == nil {
		return nil, err
	}
	want := map[string]group{}
	for _, hk := range a.hooks() {
		want[hk.Event] = a.entry(hk, command)
	}
	var out []Found
	for _, m := range h.members {
		if m.val.kind != '[' {
			continue
		}
		for gi, g := range m.val.elems {
			var dg struct {
				Matcher string            `json:"matcher"`
				Hooks   []json.RawMessage `json:"hooks"`
			}
			if g.kind != '{' || decode(src, g, &dg) != nil {
				continue
			}
			for hi, raw := range dg.Hooks {
				var hd handler
				if json.Unmarshal(raw, &hd) != nil || hd.Type != "command" || !ours(a, hd.Command) {
					continue
				}
				w, wanted := want[m.key]
				current := wanted && len(dg.Hooks) == 1 && sameJSON(src[g.start:g.end], w)
				shaped := current || wanted && len(dg.Hooks) == 1 && sameJSON(src[g.start:g.end], a.entry(hookOf(a, m.key), hd.Command))
				out = append(out, Found{Event: m.key, Matcher: dg.Matcher, Command: hd.Command, Group: gi, Handler: hi, Current: current, Shaped: shaped})
			}
		}
	}
	return out, nil
}

// hookOf is the hook chanto installs on event.
func hookOf(a Agent, event string) hook {
	for _, h := range a.hooks() {
		if h.Event == event {
			return h
		}
	}
	return hook{Event: event}
}

// runnable reports whether the program a hook command starts can be
// found: a path that is an executable file, or a name on PATH.
func runnable(command string) bool {
	s, err := shell.Parse(command)
	if err != nil || !s.Simple || len(s.Commands[0].Args) == 0 {
		return false
	}
	prog := s.Commands[0].Args[0]
	if strings.Contains(prog, "/") {
		st, err := os.Stat(prog)
		return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
	}
	_, err = exec.LookPath(prog)
	return err == nil
}

// sameJSON reports whether the JSON text means the same as x.
func sameJSON(text []byte, x any) bool {
	var a, b any
	if json.Unmarshal(stripComments(text), &a) != nil {
		return false
	}
	data, _ := json.Marshal(x)
	_ = json.Unmarshal(data, &b)
	return reflect.DeepEqual(a, b)
}

// edit is a settings text being changed, parsed again after each change.
type edit struct {
	src      []byte
	root     *value
	comments bool
}

func newEdit(src []byte, comments bool) (*edit, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte("{\n}\n")
	}
	e := &edit{src: src, comments: comments}
	return e, e.reparse()
}

func (e *edit) reparse() error {
	root, err := parseJSON(e.src, e.comments)
	if err != nil {
		return err
	}
	e.root = root
	return nil
}

// set replaces the text; chanto's own edits always parse.
func (e *edit) set(src []byte) {
	e.src = src
	if err := e.reparse(); err != nil {
		panic(fmt.Sprintf("hookinstall: an edit broke the JSON: %v\n%s", err, src))
	}
}

// list is the hooks list of event, created (with "hooks") when missing.
func (e *edit) list(event string) (*value, error) {
	h, err := hooksObject(e.root)
	if err != nil {
		return nil, err
	}
	if h == nil {
		e.set(appendChild(e.src, e.root, e.root, "hooks", struct{}{}))
		h, _ = hooksObject(e.root)
	}
	l := h.get(event)
	if l == nil {
		e.set(appendChild(e.src, e.root, h, event, []any{}))
		h, _ = hooksObject(e.root)
		l = h.get(event)
	}
	if l.kind != '[' {
		return nil, fmt.Errorf("hooks.%s is not a list", event)
	}
	return l, nil
}

// removeOne removes one of chanto's handlers, f (its whole group when the
// group holds nothing else). With prune, an event list left empty goes
// too, and then an empty "hooks".
func (e *edit) removeOne(f Found, prune bool) {
	h, _ := hooksObject(e.root)
	mi := -1
	for i, m := range h.members {
		if m.key == f.Event {
			mi = i
		}
	}
	l := h.members[mi].val
	g := l.elems[f.Group]
	hs := g.get("hooks")
	if len(hs.elems) > 1 {
		e.set(removeChild(e.src, hs, f.Handler))
		return
	}
	e.set(removeChild(e.src, l, f.Group))
	if !prune {
		return
	}
	h, _ = hooksObject(e.root)
	if l := h.members[mi].val; len(l.elems) == 0 {
		e.set(removeChild(e.src, h, mi))
		h, _ = hooksObject(e.root)
		if len(h.members) == 0 {
			for i, m := range e.root.members {
				if m.key == "hooks" && m.val.start == h.start {
					e.set(removeChild(e.src, e.root, i))
					break
				}
			}
		}
	}
}

// change is what an install or uninstall did to one file.
type change struct {
	Added, Kept, Removed []string // events
}

// install adds chanto's hooks for agent a to src, running command; an
// entry that is already exactly right is kept, an older one replaced.
func install(src []byte, a Agent, command string) ([]byte, change, error) {
	var ch change
	e, err := newEdit(src, a.comments())
	if err != nil {
		return nil, ch, err
	}
	wanted := map[string]bool{}
	for _, hk := range a.hooks() {
		wanted[hk.Event] = true
	}
	// Entries of events chanto no longer hooks (an older install) go.
	for {
		found, err := scan(e.src, e.root, a, command)
		if err != nil {
			return nil, ch, err
		}
		i := indexFunc(found, func(f Found) bool { return !wanted[f.Event] })
		if i < 0 {
			break
		}
		ch.Removed = append(ch.Removed, found[i].Event)
		e.removeOne(found[i], true)
	}
	for _, hk := range a.hooks() {
		if _, err := e.list(hk.Event); err != nil {
			return nil, ch, err
		}
		found, _ := scan(e.src, e.root, a, command)
		mine := filter(found, hk.Event)
		if len(mine) == 1 && mine[0].Current {
			ch.Kept = append(ch.Kept, hk.Event)
			continue
		}
		for len(mine) > 0 {
			e.removeOne(mine[len(mine)-1], false)
			found, _ = scan(e.src, e.root, a, command)
			mine = filter(found, hk.Event)
		}
		l, _ := e.list(hk.Event)
		e.set(appendChild(e.src, e.root, l, "", a.entry(hk, command)))
		ch.Added = append(ch.Added, hk.Event)
	}
	return e.src, ch, nil
}

// uninstall removes every chanto hook for agent a from src.
func uninstall(src []byte, a Agent) ([]byte, change, error) {
	var ch change
	if len(bytes.TrimSpace(src)) == 0 {
		return src, ch, nil
	}
	e, err := newEdit(src, a.comments())
	if err != nil {
		return nil, ch, err
	}
	for {
		found, err := scan(e.src, e.root, a, "")
		if err != nil {
			return nil, ch, err
		}
		if len(found) == 0 {
			return e.src, ch, nil
		}
		f := found[len(found)-1]
		if len(ch.Removed) == 0 || ch.Removed[len(ch.Removed)-1] != f.Event {
			ch.Removed = append(ch.Removed, f.Event)
		}
		e.removeOne(f, true)
	}
}

// empty reports whether a settings text holds nothing: an empty object
// without comments, as uninstall leaves a file install created.
func empty(src []byte) bool {
	return bytes.Equal(bytes.Join(bytes.Fields(src), nil), []byte("{}"))
}

func filter(fs []Found, event string) []Found {
	var out []Found
	for _, f := range fs {
		if f.Event == event {
			out = append(out, f)
		}
	}
	return out
}

func indexFunc(fs []Found, ok func(Found) bool) int {
	for i, f := range fs {
		if ok(f) {
			return i
		}
	}
	return -1
}
