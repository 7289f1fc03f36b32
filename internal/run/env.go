package run

import (
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
)

// secretParts are substrings that mark a variable name as secret.
var secretParts = []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE", "SESSION", "COOKIE", "DSN"}

// secretPrefixes mark whole families of cloud credentials.
var secretPrefixes = []string{"AWS_", "AZURE_", "VAULT_"}

// secretNames are exact names.
var secretNames = []string{"GOOGLE_APPLICATION_CREDENTIALS", "KUBECONFIG", "SSH_AUTH_SOCK"}

// IsSecretName reports whether a variable with this name is withheld from
// commands.
func IsSecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, p := range secretParts {
		if strings.Contains(up, p) {
			return true
		}
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	return strings.HasSuffix(up, "_PAT") || slices.Contains(secretNames, up)
}

// credentialURL catches scheme://user:password@ even where the password
// holds characters (/, #, ?) that stop url.Parse from seeing userinfo.
var credentialURL = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:]*:[^\s@]+@`)

// tokenUserMin is the length from which a bare URL user name is taken for
// a token (https://ghp_xxx@github.com).
const tokenUserMin = 20

// hasUserinfoURL reports whether value holds a URL with a password, or
// with a user name long enough to be a token.
func hasUserinfoURL(value string) bool {
	if !strings.Contains(value, "@") || !strings.Contains(value, "://") {
		return false
	}
	if credentialURL.MatchString(value) {
		return true
	}
	for _, field := range strings.FieldsFunc(value, func(r rune) bool { return r == ' ' || r == ',' || r == ';' }) {
		u, err := url.Parse(field)
		if err != nil || u.User == nil {
			continue
		}
		if _, ok := u.User.Password(); ok || len(u.User.Username()) >= tokenUserMin {
			return true
		}
	}
	return false
}

// Environ builds a command's environment from scratch: the base
// environment without secret-named variables, without URLs carrying a
// password and without ScrubExtra; pass_env names come back for checks
// and their dependency downloads;
// extra is appended last.
func (r *Runner) Environ(p Purpose, extra []string) []string {
	base := r.BaseEnv
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		passed := (p == Check || p == Download) && slices.Contains(r.PassEnv, name)
		if !passed && (IsSecretName(name) || hasUserinfoURL(value) || slices.Contains(r.ScrubExtra, name)) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}
