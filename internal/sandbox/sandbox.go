// Package sandbox confines the commands chanto runs. On Linux each command
// starts under bubblewrap (user, pid, ipc and optionally network
// namespaces; a read-only view of the host with the project, temp dirs and
// tool caches writable; the git folder and .chanto/ read-only even
// inside the project), then a small helper inside the sandbox (this same
// binary, re-executed) adds Landlock, a seccomp filter and a process limit
// before it executes the command. When the sandbox is asked for and cannot
// be set up, Wrap returns an error: commands never run silently unconfined.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/git"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/sandbox/helper"
	_ "github.com/chanto-dev/chanto/internal/sandbox/helper/bridge" // the helper's allowlist case
)

// BwrapPath is where bubblewrap must be; it is never looked up on PATH, so
// a project cannot shadow it.
const BwrapPath = "/usr/bin/bwrap"

// Modes and network settings.
const (
	ModeReadOnly       = "read-only"
	ModeWorkspaceWrite = "workspace-write"
	ModeOff            = "off"

	NetDeny      = "deny"
	NetAllow     = "allow"
	NetAllowlist = "allowlist"
)

// DefaultMaxProcs bounds the processes and threads of one sandboxed
// command (RLIMIT_NPROC inside its own user namespace), so a fork bomb
// stays inside its box until the timeout kills it. Parallel builds start
// many threaded processes per core, so the bound grows with the cores.
var DefaultMaxProcs = max(1024, 64*runtime.NumCPU())

// HelperArg, as the first argument, turns any binary that links this
// package into the in-sandbox helper (package helper, handled in its init,
// before main).
const HelperArg = helper.Arg

// bridgeAddr is where, inside the sandbox, the helper listens and relays
// to the allowlist proxy's Unix socket.
const bridgeAddr = helper.BridgeAddr

// proxyDir is where the proxy's socket folder is bound inside the sandbox.
const proxyDir = "/tmp/.chanto-proxy"

// helperPath is where the helper binary appears inside the sandbox.
const helperPath = "/tmp/.chanto-sandbox/helper"

// Sandbox implements run.Wrapper.
type Sandbox struct {
	mode     string
	network  string
	root     string
	writable []string
	readable []string // bound read-only over the hidden folders (NewGit)
	domains  []string
	maxProcs int
	helper   string
	bwrap    string

	proxyOnce sync.Once
	proxy     *Proxy
	proxyErr  error

	// temps caches TempDir per kind ("" when it could not be made).
	tempMu sync.Mutex
	temps  map[string]string

	cgroups pidsCgroups
}

var (
	_ run.Wrapper  = (*Sandbox)(nil)
	_ run.Releaser = (*Sandbox)(nil)
	_ run.Starter  = (*Sandbox)(nil)
)

// Option adjusts a Sandbox.
type Option func(*Sandbox)

// WithMaxProcs sets the process limit of each command.
func WithMaxProcs(n int) Option { return func(s *Sandbox) { s.maxProcs = n } }

// WithHelper sets the binary re-executed inside the sandbox (default: the
// running executable, which handles HelperArg in its init code).
func WithHelper(path string) Option { return func(s *Sandbox) { s.helper = path } }

// WithBwrapPath points at another bubblewrap binary (an absolute path; it
// is never looked up on PATH). Tests use it to check the refusal.
func WithBwrapPath(path string) Option { return func(s *Sandbox) { s.bwrap = path } }

