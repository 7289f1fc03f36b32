package run

import (
	"strings"
	"testing"
)

func TestIsSecretNameEveryPattern(t *testing.T) {
	secret := []string{
		"OPENAI_API_KEY", "api_key", "KEYRING", "MY_SECRET", "client_secret", "GH_TOKEN", "NPM_TOKEN",
		"DB_PASSWORD", "LDAP_PASSWD", "AWS_CREDENTIALS", "GIT_CREDENTIAL_HELPER", "PRIVATE_REGISTRY",
		"SESSION_ID", "XDG_SESSION_COOKIE", "COOKIE_SECRET", "GITHUB_PAT", "gitlab_pat", "SENTRY_DSN",
		"AWS_REGION", "AWS_PROFILE", "AZURE_TENANT_ID", "GOOGLE_APPLICATION_CREDENTIALS", "VAULT_ADDR",
		"vault_namespace", "KUBECONFIG", "SSH_AUTH_SOCK",
	}
	for _, n := range secret {
		if !IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = false", n)
		}
	}
	plain := []string{"PATH", "HOME", "GOPATH", "GOFLAGS", "LANG", "TERM", "PATCH_LEVEL", "EDITOR", "CI", "PWD", "USER", "SHELL"}
	for _, n := range plain {
		if IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = true", n)
		}
	}
}

func TestCredentialURLs(t *testing.T) {
	secret := []string{
		"postgres://app:hunter2@db:5432/app",
		"https://user:pass@example.com/x",
		"mysql://root:p/ss#word@localhost/db",
		"https://ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaa@github.com/org/repo.git",
		"mirror1 https://u:p@m.example.com",
		"redis://:secret@cache:6379",
	}
	for _, v := range secret {
		if !hasUserinfoURL(v) {
			t.Errorf("hasUserinfoURL(%q) = false", v)
		}
	}
	plain := []string{"https://example.com/a@b", "git@github.com:org/repo.git", "ssh://git@github.com/org/repo", "me@example.com", "http://proxy:3128"}
	for _, v := range plain {
		if hasUserinfoURL(v) {
			t.Errorf("hasUserinfoURL(%q) = true", v)
		}
	}
}

func TestPassEnvReachesChecksOnly(t *testing.T) {
	r := &Runner{
		BaseEnv:    []string{"PATH=/bin", "DEPLOY_TOKEN=d", "OTHER_TOKEN=o", "DATABASE_URL=postgres://a:b@h/d", "MYLLM=k"},
		PassEnv:    []string{"DEPLOY_TOKEN", "DATABASE_URL"},
		ScrubExtra: []string{"MYLLM"},
	}
	for _, p := range []Purpose{Model, Hook, Internal, Check} {
		env := strings.Join(r.Environ(p, nil), "\n")
		passed := p == Check
		if strings.Contains(env, "DEPLOY_TOKEN=d") != passed || strings.Contains(env, "DATABASE_URL=") != passed {
			t.Errorf("purpose %d: pass_env visible = %v, want %v:\n%s", p, !passed, passed, env)
		}
		if strings.Contains(env, "OTHER_TOKEN") || strings.Contains(env, "MYLLM") {
			t.Errorf("purpose %d: a secret not in pass_env leaked:\n%s", p, env)
		}
		if !strings.Contains(env, "PATH=/bin") {
			t.Errorf("purpose %d: PATH missing", p)
		}
	}
}
