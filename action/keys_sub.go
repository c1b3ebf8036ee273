package action

import "strings"

// subcommandPrograms take a subcommand as their first operand; the value is
// the set of global options that take a value before it.
var subcommandPrograms = map[string]map[string]bool{
	"git": set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"),
	"npm": set("--prefix", "-w", "--workspace"), "npx": nil, "yarn": set("--cwd"),
	"pnpm": set("--filter", "-F", "-C", "--dir"), "bun": nil, "bunx": nil,
	"go": set("-C"), "cargo": set("-C", "--manifest-path", "--config", "-Z"), "rustup": nil,
	"docker": set("-H", "--host", "--context", "-c", "--config", "-l", "--log-level"), "podman": nil,
	"docker-compose": set("-f", "--file", "-p", "--project-name", "--env-file"),
	"kubectl":        set("-n", "--namespace", "--context", "--kubeconfig", "--cluster", "-s", "--server"),
	"helm":           set("-n", "--namespace", "--kube-context", "--kubeconfig"),
	"pip":            nil, "pip3": nil, "pipx": nil, "uv": set("--directory", "--project"), "poetry": set("-C", "--directory"),
	"conda": nil, "mamba": nil, "brew": nil, "apt": nil, "apt-get": nil, "dnf": nil, "yum": nil,
	"pacman": nil, "apk": nil, "snap": nil, "flatpak": nil, "port": nil,
	"systemctl": nil, "launchctl": nil, "service": nil,
	"gh": set("-R", "--repo"), "glab": set("-R", "--repo"),
	"aws": set("--profile", "--region", "--output", "--endpoint-url"), "gcloud": set("--project", "--account", "--configuration"),
	"gsutil": nil, "az": set("--subscription"), "terraform": nil, "tofu": nil, "pulumi": nil,
	"make": set("-C", "-f", "--file", "--directory", "-j", "-l", "-o", "-W"), "just": set("-f", "--justfile", "-d"), "task": nil,
	"mvn": set("-f", "-pl", "-P", "-s"), "./mvnw": set("-f", "-pl", "-P", "-s"), "gradle": set("-p"), "./gradlew": set("-p"),
	"dotnet": nil, "composer": nil, "bundle": nil, "rails": nil, "rake": nil, "gem": nil,
	"flutter": nil, "dart": nil, "nix": nil, "supabase": nil, "vercel": nil, "netlify": nil, "firebase": nil,
	"wrangler": nil, "heroku": nil, "fly": nil, "flyctl": nil, "railway": nil, "doctl": nil,
	"minikube": nil, "kind": nil, "skaffold": nil, "swift": nil, "pod": nil, "fastlane": nil,
	"ollama": nil, "huggingface-cli": nil, "hf": nil, "mix": nil, "stack": nil, "cabal": nil,
	"turbo": nil, "nx": nil, "lerna": nil, "vite": nil, "next": nil, "nuxt": nil, "expo": nil, "eas": nil,
	"prisma": nil, "drizzle-kit": nil, "alembic": nil, "django-admin": nil, "ng": nil,
	"ansible-galaxy": nil, "vagrant": nil, "multipass": nil, "lxc": nil, "virsh": nil, "tmux": nil,
	"openssl": nil, "security": nil, "defaults": nil, "diskutil": nil, "hdiutil": nil, "ip": nil,
	"nmcli": nil, "firewall-cmd": nil, "ufw": nil, "iptables": nil, "git-lfs": nil, "claude": nil, "codex": nil,
}

// twoLevel lists program subcommands that take a subcommand of their own;
// the ladder level then holds both (npm run test, docker compose up).
var twoLevel = set(
	"npm run", "npm run-script", "yarn run", "pnpm run", "bun run", "pnpm exec", "npm exec",
	"git stash", "git remote", "git submodule", "git worktree", "git config", "git lfs", "git bisect", "git notes",
	"go mod", "go tool", "go work", "cargo install",
	"docker compose", "docker container", "docker image", "docker volume", "docker network", "docker system", "docker buildx", "docker builder", "docker context",
	"kubectl config", "kubectl rollout", "kubectl create", "kubectl delete", "kubectl get", "kubectl describe",
	"helm repo", "uv pip", "uv tool", "poetry env", "conda env", "brew services",
	"supabase db", "supabase functions", "supabase migration", "firebase deploy", "wrangler d1", "wrangler kv",
	"terraform state", "terraform workspace", "dotnet ef", "rails db", "rails generate",
)

// twoLevelAll are programs whose every subcommand takes another (gh pr
// create, aws s3 cp, gcloud compute instances …: only two are kept).
var twoLevelAll = set("gh", "glab", "aws", "gcloud", "az", "doctl", "gsutil", "flyctl", "fly")

