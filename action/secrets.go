package action

import (
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
)

// A secret is recognised by what a path can match, not by how it is
// written: `.en?`, `.[e]nv`, `~/.ss?/id_*` and a Grep glob of `.env*` all
// read .env or an SSH key, and each is a different spelling of the same
// read. So a path is read as a glob pattern (a literal path is the pattern
// that matches only itself) and is a secret when its language meets the
// language of some credential pattern below: the two patterns are compiled
// to automata and their product is searched for a common string. No
// spelling a shell or a file tool expands to a secret can fall outside
// that, as long as the pattern syntax is read at least as broadly as the
// tool reads it; where limen is unsure (extglob, {1..9}, too many braces)
// it reads the pattern more broadly, which costs an ask, never an allow.

// credentialFile is one kind of file that holds credentials.
type credentialFile struct {
	// kind names what holds the credential (the tool, or the file type).
	kind string
	// patterns are where such files live: ~/ is any home directory, / is
	// absolute and **/ is any directory. One that ends in "/" is a
	// directory whose every file is a secret.
	patterns []string
	// except are literal names under the patterns that are not secrets:
	// templates meant to be committed. A glob never counts as one of
	// them, since it can match the real file as well.
	except []string
	// dotGlob stand for the patterns whose name opens with a dot and then
	// a wildcard (.env.*) when a glob's wildcards match hidden names too
	// (Gemini's dot: true): met by a wildcard in place of the dot, the
	// open pattern would make every *.ts a read of .env.ts, so there it is
	// closed to the names people use.
	dotGlob []string
	// example is a path that must be classed a secret; the tests check it.
	example string
}