// New validates the [sandbox] settings for a project root.
func New(cfg config.Sandbox, root string, opts ...Option) (*Sandbox, error) {
	s := &Sandbox{mode: cfg.Mode, network: cfg.Network, domains: cfg.AllowDomains, maxProcs: DefaultMaxProcs, bwrap: BwrapPath}
	if s.mode == "" {
		s.mode = ModeWorkspaceWrite
	}
	if s.network == "" {
		s.network = NetDeny
	}
	switch s.mode {
	case ModeReadOnly, ModeWorkspaceWrite, ModeOff:
	default:
		return nil, fmt.Errorf("sandbox: unknown mode %q (want read-only, workspace-write or off)", cfg.Mode)
	}
	switch s.network {
	case NetDeny, NetAllow, NetAllowlist:
	default:
		return nil, fmt.Errorf("sandbox: unknown network %q (want deny, allow or allowlist)", cfg.Network)
	}
	for _, d := range s.domains {
		if _, err := canonicalPattern(d); err != nil {
			return nil, fmt.Errorf("sandbox: allow_domains: %w", err)
		}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("sandbox: project root %q: %w", root, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	s.root = abs
	for _, w := range cfg.Writable {
		if !filepath.IsAbs(w) {
			w = filepath.Join(abs, w)
		}
		s.writable = append(s.writable, w)
	}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Mode is the sandbox mode in force.
func (s *Sandbox) Mode() string { return s.mode }

// Close stops the allowlist proxy, if one was started, and removes the
// emptied process-limit cgroups.
func (s *Sandbox) Close() error {
	s.cgroups.close()
	if s.proxy != nil {
		return s.proxy.Close()
	}
	return nil
}

// Wrap rewrites cmd to start under bubblewrap and the helper; Start starts
// it.
func (s *Sandbox) Wrap(cmd *exec.Cmd, spec run.Spec) error {
	if s.mode == ModeOff {
		return nil
	}
	if err := s.available(); err != nil {
		return err
	}
	helper := s.helper
	if helper == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("sandbox unavailable: cannot find chanto's own binary: %w", err)
		}
		helper = exe
	}
	args, env, err := s.bwrapArgs(cmd, spec, helper)
	if err != nil {
		return err
	}
	cmd.Path = s.bwrap
	cmd.Args = args
	cmd.Env = env
	cmd.Err = nil
	// chanto's own git and go list run no project code (git's hardening
	// keeps repository-named programs off): they skip the cgroup.
	if s.maxProcs > 0 && spec.Purpose != run.Git && spec.Purpose != run.Internal {
		dir, err := s.cgroups.next(s.maxProcs)
		if err != nil {
			return err
		}
		if dir != "" {
			s.cgroups.track(cmd, dir)
		}
	}
	return nil
}

// Start starts a command Wrap prepared, inside its process-limit cgroup
// when it has one.
func (s *Sandbox) Start(cmd *exec.Cmd) error { return s.cgroups.start(cmd) }

// Release hands back the process-limit cgroup of a command that has ended.
func (s *Sandbox) Release(cmd *exec.Cmd) { s.cgroups.release(cmd) }

// available checks bubblewrap and user namespaces once per binary.
func (s *Sandbox) available() error {
	if platformErr != nil {
		return platformErr
	}
	if s.bwrap != BwrapPath {
		return probe(s.bwrap)
	}
	return Probe()
}

var (
	probeOnce sync.Once
	probeErr  error
)

// Probe reports whether the sandbox can be set up on this machine; nil
// means it works. A success recorded earlier in this boot, for the same
// bubblewrap and namespace settings, is taken as is (probecache.go).
func Probe() error {
	if platformErr != nil {
		return platformErr
	}
	probeOnce.Do(func() {
		key := probeKey(BwrapPath)
		if probeRecorded(key) {
			return
		}
		if probeErr = probe(BwrapPath); probeErr == nil {
			recordProbe(key)
		}
	})
	return probeErr
}

func probe(bwrap string) error {
	if _, err := os.Stat(bwrap); err != nil {
		return fmt.Errorf("sandbox unavailable: %s not found; install bubblewrap (apt-get install bubblewrap) or set [sandbox] mode = \"off\"", bwrap)
	}
	out, err := exec.Command(bwrap, "--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-net",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "/bin/true").CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("sandbox unavailable: bubblewrap cannot create namespaces here (%s); enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0) or set [sandbox] mode = \"off\"", firstLine(msg))
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// bwrapArgs builds the bubblewrap argv and the command's environment.
func (s *Sandbox) bwrapArgs(cmd *exec.Cmd, spec run.Spec, helper string) ([]string, []string, error) {
	a := []string{s.bwrap,
		"--die-with-parent", "--new-session",
		"--unshare-user", "--unshare-pid", "--unshare-ipc",
		"--cap-drop", "ALL",
	}
	if s.network != NetAllow {
		a = append(a, "--unshare-net")
	}
	a = append(a, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp")
	if fi, err := os.Stat("/var/tmp"); err == nil && fi.IsDir() {
		a = append(a, "--tmpfs", "/var/tmp")
	}
	// /run holds the host's service sockets (docker, dbus, databases):
	// hidden, except what name resolution and NixOS binaries need.
	if fi, err := os.Stat("/run"); err == nil && fi.IsDir() {
		a = append(a, "--tmpfs", "/run")
		for _, keep := range []string{"/run/systemd/resolve", "/run/current-system", "/run/wrappers"} {
			a = append(a, "--ro-bind-try", keep, keep)
		}
	}
	a = append(a, "--ro-bind", helper, helperPath)
	rw := s.writableRoots()
	for _, d := range interpreterBinds(cmd.Env, rw) {
		a = append(a, "--ro-bind", d, d)
	}
	for _, w := range rw {
		a = append(a, "--bind", w, w)
	}
	if s.mode == ModeReadOnly {
		a = append(a, "--ro-bind", s.root, s.root)
	}
	for _, p := range s.readable {
		a = append(a, "--ro-bind-try", p, p)
	}
	for _, p := range s.protected() {
		a = append(a, "--ro-bind", p, p)
	}
	temp := s.TempDir(spec.Purpose)
	a = append(a, hideArgs(credentialStores(cmd.Env), append([]string{s.root}, rw...), temp)...)
	env := append([]string(nil), cmd.Env...)
	if temp != "" {
		env = setEnv(env, "TMPDIR", temp)
		rw = append(rw, temp)
		// The go command's build scratch (compiled archives, test
		// binaries) stays on the private tmpfs: nothing there is worth
		// keeping (results go to GOCACHE), and memory is faster than disk.
		if envValue(env, "GOTMPDIR") == "" {
			env = setEnv(env, "GOTMPDIR", "/tmp")
		}
	} else {
		env = setEnv(env, "TMPDIR", "/tmp")
	}
	helperArgs := []string{helperPath, HelperArg, "--net", s.network, "--nproc", strconv.Itoa(s.maxProcs)}
	if s.network == NetAllowlist {
		sock, err := s.proxySocket()
		if err != nil {
			return nil, nil, err
		}
		a = append(a, "--ro-bind", filepath.Dir(sock), proxyDir)
		helperArgs = append(helperArgs, "--proxy", filepath.Join(proxyDir, filepath.Base(sock)))
		for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"} {
			env = setEnv(env, k, "http://"+bridgeAddr)
		}
		env = setEnv(env, "NO_PROXY", "")
		env = setEnv(env, "no_proxy", "")
	}
	for _, w := range rw {
		helperArgs = append(helperArgs, "--rw", w)
	}
	if cmd.Dir != "" {
		a = append(a, "--chdir", cmd.Dir)
	}
	a = append(a, "--")
	a = append(a, helperArgs...)
	a = append(a, "--", cmd.Path)
	a = append(a, cmd.Args...)
	return a, env, nil
}

// writableRoots are the folders a command may write to, besides /tmp.
func (s *Sandbox) writableRoots() []string {
	if s.mode == ModeReadOnly {
		return nil
	}
	roots := []string{s.root}
	roots = append(roots, toolCaches()...)
	roots = append(roots, s.writable...)
	var out []string
	seen := map[string]bool{}
	for _, r := range roots {
		if r == "" || seen[r] {
			continue
		}
		seen[r] = true
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			out = append(out, r)
		}
	}
	return out
}

// protected are the paths inside writable roots that stay read-only: the
// whole git folder (its config and the files it includes, hooks, info/,
// commondir, objects/info/alternates, worktrees/, modules/: what the
// user's git and chanto's read as configuration or follow elsewhere; a
// mount point of its own, it cannot be renamed away either), a .git file
// and the folders it leads to, and chanto's own folder. Missing hooks and
// config are created empty first.
func (s *Sandbox) protected() []string {
	out := []string{filepath.Join(s.root, ".chanto")}
	if _, err := os.Lstat(out[0]); errors.Is(err, os.ErrNotExist) {
		_ = os.Mkdir(out[0], 0o755)
	}
	gitPath := filepath.Join(s.root, ".git")
	if fi, err := os.Lstat(gitPath); err == nil && fi.IsDir() {
		hooks := filepath.Join(gitPath, "hooks")
		if _, err := os.Lstat(hooks); errors.Is(err, os.ErrNotExist) {
			_ = os.Mkdir(hooks, 0o755)
		}
		cfg := filepath.Join(gitPath, "config")
		if _, err := os.Lstat(cfg); errors.Is(err, os.ErrNotExist) {
			_ = os.WriteFile(cfg, nil, 0o644)
		}
	}
	// A .git file (worktree, submodule) and the folders it names; the
	// git folder of a repository holding the project.
	out = append(out, git.GitDirs(s.root)...)
	// A project that holds the home folder must not expose the shell's
	// start-up files and keys.
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		for _, w := range append([]string{s.root}, s.writable...) {
			if home == w || strings.HasPrefix(home, w+"/") || w == "/" {
				for _, f := range homeDotfiles {
					out = append(out, filepath.Join(home, f))
				}
				break
			}
		}
	}
	var exist []string
	for _, p := range out {
		if _, err := os.Stat(p); err == nil {
			exist = append(exist, p)
		}
	}
	return exist
}

func setEnv(env []string, key, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}