// noSubcommand are common programs whose first operand is data (a file, a
// pattern, a host), never a subcommand.
var noSubcommand = set(
	"echo", "printf", "cat", "ls", "ll", "cd", "pwd", "rm", "rmdir", "cp", "mv", "mkdir", "touch", "ln",
	"chmod", "chown", "chgrp", "find", "fd", "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk",
	"head", "tail", "less", "more", "wc", "sort", "uniq", "cut", "tr", "diff", "cmp", "file", "stat", "du",
	"df", "tar", "zip", "unzip", "gzip", "gunzip", "xz", "curl", "wget", "ssh", "scp", "rsync", "sftp",
	"ping", "dig", "nslookup", "host", "which", "whereis", "type", "sleep", "kill", "pkill", "killall",
	"ps", "top", "htop", "lsof", "open", "xdg-open", "code", "vim", "vi", "nano", "emacs", "source", ".",
	"export", "unset", "test", "[", "true", "false", "exit", "return", "date", "jq", "yq", "tee", "basename",
	"dirname", "realpath", "readlink", "man", "whoami", "id", "uname", "hostname", "history", "alias",
	"tree", "env", "printenv", "set", "shopt", "read", "wait", "bg", "fg", "jobs", "trap", "seq", "yes",
	"base64", "md5sum", "sha256sum", "shasum", "xxd", "od", "hexdump", "strings", "nl", "paste", "join",
	"comm", "column", "fold", "fmt", "rev", "tac", "split", "csplit", "truncate", "dd", "shred", "mount",
	"umount", "chattr", "lsattr", "getfacl", "setfacl", "sudo", "su", "nc", "netcat", "telnet", "ftp",
	"psql", "mysql", "sqlite3", "redis-cli", "mongo", "mongosh", "tsc", "eslint", "prettier", "black",
	"ruff", "mypy", "pytest", "jest", "vitest", "mocha", "gofmt", "goimports", "clang", "gcc", "g++",
	"cc", "rustc", "javac", "java", "kotlin", "scala", "zcat", "bzip2", "7z", "say", "pbcopy", "pbpaste",
	"xclip", "clear", "watch", "time", "timeout", "nohup", "nice", "xargs", "parallel", "envsubst",
	"mktemp", "install", "iconv", "locale", "cal", "bc", "expr", "let", "declare", "local", "readonly",
	"eval", "exec", "command", "builtin", "hash", "getent", "groups", "last", "w", "who", "uptime", "free",
	"vmstat", "iostat", "journalctl", "dmesg", "lsblk", "blkid", "fdisk", "mkfs", "crontab", "at",
)

// Subcommand returns the subcommand the key ladder gives a simple command
// of program prog with literal arguments args: "push" for git push, "run
// test" for npm run test, "-m pytest" for python -m pytest, or "". It is
// what a prefix rule suggested from a decision should name.
func Subcommand(prog string, args []string) string {
	ws := make([]word, len(args))
	for i, a := range args {
		ws[i] = word{text: a, lit: true}
	}
	return subcommand(prog, ws)
}

// subcommand returns the subcommand level of a command: "push" for git
// push, "run test" for npm run test, "-m pytest" for python -m pytest, the
// script for an interpreter, or "".
func subcommand(prog string, args []word) string {
	if base := interpreterBase(prog); interpreters[base] || shells[base] {
		return interpreterSub(args)
	}
	if noSubcommand[prog] {
		return ""
	}
	globals, known := subcommandPrograms[prog]
	i := 0
	for i < len(args) && args[i].lit && strings.HasPrefix(args[i].text, "-") && len(args[i].text) > 1 {
		if !known {
			i++
			continue
		}
		if args[i].text == "--" {
			i++
			break
		}
		if globals[args[i].text] {
			i++
		}
		i++
	}
	if known {
		for i < len(args) && args[i].lit && isNumber(args[i].text) {
			i++ // make -j 4 build
		}
	}
	if i >= len(args) {
		return ""
	}
	first := args[i]
	if !first.lit || strings.HasPrefix(first.text, "+") && known {
		// cargo +nightly build: the toolchain is not the subcommand
		if first.lit && i+1 < len(args) {
			return subcommand(prog, args[i+1:])
		}
		return ""
	}
	if known && !looksLikeKnownSub(first.text) || !known && !looksLikeWord(first.text) {
		return ""
	}
	sub := first.text
	if (twoLevel[prog+" "+sub] || twoLevelAll[prog]) && i+1 < len(args) {
		if next := args[i+1]; next.lit && looksLikeKnownSub(next.text) && !strings.HasPrefix(next.text, "-") {
			sub += " " + next.text
		}
	}
	return sub
}

// interpreterSub keys how an interpreter gets its code: "-m module",
// "-c"/"-e" for inline code, or the script path.
func interpreterSub(args []word) string {
	for i, a := range args {
		t := a.text
		if !a.lit {
			return t
		}
		switch t {
		case "-m":
			if i+1 < len(args) {
				return "-m " + args[i+1].text
			}
			return t
		case "-c", "-e", "-E", "--eval", "-p", "--print", "-r", "--command":
			return t
		case "-W", "-X", "-o", "-O", "--require", "-I":
			continue
		}
		if strings.HasPrefix(t, "-") {
			continue
		}
		if i > 0 && (args[i-1].text == "-W" || args[i-1].text == "-X" || args[i-1].text == "-o" || args[i-1].text == "-O" || args[i-1].text == "--require" || args[i-1].text == "-I") {
			continue
		}
		return t
	}
	return ""
}

// looksLikeKnownSub accepts a known program's subcommand: anything but a
// path, a URL or an assignment.
func looksLikeKnownSub(s string) bool {
	return s != "" && len(s) <= 64 && !strings.ContainsAny(s, "/ \t\n=$") && !strings.HasPrefix(s, "-") && !strings.HasPrefix(s, ".")
}

// looksLikeWord accepts an unknown program's subcommand: a lowercase word
// such as deploy, build:prod or db-migrate; not a path, number, URL or file.
func looksLikeWord(s string) bool {
	if len(s) == 0 || len(s) > 32 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