// credentialFiles are the credential files people actually have. Names are
// matched without regard to case, as macOS and Windows file systems do.
var credentialFiles = []credentialFile{
	{kind: "dotenv", patterns: []string{"**/.env", "**/.env.*", "**/*.env", "**/.envrc"},
		dotGlob: []string{"**/.env.{local,dev,development,prod,production,test,testing,stage,staging,ci,qa,uat,preview,docker,private," +
			"secret,secrets,keys,vault,backup,bak,old,orig,save,tmp,swp}{,.local,.bak}", "**/.env.*.local"},
		except:  []string{"**/.env.example", "**/.env.sample", "**/.env.template", "**/.env.dist", "**/.env.defaults", "**/.env.schema"},
		example: "/home/u/shop/.env.production"},
	// A wildcard in these patterns is read against every spelling a path
	// can take, so `*.tmp` would meet "id_rsa*" (at id_rsa.tmp): the names
	// are listed rather than left open, to keep such globs learnable.
	{kind: "ssh", patterns: []string{"~/.ssh/", "/etc/ssh/ssh_host_*", "**/id_{rsa,dsa,ecdsa,ed25519,ecdsa_sk,ed25519_sk,xmss}{,.pub,-cert.pub,.bak,.old,.orig,~}", "**/*.ppk"},
		example: "~/.ssh/id_ed25519"},
	{kind: "ssh-agent socket", patterns: []string{"/tmp/ssh-*/agent.*", "/private/tmp/com.apple.launchd.*/listeners", "/run/user/*/keyring/ssh", "/run/user/*/gcr/ssh", "/run/user/*/ssh-agent.socket", "~/.1password/agent.sock"},
		example: "/tmp/ssh-XXXXq2bX/agent.4242"},
	{kind: "gpg", patterns: []string{"~/.gnupg/", "/run/user/*/gnupg/", "**/*.gpg", "**/*.asc", "**/*.kbx"}, example: "~/.gnupg/private-keys-v1.d/AB12.key"},
	{kind: "password-store", patterns: []string{"~/.password-store/", "**/*.kdbx", "**/*.keyx"}, example: "~/.password-store/email/work.gpg"},
	{kind: "netrc", patterns: []string{"**/.netrc", "**/_netrc"}, example: "~/.netrc"},
	{kind: "git-credentials", patterns: []string{"**/.git-credentials", "~/.config/git/credentials"}, example: "~/.git-credentials"},
	// A repository's configuration: remote URLs carry tokens
	// (https://x:ghp_…@github.com); as a pattern, so that .gi?/config
	// is the same read (the seventeenth red-team pass).
	{kind: "git repository config", patterns: []string{"**/.git/config"}, example: "/home/u/shop/.git/config"},
	{kind: "gh", patterns: []string{"~/.config/gh/hosts.yml"}, example: "~/.config/gh/hosts.yml"},
	{kind: "glab", patterns: []string{"~/.config/glab-cli/config.yml", "~/library/application support/glab-cli/config.yml"}, example: "~/.config/glab-cli/config.yml"},
	{kind: "hub", patterns: []string{"~/.config/hub"}, example: "~/.config/hub"},
	{kind: "npm, yarn, pnpm", patterns: []string{"**/.npmrc", "**/.yarnrc", "**/.yarnrc.yml", "~/.config/pnpm/rc", "~/library/preferences/pnpm/rc", "~/.bunfig.toml"}, example: "/home/u/shop/.yarnrc.yml"},
	{kind: "pip, poetry", patterns: []string{"**/.pypirc", "**/pip.conf", "**/pip.ini", "~/.config/pypoetry/auth.toml", "~/library/application support/pypoetry/auth.toml"}, example: "~/.config/pip/pip.conf"},
	{kind: "cargo", patterns: []string{"~/.cargo/credentials", "~/.cargo/credentials.toml"}, example: "~/.cargo/credentials.toml"},
	{kind: "docker, podman", patterns: []string{"~/.docker/config.json", "~/.config/containers/auth.json", "/run/user/*/containers/auth.json", "/run/containers/*/auth.json"}, example: "~/.docker/config.json"},
	{kind: "kube", patterns: []string{"~/.kube/", "**/kubeconfig", "**/*.kubeconfig", "/etc/kubernetes/admin.conf", "/etc/rancher/k3s/k3s.yaml"}, example: "~/.kube/config"},
	{kind: "helm", patterns: []string{"~/.config/helm/repositories.yaml", "~/.config/helm/registry/", "~/library/preferences/helm/repositories.yaml", "~/library/preferences/helm/registry/config.json"}, example: "~/.config/helm/registry/config.json"},
	{kind: "aws", patterns: []string{"~/.aws/", "~/.s3cfg", "~/.boto"}, example: "~/.aws/config"},
	{kind: "gcloud", patterns: []string{"~/.config/gcloud/", "**/application_default_credentials.json", "**/service-account*.json", "**/*-sa-key.json"}, example: "~/.config/gcloud/legacy_credentials/me@x.io/adc.json"},
	{kind: "azure", patterns: []string{"~/.azure/"}, example: "~/.azure/msal_token_cache.json"},
	{kind: "doctl", patterns: []string{"~/.config/doctl/config.yaml", "~/library/application support/doctl/config.yaml"}, example: "~/.config/doctl/config.yaml"},
	{kind: "terraform, tofu", patterns: []string{"~/.terraform.d/credentials.tfrc.json", "~/.terraformrc", "~/.tofurc", "~/.config/opentofu/credentials.tfrc.json", "**/*.tfstate", "**/*.tfstate.backup"}, example: "~/.terraform.d/credentials.tfrc.json"},
	{kind: "vault", patterns: []string{"**/.vault-token"}, example: "~/.vault-token"},
	{kind: "postgres", patterns: []string{"**/.pgpass", "**/pgpass.conf"}, example: "~/.pgpass"},
	{kind: "mysql", patterns: []string{"**/.my.cnf", "**/.mylogin.cnf"}, example: "~/.my.cnf"},
	{kind: "other cloud and sync tools", patterns: []string{"~/.config/rclone/rclone.conf", "~/.oci/", "~/.config/hcloud/cli.toml", "~/.fly/config.yml", "~/.config/op/", "~/.config/sops/age/keys.txt", "~/.config/github-copilot/", "~/.local/share/keyrings/"}, example: "~/.config/rclone/rclone.conf"},
	{kind: "browser profile", patterns: []string{
		"~/.config/google-chrome/", "~/.config/chromium/", "~/.config/bravesoftware/", "~/.config/microsoft-edge/", "~/.mozilla/firefox/",
		// Under ~/Library, which is not hidden, only the files: a whole
		// directory there would make every **/*.ts run from home a secret.
		"**/cookies", "**/cookies.sqlite", "**/login data", "**/web data", "**/local state", "**/logins.json",
		"**/key3.db", "**/key4.db", "**/*.binarycookies"},
		example: "~/.config/google-chrome/Default/Cookies"},
	{kind: "keychain", patterns: []string{"**/*.keychain", "**/*.keychain-db", "/library/keychains/"}, example: "~/Library/Keychains/login.keychain-db"},
	{kind: "agent runtime", patterns: []string{"~/.claude/.credentials.json", "~/.claude.json", "~/.codex/auth.json", "~/.gemini/oauth_creds.json", "~/.gemini/google_accounts.json", "~/.gemini/mcp-oauth-tokens.json", "~/.config/anthropic/"},
		example: "~/.codex/auth.json"},
	{kind: "AI and hosting CLIs", patterns: []string{"~/.cache/huggingface/token", "~/.huggingface/token", "~/.config/heroku/", "~/.netlify/",
		"~/.wrangler/config/", "~/.config/.wrangler/", "~/.tsh/", "~/.ansible/vault_pass*", "**/.vault_pass*", "~/.openai/", "~/.config/openai/",
		"~/.config/anthropic/", "~/.config/vercel/auth.json", "~/.local/share/com.vercel.cli/auth.json", "~/.railway/", "~/.fly/config.yml",
		"~/.config/op/", "~/.config/stripe/config.toml", "~/.config/sentry/", "~/.sentryclirc", "~/.config/twilio-cli/", "~/.databrickscfg",
		"~/.snowflake/", "~/.config/ngrok/ngrok.yml", "~/.ngrok2/ngrok.yml"},
		example: "~/.cache/huggingface/token"},
	{kind: "project secret files", patterns: []string{"**/.dev.vars", "**/.secrets", "**/.secrets.*", "**/secrets.y*ml", "**/secrets.json", "**/.env.vault"},
		example: "/home/u/shop/.dev.vars"},
	// limen's own records: every command an agent was asked about, the
	// answers and their notes, which tell an agent what this person lets
	// through.
	{kind: "limen's records", patterns: []string{"~/.local/share/limen/", "~/.local/state/limen/", "~/library/application support/limen/limen.db"},
		example: "~/.local/share/limen/limen.db"},
	{kind: "process environment and open files", patterns: []string{"/proc/*/environ", "/proc/*/task/*/environ", "/proc/*/mem",
		// A process's open files: limend's database at /proc/<its pid>/fd/5.
		"/proc/*/fd/", "/proc/*/task/*/fd/", "/proc/*/map_files/",
		// Other processes' command lines carry the passwords people pass
		// as options (mysql -pSECRET); ps shows them too, and stays
		// learnable: what it prints is the same for everyone.
		"/proc/*/cmdline"}, example: "/proc/self/environ"},
	// A disk or memory device holds every file and key on it: cat
	// /dev/sda reads them all (the eighth red-team pass).
	{kind: "raw disks and memory", patterns: []string{"/dev/sd*", "/dev/hd*", "/dev/vd*", "/dev/xvd*", "/dev/nvme*", "/dev/mmcblk*",
		"/dev/mapper/*", "/dev/dm-*", "/dev/md*", "/dev/loop*", "/dev/disk/**", "/dev/mem", "/dev/kmem", "/dev/port",
		"/proc/kcore", "/dev/block/*", "/dev/disk*", "/dev/rdisk*"}, example: "/dev/nvme0n1p1"},
	{kind: "maven, gradle, composer, nuget", patterns: []string{"~/.m2/settings.xml", "~/.m2/settings-security.xml", "**/gradle.properties",
		"~/.composer/auth.json", "~/.config/composer/auth.json", "**/auth.json", "~/.nuget/nuget/nuget.config"}, example: "~/.gradle/gradle.properties"},
	// Shell and REPL history holds the tokens people typed or exported.
	{kind: "shell history", patterns: []string{"~/.bash_history", "~/.zsh_history", "~/.histfile", "~/.sh_history", "~/.python_history",
		"~/.psql_history", "~/.mysql_history", "~/.node_repl_history", "~/.local/share/fish/fish_history", "~/.lesshst"},
		example: "~/.zsh_history"},
	// Apps' stores of logins, sessions and keys (the ninth red-team
	// pass): their settings directories are read as secrets, the
	// editors' and shells' own settings are not.
	{kind: "app stores", patterns: []string{"~/.config/configstore/", "~/.local/share/atuin/", "~/.config/code/user/globalstorage/",
		"~/.config/code - insiders/user/globalstorage/", "~/.config/cursor/user/globalstorage/", "~/.cursor/mcp.json", "~/.codeium/",
		"~/.config/bitwarden cli/", "~/.config/bitwarden/", "~/.config/filezilla/", "~/.local/share/remmina/", "~/.config/remmina/",
		"~/.config/networkmanager/", "~/.local/share/keyrings/", "~/.config/keepassxc/", "~/.config/1password/", "~/.config/discord/",
		"~/.config/slack/", "~/.config/signal/", "~/.config/telegram-desktop/", "~/.local/share/telegramdesktop/", "~/.thunderbird/",
		"~/.config/evolution/", "~/.local/share/evolution/", "~/.purple/", "~/.irssi/", "~/.weechat/", "~/.config/weechat/",
		"~/.config/transmission/", "~/.dbeaver4/", "~/.local/share/dbeaverdata/", "~/.config/dbeaver/", "~/.dbshell", "~/.mongorc.js",
		"~/.config/rclone/", "~/.config/syncthing/", "~/.local/state/syncthing/", "~/.mozilla/", "~/.config/mcp/", "~/.claude/mcp*.json",
		"~/.config/claude/", "~/.aider*", "~/.continue/", "~/.config/zed/", "~/.local/share/zed/", "~/.config/jetbrains/", "~/.local/share/jetbrains/",
		"~/.android/adbkey", "~/.android/adbkey.pub", "~/.vagrant.d/insecure_private_key", "~/.vagrant.d/insecure_private_keys/", "~/.config/tailscale/",
		"~/.local/share/tailscale/", "~/.cloudflared/", "~/.config/ngrok/", "~/.pulumi/credentials.json", "~/.config/gcloud/", "~/.terraform.d/"},
		example: "~/.config/filezilla/sitemanager.xml"},
	{kind: "wallets, tokens and keys of more tools", patterns: []string{"~/.bitcoin/", "~/.ethereum/keystore/", "~/.config/solana/", "~/.electrum/",
		"~/.monero/", "~/.xauthority", "~/.iceauthority", "~/.supabase/", "~/.config/supabase/", "~/.kaggle/", "~/.dbt/profiles.yml", "~/.config/openstack/",
		"/etc/openstack/", "~/.aliyun/", "~/.tccli/", "~/.bluemix/", "~/.scw/", "~/.config/scw/", "~/.config/flyctl/", "~/.config/railway/", "~/.sfdx/",
		"~/.sf/", "~/.qwen/", "~/.vscode-server/data/user/globalstorage/", "~/.claude/settings*.json", "~/.codex/config.toml", "~/.gemini/settings.json",
		"~/.config/linode-cli", "~/.config/exoscale/", "~/.ovh.conf", "~/.config/hetzner/", "~/.config/vultr-cli.yaml", "~/.expo/state.json",
		"~/.config/configstore/", "~/.circleci/cli.yml", "~/.travis/config.yml", "~/.config/gitlab-runner/", "/etc/gitlab-runner/",
		"/var/lib/kubelet/pods/", "/var/lib/kubelet/kubeconfig", "/etc/kubernetes/", "/var/lib/tailscale/", "/var/log/auth.log*", "/var/log/secure*",
		"/var/lib/docker/", "/var/lib/containerd/", "/var/lib/rancher/", "/var/lib/jenkins/secrets/", "/var/lib/jenkins/credentials.xml",
		"**/.vagrant/machines/*/*/private_key", "**/*.tfvars", "**/*.tfvars.json", "**/client_secret*.json", "**/*firebase-adminsdk*.json",
		"**/*serviceaccount*.json", "**/{,*[-_.]}deploy_key{,.pub}", "**/{,*[-_]}passwords{,.json}", "**/{,*[-_]}api[-_]key{,s}{,.json}",
		"**/wp-config.php", "**/kubeconfig{.yaml,.yml,.json}", "**/local.settings.json",
		"**/appsettings.{production,development,staging}.json", "**/.s3cfg", "**/id_token", "**/token.json"},
		example: "~/.config/solana/id.json"},
	// The runtimes' transcripts hold every tool's output so far (secrets
	// an earlier command printed) and the tool_use_ids a forged dialog
	// event needs (the tenth red-team pass).
	{kind: "agent runtimes' transcripts", patterns: []string{"~/.claude/projects/", "~/.claude/history.jsonl", "~/.claude/shell-snapshots/",
		"~/.claude/todos/", "~/.codex/sessions/", "~/.codex/history.jsonl", "~/.codex/log/", "~/.gemini/tmp/", "~/.gemini/history/"},
		example: "~/.claude/projects/-home-ana-shop/25ac00a3.jsonl"},
	{kind: "mail, sync and more tools' credentials", patterns: []string{"~/.authinfo", "~/.msmtprc", "~/.passwd-s3fs", "**/.smbcredentials",
		"~/.mc/config.json", "~/.step/secrets/", "~/.jira.d/", "~/.bundle/config", "~/.wakatime.cfg", "~/.config/goose/", "~/.config/doppler/",
		"~/.doppler/", "~/.config/infisical/", "~/.infisical/", "~/.talos/", "~/.age/", "~/.config/age/", "~/.fetchmailrc", "~/.mbsyncrc",
		"~/.config/tea/", "~/.render/", "~/.config/atuin/key", "~/.rediscli_history", "~/.local/share/jupyter/runtime/",
		"~/.jupyter/jupyter_server_config.json", "/etc/gitlab/", "/var/mail/", "/var/spool/mail/", "~/.config/hcloud/", "~/.oci/",
		"~/.pgpass", "~/.config/rclone/", "~/.s3cfg"},
		example: "~/.age/key.txt"},
	{kind: "network, Kerberos and system credentials", patterns: []string{"/etc/NetworkManager/system-connections/", "/etc/wpa_supplicant/",
		"/etc/security/opasswd", "**/*.keytab", "/tmp/krb5cc_{0,500,501,502,1000,1001,1002,1003,1004,1005}", "/etc/letsencrypt/live/", "/etc/letsencrypt/archive/", "/etc/letsencrypt/keys/",
		"/etc/ipsec.secrets", "/etc/ipsec.d/private/", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets", "/etc/postfix/sasl_passwd", "/etc/mysql/debian.cnf",
		"/etc/samba/smbpasswd", "/var/lib/samba/private/", "/etc/pki/tls/private/", "/etc/wireguard/", "/etc/openvpn/", "/var/lib/NetworkManager/",
		"**/.docker/config.json", "**/.kube/config"},
		example: "/etc/NetworkManager/system-connections/home.nmconnection"},
	{kind: "system", patterns: []string{"/etc/ssl/private/", "/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/sudoers", "/run/secrets/", "/var/run/secrets/", "**/.htpasswd"}, example: "/var/run/secrets/kubernetes.io/serviceaccount/token"},
	{kind: "keys and certificate stores", patterns: []string{"**/*.pem", "**/*.key", "**/*.p12", "**/*.pfx", "**/*.jks", "**/*.keystore", "**/master.key"}, example: "/home/u/shop/certs/server.key"},
	// The eleventh red-team pass read these with a plain cat.
	{kind: "version control, mail, sync and deploy credentials", patterns: []string{"~/.subversion/auth/", "~/.davfs2/secrets", "/etc/davfs2/secrets",
		"~/.influxdbv2/", "~/.config/argocd/", "~/.config/snyk/", "~/.config/netlify/", "**/clouds.yaml", "**/clouds.yml", "**/secure.yaml",
		"~/.offlineimaprc", "~/.muttrc", "~/.mutt/", "~/.config/mutt/", "~/.config/aerc/", "~/.mcp.json", "**/.mcp.json", "~/.remmina/",
		"~/.local/share/kwalletd/", "~/.hgrc", "~/.viminfo", "~/.sqlite_history",
		"~/.config/code/user/settings.json", "~/.config/cursor/user/settings.json", "**/.idea/datasources.local.xml", "**/.idea/datasources.xml",
		"**/{,*[-_.]}secret.{yaml,yml,json}", "**/config/database.yml", "**/config/master.key",
		"**/config/credentials/*.key", "**/{settings_local,local_settings}.py", "~/.config/sops/"},
		example: "~/.subversion/auth/svn.simple/5f9a1c"},
	// What a machine's devices capture (keys typed, the microphone, the
	// camera, the screen, another terminal's input), backups of system
	// secrets, more tools' keys, and limen's own logs (the thirteenth
	// pass read each with cat or head).
	{kind: "capture devices, system backups and more keys", patterns: []string{"/dev/input/**", "/dev/snd/**", "/dev/video*", "/dev/fb*",
		"/dev/vcs*", "/dev/pts/*", "/dev/hidraw*", "/dev/sg*", "/dev/uinput", "/dev/tty[0-9]*", "/dev/dri/**", "/dev/bus/usb/**",
		"/var/backups/**", "/etc/sssd/**", "/sys/firmware/**", "**/actions-runner/.credentials*", "**/actions-runner/.runner",
		"~/.config/llm/", "~/.local/share/io.datasette.llm/", "~/.config/aichat/", "~/.local/share/python_keyring/", "~/.snowsql/",
		"~/.linode-cli", "~/.ipython/**/history.sqlite", "~/.local/state/limen/", "~/.local/share/limen/"},
		example: "/dev/input/event0"},
	{kind: "named secrets", patterns: []string{
		"**/{,.}credentials{,.json,.toml,.yml,.yaml,.xml,.ini,.db,.tfrc.json}", "**/*{-,_}credentials{,.json,.toml,.yml,.yaml}",
		"**/access_tokens.db", "**/secrets.yml", "**/secrets.yaml", "**/secrets.json", "**/secrets.toml", "**/token.json", "**/*.token"},
		example: "~/.claude/.credentials.json"},
}

