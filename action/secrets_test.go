package action

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestCredentialFiles checks each row of the credential table: its example
// is a secret whatever the home directory is called, read by Read or named
// by a shell command, and each of its patterns is itself a secret.
func TestCredentialFiles(t *testing.T) {
	for _, cf := range credentialFiles {
		t.Run(cf.kind, func(t *testing.T) {
			if cf.example == "" {
				t.Fatal("row has no example")
			}
			if !isSecretPath(cf.example) {
				t.Errorf("isSecretPath(%q) = false", cf.example)
			}
			for _, home := range []string{"/home/ana", "/Users/ana", "/root"} {
				p := cf.example
				if rest, ok := strings.CutPrefix(p, "~/"); ok {
					p = home + "/" + rest
				}
				a := Action{User: "ana", Tool: "Read", Cwd: home + "/shop", Input: map[string]any{"file_path": p}}
				if got := Parts(a)[0].Keys[1]; got != "Read:secret" {
					t.Errorf("Read %s: class key %q, want Read:secret", p, got)
				}
			}
			for _, p := range cf.patterns {
				if !isSecretPath(p) {
					t.Errorf("pattern %q is not a secret by itself", p)
				}
			}
			for _, e := range cf.except {
				name := strings.TrimPrefix(e, "**/")
				if isSecretPath(name) || isSecretPath("/home/ana/shop/"+name) {
					t.Errorf("template %q is taken for a secret", name)
				}
			}
		})
	}
}

func TestIsSecretPath(t *testing.T) {
	secret := []string{
		// The spellings.
		".en?", ".[e]nv", "~/.ss?/id_*", "~/.[s]sh", "/proc/self/environ", "~/.config/gh/hosts.yml", "~/.vault-token",
		// Globs that could match a secret, however they are written.
		".env*", ".e*", ".*", "*/.env", "**/.env*", ".[!a]nv", ".[^a]nv", ".[a-f]nv", ".[[:alpha:]]nv", `.\env`, ".E?V",
		".{env,bak}", "{.env,x}", ".@(env)", ".en+(v)", "./.env", "../.env", "../../.ssh/id_rsa", "src/../.env",
		"~/.ssh", "~/.ssh/", "~/.ssh/*", "~/.s*/*", "~/.*/id_rsa", "~/.*/*", "~/**/id_rsa", "/home/*/.ssh/id_ed25519",
		"/home/ana/.ssh/known_hosts", "/Users/ana/.AWS/credentials", "~ana/.aws/config", "~/.aws", "/root/.kube/config",
		".ssh/id_rsa", ".kube/config", "/proc/1/environ", "/proc/*/environ", "/proc/[0-9]*/environ", "/proc/self/task/7/environ",
		"~/.config/gclou?/**", "~/.docker/config.json", "~/.docker/*.json", "~/.npmrc", "**/.npmrc", "/tmp/ssh-*/agent.*",
		"/tmp/ssh-abc123/agent.999", "~/.claude/.credentials.json", "~/.claude/.cred*", "~/.codex/auth.json", "~/.codex/*.json",
		"~/.gemini/oauth_creds.json", "~/.gemini/*", "certs/*.key", "*.pem", "server.key", "~/.gnupg/**", "~/.password-store",
		"~/Library/Keychains/login.keychain-db", "~/Library/Application Support/Google/Chrome/Default/Cookies",
		"~/.mozilla/firefox/x.default/logins.json", "terraform.tfstate", "prod.env", ".envrc", ".env.local", ".env.prod?",
		"/var/run/secrets/kubernetes.io/serviceaccount/token", "/etc/shadow", "~/.terraform.d/*", "id_rsa", "id_rsa.bak",
		"~/.git-credentials", "~/.netrc", "_netrc", ".pgpass", ".my.cnf", ".pypirc", "~/.config/pip/pip.conf",
		"~/.cargo/credentials", "~/.azure/accessTokens.json", "~/.config/doctl/config.yaml", "~/.config/glab-cli/*",
		"~/.config/hub", "~/.kube/*", "credentials.json", "~/.claude.json",
		"/proc/self/root/home/ana/.config/gh/hosts.yml", "/proc/1/root/root/.kube/config", "/proc/self/cwd/.env",
		"/etc/ssl/private/server", "~/.bash_history", "~/.m2/settings.xml", "~/.gradle/gradle.properties",
		"/home/ana/./.ssh/../.ssh/id_rsa", "//home//ana//.aws//credentials", ".env/", ".env/.", "~ROOT/.ssh/authorized_keys",
		// Each could match a key or a .env-like file where it is run
		// (prod.env, docs/tls.key): honest, if costly.
		"*env", "docs/*.key", "*.json", "~/*", "/etc/ssl/*", "~/.ssh/*",
		"**/*", // from the home directory, it reads the tokens under ~/Library
	}
	for _, p := range secret {
		if !isSecretPath(p) {
			t.Errorf("isSecretPath(%q) = false, want true", p)
		}
	}
	public := []string{
		"README.md", "src/*.go", "src/main.go", "*.go", "**/*.ts", "*.tmp", "*.md", "docs/**/*.md", ".env.example", ".env.sample",
		"/home/ana/shop/.env.template", "config", "~/**/*.go", "~/Library/Preferences/com.apple.dock.plist", "~/.bashrc", "~/.config/git/config", "~/.gitconfig",
		"~/src/shop/main.go", "/etc/hosts", "/proc/self/status", "/proc/cpuinfo", "~", "/", "/tmp/build.log", "Makefile",
		"go.mod", "~/.ssh.md", "package.json", "~/.config/gh/config.yml", "~/*.txt", "keys.go", "environment.go",
		"~/.docker/buildx", "/tmp/*.log", "", "/proc/self/root/etc/hosts", "/proc/self/cwd/main.go", "/proc/self/status",
		"/home/ana/shop/../shop/src/app.ts", "~/.config/gh", "~/.ssh.bak.txt", ".environment.md",
		// Everything in a directory of unknown place is read like a
		// recursive read of it: only known places of credentials count.
		"*", "src/*", "docs/**", "build/**/*",
	}
	for _, p := range public {
		if isSecretPath(p) {
			t.Errorf("isSecretPath(%q) = true, want false", p)
		}
	}
}