// homeForms are the shapes a home directory takes; "~/" in a credential
// pattern stands for each of them.
var homeForms = []string{"~", "/home/*", "/users/*", "/root", "/var/root"}

// secretAutomata are the credential patterns, compiled once. A literal
// path walks one automaton of them all (anchored under a home directory
// or absolute, anywhere (**/…), or both), in time linear in its length; a
// glob meets each pattern whose literal ends it could match.
type secretAutomata struct {
	anchored, anywhere, all *dfa
	patterns                []compiledPattern // sorted by prefix
	byPrefix                map[string][]int32
	// bySuffixEnd holds the patterns with no literal prefix (**/…, most
	// of them) by the last byte of their suffix, 0 for none.
	bySuffixEnd map[byte][]int32
	except      []*nfa // by row of credentialFiles; nil when it has none
}

// compiledPattern is one credential pattern, for globs to meet.
type compiledPattern struct {
	n              *nfa
	w              which // anchoredSecrets or anywhereSecrets
	prefix, suffix string
	// openDot is set for a name that opens with a dot and then has a
	// wildcard (.env.*); dotGlob for the closed forms that stand for it
	// when wildcards match hidden names.
	openDot, dotGlob bool
}

// which says which credential patterns a candidate path is checked against.
type which int8

const (
	allSecrets which = iota
	anchoredSecrets
	anywhereSecrets
)

func (s *secretAutomata) of(w which) *dfa {
	switch w {
	case anchoredSecrets:
		return s.anchored
	case anywhereSecrets:
		return s.anywhere
	}
	return s.all
}

var secretsOnce = sync.OnceValue(func() *secretAutomata {
	var anchored, anywhere []rowPattern
	s := &secretAutomata{except: make([]*nfa, len(credentialFiles))}
	for row, cf := range credentialFiles {
		for _, braced := range cf.patterns {
			expanded, ok := expandBraces(braced, maxAlternatives)
			if !ok {
				panic("credential pattern " + braced + " has too many alternatives")
			}
			for _, p := range expanded {
				for _, exp := range expandHome(p) {
					rp := rowPattern{row, exp}
					if strings.HasPrefix(p, "**/") {
						anywhere = append(anywhere, rp)
					} else {
						anchored = append(anchored, rp)
					}
				}
			}
		}
		if len(cf.except) > 0 {
			var ex []rowPattern
			for _, e := range cf.except {
				ex = append(ex, rowPattern{row, e})
			}
			s.except[row] = unionOf(ex)
		}
	}
	s.anchored = newDFA(unionOf(anchored))
	s.anywhere = newDFA(unionOf(anywhere))
	s.all = newDFA(unionOf(append(anchored, anywhere...)))
	var dotGlob []rowPattern
	for row, cf := range credentialFiles {
		for _, braced := range cf.dotGlob {
			expanded, ok := expandBraces(braced, 4*maxAlternatives)
			if !ok {
				panic("credential pattern " + braced + " has too many alternatives")
			}
			for _, p := range expanded {
				dotGlob = append(dotGlob, rowPattern{row, p})
			}
		}
	}
	for _, group := range []struct {
		w       which
		ps      []rowPattern
		dotGlob bool
	}{{anchoredSecrets, anchored, false}, {anywhereSecrets, anywhere, false}, {anywhereSecrets, dotGlob, true}} {
		for _, rp := range group.ps {
			for _, f := range forms(rp.pattern) {
				n := &nfa{}
				end := n.compile(n.add(), f, true)
				n.states[end].row = int32(rp.row)
				name := path.Base(f)
				openDot := strings.HasPrefix(name, ".") && !isLiteral(name)
				s.patterns = append(s.patterns, compiledPattern{n: n, w: group.w, prefix: literalPrefix(f), suffix: literalSuffix(f),
					openDot: openDot, dotGlob: group.dotGlob})
			}
		}
	}
	slices.SortStableFunc(s.patterns, func(a, b compiledPattern) int { return strings.Compare(a.prefix, b.prefix) })
	s.byPrefix, s.bySuffixEnd = map[string][]int32{}, map[byte][]int32{}
	for i, cp := range s.patterns {
		if cp.prefix != "" {
			s.byPrefix[cp.prefix] = append(s.byPrefix[cp.prefix], int32(i))
			continue
		}
		end := byte(0)
		if cp.suffix != "" {
			end = cp.suffix[len(cp.suffix)-1]
		}
		s.bySuffixEnd[end] = append(s.bySuffixEnd[end], int32(i))
	}
	return s
})