// TestSecretAt checks paths seen from a working directory and a home
// directory of no usual shape.
func TestSecretAt(t *testing.T) {
	tests := []struct {
		p, cwd, home string
		want         bool
	}{
		{"environ", "/proc/self", "", true},
		{"id_ed25519", "/srv/ana/.ssh", "/srv/ana", true},
		{"/srv/ana/.ssh/config", "/", "/srv/ana", true},
		{".ssh/*", "/srv/ana", "/srv/ana", true},
		{"config", "/home/ana/.kube", "", true},
		{"config", "/home/ana/shop", "", false},
		{"hosts.yml", "/home/ana/.config/gh", "", true},
		{"*.go", "/home/ana/.ssh", "", true},
		{"*.go", "/home/ana/shop", "", false},
		{"*", "/home/ana/shop", "/home/ana", false},
		{"src/*", "/home/ana/shop", "/home/ana", false},
		{"/home/ana/shop/**", "/home/ana/shop", "/home/ana", false},
		{"*", "/home/ana/.ssh", "/home/ana", true},
		{"*", "/etc/ssl/private", "/home/ana", true},
		{"/etc/ssl/*", "/home/ana/shop", "/home/ana", true},
		{"*", "/home/ana", "/home/ana", false},
	}
	for _, tt := range tests {
		if got := secretAt(tt.p, tt.cwd, tt.home); got != tt.want {
			t.Errorf("secretAt(%q, cwd %q, home %q) = %v, want %v", tt.p, tt.cwd, tt.home, got, tt.want)
		}
	}
}