type rowPattern struct {
	row     int
	pattern string
}

func expandHome(p string) []string {
	rest, ok := strings.CutPrefix(p, "~/")
	if !ok {
		return []string{p}
	}
	out := make([]string, len(homeForms))
	for i, h := range homeForms {
		out[i] = h + "/" + rest
	}
	return out
}

// forms are the globs a credential pattern stands for: a directory covers
// what lies below it. Files do not, or every **/*.go would meet a
// directory named like one.
func forms(p string) []string {
	if dir, ok := strings.CutSuffix(p, "/"); ok {
		return []string{dir, dir + "/**"}
	}
	return []string{p}
}

// literalPrefix and literalSuffix are the text a glob starts and ends
// with before its first and after its last wildcard, lower-cased: two
// globs can meet only if each one's prefix starts the other's, and the
// same for the ends.
func literalPrefix(p string) string {
	if i := strings.IndexAny(p, `*?[\({@+!`); i >= 0 {
		p = p[:i]
	}
	return strings.ToLower(p)
}

func literalSuffix(p string) string {
	if i := strings.LastIndexAny(p, `*?]\)}`); i >= 0 {
		p = p[i+1:]
	}
	return strings.ToLower(p)
}

func mayMeet(a, b, ka, kb string) bool {
	return (strings.HasPrefix(a, b) || strings.HasPrefix(b, a)) && (strings.HasSuffix(ka, kb) || strings.HasSuffix(kb, ka))
}