func TestHoldsSecrets(t *testing.T) {
	tests := map[string]bool{
		"~": true, "~/": true, "/": true, "/home": true, "/home/ana": true, "/Users": true, "~/.config": true,
		"~/.[s]sh": true, "/proc": true, "/proc/self": true, "~/Library": true, "/h*": true, "/*": true, "~/.c*": true,
		"/home/ana/shop": false, "~/src/shop": false, "/etc/nginx": false, "/usr/local": false, "src": false, ".": false,
		"~/.config/nvim": false, "/opt/app": false,
	}
	for p, want := range tests {
		if got := holdsSecrets(p, "/home/ana/shop", "/home/ana"); got != want {
			t.Errorf("holdsSecrets(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestExpandBraces(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"a{b,c}d", "abd acd"},
		{"{a,{b,c}}", "a b c"},
		{"x{1..9}", "x*"},
		{"{a}", "{a}"},
		{"a{", "a{"},
		{`\{a,b}`, `\{a,b}`},
	}
	for _, tt := range tests {
		got, ok := expandBraces(tt.in, maxAlternatives)
		if !ok || strings.Join(got, " ") != tt.want {
			t.Errorf("expandBraces(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	if _, ok := expandBraces(strings.Repeat("{a,b}", 7), maxAlternatives); ok {
		t.Error("128 alternatives expanded; want refused")
	}
	if !isSecretPath(strings.Repeat("{a,b}", 7)) {
		t.Error("a pattern with too many alternatives must count as a secret (an ask), not be skipped")
	}
	if !isSecretPath(strings.Repeat("a", maxPatternLen+1)) {
		t.Error("an over-long path must count as a secret")
	}
	if !isSecretPath(strings.Repeat("a*", maxGlobLen)) {
		t.Error("an over-long glob must count as a secret")
	}
	if isSecretPath("/" + strings.Repeat("a/", maxGlobLen) + "main.go") {
		t.Error("a long literal path that is no secret is taken for one")
	}
}

func BenchmarkIsSecretPath(b *testing.B) {
	for _, p := range []string{"/home/ana/shop/src/internal/cart/cart.go", "src/*.go", "~/.ss?/id_*", "README.md"} {
		b.Run(p, func(b *testing.B) {
			isSecretPath(p) // the automata are built once, on first use
			for b.Loop() {
				isSecretPath(p)
			}
		})
	}
}

// TestGlobOfASecretIsASecret: any glob that matches a secret path is a
// secret, however the path's letters are replaced by wildcards, classes
// and changes of case. This is the property the attacker's next spelling
// tests.
func TestGlobOfASecretIsASecret(t *testing.T) {
	var examples []string
	for _, cf := range credentialFiles {
		examples = append(examples, cf.example)
	}
	examples = append(examples, "/home/ana/shop/.env", "/home/ana/.ssh/id_rsa", "~/.config/gh/hosts.yml", "/proc/self/environ")
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SampledFrom(examples).Draw(t, "secret")
		rs := []rune(p)
		var b strings.Builder
		for i, r := range rs {
			// A dot that starts a name is matched only by a dot, as in
			// the shell; every other letter may be spelled otherwise.
			if r == '/' || r == '~' || (r == '.' && (i == 0 || rs[i-1] == '/')) {
				b.WriteRune(r)
				continue
			}
			switch rapid.IntRange(0, 6).Draw(t, "how") {
			case 0:
				b.WriteRune('?')
			case 1:
				b.WriteString("*")
			case 2:
				b.WriteString("[" + string(r) + "]")
			case 3:
				b.WriteString("[!/]")
			case 4:
				b.WriteString(strings.ToUpper(string(r)))
			case 5:
				b.WriteString(`\` + string(r))
			default:
				b.WriteRune(r)
			}
		}
		if g := b.String(); !isSecretPath(g) {
			t.Fatalf("isSecretPath(%q) = false, but it matches the secret %q", g, p)
		}
	})
}

// TestDotGlobOfASecretIsASecret is the same for globs whose wildcards match
// hidden names (Gemini's), with the dot that starts a name replaced too.
func TestDotGlobOfASecretIsASecret(t *testing.T) {
	examples := []string{"/home/ana/shop/.env", "/home/ana/shop/.env.local", "/home/ana/shop/.env.production", "/home/ana/.ssh/id_rsa",
		"/home/ana/.npmrc", "/home/ana/.config/gh/hosts.yml", "/home/ana/shop/.yarnrc.yml", "/home/ana/.vault-token"}
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SampledFrom(examples).Draw(t, "secret")
		var b strings.Builder
		for _, r := range p {
			if r == '/' {
				b.WriteRune(r)
				continue
			}
			switch rapid.IntRange(0, 3).Draw(t, "how") {
			case 0:
				b.WriteRune('?')
			case 1:
				b.WriteString("*")
			case 2:
				b.WriteString("[" + string(r) + "]")
			default:
				b.WriteRune(r)
			}
		}
		if g := b.String(); !dotGlobSecretAt(g, "/home/ana/shop", "/home/ana") {
			t.Fatalf("dotGlobSecretAt(%q) = false, but it matches the secret %q", g, p)
		}
	})
}

// TestWalkAgreesWithMeet checks the two ways a path is matched: a literal
// path walks the automaton of all patterns, a glob meets each pattern. On
// literal paths they must agree.
func TestWalkAgreesWithMeet(t *testing.T) {
	names := []string{"home", "ana", "Users", "proc", "self", "environ", ".ssh", "id_rsa", ".env", ".env.local", ".env.example",
		"src", "main.go", ".config", "gh", "hosts.yml", "~", ".aws", "config", "credentials", "tmp", "ssh-x1", "agent.9", "server.key",
		"Library", "Keychains", "login.keychain-db", ".kube", "a.pem", "README.md", ".npmrc", "root", ".."}
	s := secretsOnce()
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(names), 1, 6).Draw(t, "names")
		p := strings.Join(parts, "/")
		if rapid.Bool().Draw(t, "absolute") {
			p = "/" + p
		}
		in := &nfa{}
		end := in.compile(in.add(), p, false)
		in.states[end].row = 0
		walked := len(s.all.walk(p)) > 0
		met := false
		for _, cp := range s.patterns {
			if meet(in, cp.n) {
				met = true
				break
			}
		}
		if walked != met {
			t.Fatalf("%q: walk says %v, meet says %v", p, walked, met)
		}
	})
}

// FuzzIsSecretPath: any text, however broken a glob, is answered without
// a panic, and a path that is a secret stays one with a wildcard appended
// to its name.
func FuzzIsSecretPath(f *testing.F) {
	for _, s := range []string{".en?", "~/.[s]sh", "[", "[!", "[]", `\`, "{a,{b", "**/**/..", "@(", "/proc/*/root/", "~x", "a{1..3}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if isSecretPath(p) && !strings.HasSuffix(p, "/") && !strings.HasSuffix(p, `\`) && isLiteral(p) && !isSecretPath(p+"*") {
			t.Errorf("%q is a secret, %q is not", p, p+"*")
		}
		holdsSecrets(p, "/home/a/s", "/home/a")
		dotGlobSecretAt(p, "", "")
	})
}