// unionOf compiles patterns into one automaton whose final states carry
// the row of their pattern.
func unionOf(ps []rowPattern) *nfa {
	n := &nfa{}
	start := n.add()
	for _, rp := range ps {
		for _, p := range forms(rp.pattern) {
			s := n.add()
			n.states[start].eps = append(n.states[start].eps, s)
			end := n.compile(s, p, true)
			n.states[end].row = int32(rp.row)
		}
	}
	return n
}

// maxPatternLen bounds a path limen reads, and maxGlobLen a glob (whose
// search costs more: some milliseconds at this length); a longer one is
// taken to match a secret (an ask), so no input is expensive to decide.
const (
	maxPatternLen = 4096
	maxGlobLen    = 512
)

// maxAlternatives bounds the brace expansion of one pattern.
const maxAlternatives = 64

// isSecretPath reports whether p could name a secret: a credential file, or
// a directory holding them (~/.ssh), or a file inside one. p may be a glob
// (`.en?`, `~/.[s]sh`, `**/.env*`) and absolute, ~-relative or relative; a
// relative path could lie in any directory, the home directory included,
// so `.ssh/id_rsa` is a secret and `config` is not.
func isSecretPath(p string) bool { return secretAt(p, "", "") }

// secretAt is [isSecretPath] for a path seen from the working directory
// cwd, in the home directory home (either may be "" when unknown).
func secretAt(p, cwd, home string) bool {
	return namedSecret(p) || matchSecrets(p, cwd, home, allSecrets, false)
}

// namedSecretFiles are names of files that hold secrets by what people
// call them, matched only when a path names one exactly (cat
// passwords.txt, the ninth red-team pass): as patterns they would meet
// every *.txt or *.sql glob, and no such command could be learned.
var namedSecretFiles = set("passwords.txt", "password.txt", "passwords.csv", "api_key.txt", "api_keys.txt", "apikey.txt", "apikeys.txt",
	"api-key.txt", "secrets.txt", "secret.txt", "credentials.txt", "tokens.txt", "token.txt", "access_token.txt", "dump.sql", "db.sql",
	"database.sql", "backup.sql", "db_dump.sql", "users.sql", "dump.sql.gz", "backup.sql.gz", "wp-config.php", "config.inc.php", "id_token")

// namedSecret reports whether the literal path p names one of
// namedSecretFiles.
func namedSecret(p string) bool {
	if !isLiteral(p) {
		return false
	}
	lower := strings.ToLower(p)
	return namedSecretFiles[path.Base(lower)]
}

// dotGlobSecretAt is [secretAt] for a glob whose wildcards also match the
// dot that starts a hidden name, as Gemini CLI's glob and read_many_files
// read theirs (dot: true): there "**/*rc" reads ~/.npmrc.
func dotGlobSecretAt(p, cwd, home string) bool {
	return matchSecrets(p, cwd, home, allSecrets, true)
}

// holdsSecrets reports whether a read of everything below the directory
// pattern p (grep -r, tar, a Grep with no glob) may read a credential
// file in a known place: the home directory and its parents hold ~/.ssh,
// ~/.config holds gh's token, /proc holds every process's environment. A
// project directory does not count for the .env or *.pem it may hold, or
// no recursive search could ever be learned; those are caught when a glob
// or a name points at them.
func holdsSecrets(p, cwd, home string) bool {
	if matchSecrets(p, cwd, home, allSecrets, false) {
		return true
	}
	return matchSecrets(strings.TrimSuffix(p, "/")+"/**", cwd, home, anchoredSecrets, false)
}

// matchSecrets is the search behind isSecretPath and holdsSecrets, over
// the credential patterns w says; with dotglob, wildcards match hidden
// names too.
func matchSecrets(p, cwd, home string, w which, dotglob bool) bool {
	q := secretQuery{p, cwd, home, w, dotglob}
	secretMemo.Lock()
	got, ok := secretMemo.m[q]
	secretMemo.Unlock()
	if ok {
		return got
	}
	got = matchSecretsNow(p, cwd, home, w, dotglob)
	secretMemo.Lock()
	if secretMemo.m == nil || len(secretMemo.m) >= secretMemoMax {
		secretMemo.m = make(map[secretQuery]bool, 256)
	}
	secretMemo.m[q] = got
	secretMemo.Unlock()
	return got
}

// secretMemo remembers matchSecrets' answers. An answer depends only on
// the arguments and the fixed credential tables, and the same operands
// come back in action after action (src/*.go, README.md, ~/.config):
// matching a glob against every credential pattern costs microseconds, a
// lookup tens of nanoseconds. It is bounded: when full it starts again
// empty, so an agent cannot grow it.
var secretMemo struct {
	sync.Mutex
	m map[secretQuery]bool
}

const secretMemoMax = 1 << 14

type secretQuery struct {
	p, cwd, home string
	w            which
	dotglob      bool
}

// matchSecretsNow is matchSecrets without the memo.
func matchSecretsNow(p, cwd, home string, w which, dotglob bool) bool {
	p = strings.TrimSpace(p)
	if p == "" {
		return false
	}
	if len(p) > maxPatternLen || strings.ContainsRune(p, 0) || (len(p) > maxGlobLen && !isLiteral(p)) {
		return true
	}
	alts := []string{p}
	if strings.ContainsRune(p, '{') {
		var ok bool
		if alts, ok = expandBraces(p, maxAlternatives); !ok {
			return true
		}
	}
	for _, alt := range alts {
		if strings.Contains(alt, "**/..") {
			// Cleaning takes ** for one directory, which .. then undoes;
			// it may be none, and .. then climbs above where it stood.
			alts = append(alts, strings.ReplaceAll(alt, "**/..", ".."))
		}
	}
	s := secretsOnce()
	inCwd := ""
	if c := cleanAbs(cwd); c != "" && c != "/" {
		inCwd = homeRelative(c, home) + "/"
	}
	for _, alt := range alts {
		for _, cand := range candidates(alt, cwd, home) {
			cw := cand.w
			if !dotglob && allStars(path.Base(cand.path)) && (cand.w != allSecrets || (inCwd != "" && strings.HasPrefix(cand.path, inCwd))) {
				// Everything in a project directory (cat *, rm build/*)
				// is read as a recursive read of it is: only a known
				// place of credentials counts, not the .env or *.pem a
				// project may hold, or no such command could be learned.
				// A hidden name is not matched by * here anyway.
				if cand.w == anywhereSecrets {
					continue
				}
				cw = anchoredSecrets
			}
			if w != allSecrets {
				cw = w
				if cand.w == anywhereSecrets {
					continue // a relative path is no anchored place
				}
			}
			if s.meets(cand.path, cw, dotglob) {
				return true
			}
		}
	}
	return false
}

// allStars reports whether a name is nothing but wildcards (*, **).
func allStars(name string) bool { return name != "" && strings.Trim(name, "*") == "" }

type candidate struct {
	path string
	w    which
}

// candidates are the absolute (or ~-rooted) patterns that a path may
// stand for. A relative path with no working directory may lie anywhere:
// in the home directory (where ~/.ssh is) or in any directory at all
// (where a .env is), but not at an arbitrary depth under the home, or
// every "config" would be ~/.kube/config.
func candidates(p, cwd, home string) []candidate {
	if p == "~" || strings.HasPrefix(p, "~") {
		// ~ and ~user are a home directory.
		_, rest, _ := strings.Cut(p, "/")
		return []candidate{{path: cleanPattern("~/" + rest)}}
	}
	if strings.HasPrefix(p, "/") {
		p = cleanPattern(p)
		out := []candidate{{path: homeRelative(p, home)}}
		// /proc/<pid>/root and /proc/<pid>/cwd are the root and working
		// directories of a process: /proc/self/root/home/x/.ssh is ~/.ssh.
		if rest, ok := strings.CutPrefix(p, "/proc/"); ok {
			if _, sub, ok := strings.Cut(rest, "/"); ok {
				dir, below, _ := strings.Cut(sub, "/")
				switch dir {
				case "root":
					out = append(out, candidate{path: homeRelative(cleanPattern("/"+below), home)})
				case "cwd":
					// Another process's working directory, which may be
					// anywhere: / for pid 1 (/proc/1/cwd/etc/shadow).
					out = append(out, candidates(below, cwd, home)...)
					out = append(out, candidates(below, "", home)...)
					out = append(out, candidate{path: homeRelative(cleanPattern("/"+below), home)})
				}
			}
		}
		return out
	}
	if cwd != "" && strings.HasPrefix(cwd, "/") {
		return []candidate{{path: homeRelative(cleanPattern(cwd+"/"+p), home)}}
	}
	rest := p
	for {
		switch {
		case strings.HasPrefix(rest, "./"):
			rest = rest[2:]
		case strings.HasPrefix(rest, "../"):
			rest = rest[3:]
		case rest == "." || rest == "..":
			rest = ""
		default:
			rest = cleanPattern(rest)
			return []candidate{
				{path: cleanPattern("~/" + rest), w: anchoredSecrets},
				{path: rest, w: anywhereSecrets},
			}
		}
	}
}

// homeRelative writes a path under a home directory as ~/…: the known
// one, which may have none of the usual shapes (/srv/alice), or one whose
// shape shows (/home/x). Every home pattern has a ~ form, so this changes
// no answer, and it lets a glob skip the patterns of other homes at once.
func homeRelative(p, home string) string {
	home = strings.TrimSuffix(home, "/")
	if home == "" || !strings.HasPrefix(home, "/") {
		home = homeOf(p)
		if home == "" || !isLiteral(home) {
			return p
		}
	}
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, home+"/"); ok {
		return "~/" + rest
	}
	return p
}

// cleanPattern cleans a path pattern as a path (a glob's "." and ".."
// components mean what they mean in a path).
func cleanPattern(p string) string {
	if p == "" {
		return "."
	}
	return path.Clean(p)
}

// meets reports whether the pattern p can match a path of a credential
// pattern that w says, leaving out a literal p that is one of its
// pattern's templates.
func (s *secretAutomata) meets(p string, w which, dotglob bool) bool {
	if isLiteral(p) {
		for _, row := range s.of(w).walk(p) {
			if ex := s.except[row]; ex == nil || !ex.accepts(p) {
				return true
			}
		}
		return false
	}
	if s.globMeets(p, w, false) {
		return true
	}
	return dotglob && s.globMeets(p, w, true)
}

// globMeets is meets for a glob p. With dotglob the patterns whose name
// opens with a dot and then a wildcard (.env.*) give way to their closed
// forms (see credentialFile.dotGlob).
func (s *secretAutomata) globMeets(p string, w which, dotglob bool) bool {
	in := &nfa{states: make([]nstate, 0, 2*len(p)+2)}
	end := in.compile(in.add(), p, dotglob)
	in.states[end].row = 0
	prefix, suffix := literalPrefix(p), literalSuffix(p)
	try := func(i int32) bool {
		cp := &s.patterns[i]
		return (w == allSecrets || w == cp.w) && !(dotglob && cp.openDot) && !(!dotglob && cp.dotGlob) &&
			mayMeet(prefix, cp.prefix, suffix, cp.suffix) && meet(in, cp.n)
	}
	// The patterns with no prefix whose suffix may end p's, those whose
	// prefix starts p's, then those p's prefix starts.
	var ends [][]int32
	if suffix == "" {
		ends = slices.Collect(maps.Values(s.bySuffixEnd))
	} else {
		ends = [][]int32{s.bySuffixEnd[0], s.bySuffixEnd[suffix[len(suffix)-1]]}
	}
	for _, idx := range ends {
		for _, i := range idx {
			if try(i) {
				return true
			}
		}
	}
	for k := 1; k < len(prefix); k++ {
		for _, i := range s.byPrefix[prefix[:k]] {
			if try(i) {
				return true
			}
		}
	}
	if prefix == "" {
		return false // every pattern with a prefix was tried above
	}
	from, _ := slices.BinarySearchFunc(s.patterns, prefix, func(cp compiledPattern, t string) int { return strings.Compare(cp.prefix, t) })
	for i := from; i < len(s.patterns) && strings.HasPrefix(s.patterns[i].prefix, prefix); i++ {
		if try(int32(i)) {
			return true
		}
	}
	return false
}
