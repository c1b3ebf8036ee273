package predictor

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// optSpec describes a command's options well enough to skip them.
type optSpec struct {
	valueShort string          // short options that take a value (-u root, -uroot)
	valueLong  map[string]bool // long options that take a value unless given with =
	assigns    bool            // NAME=value words before the wrapped command (env, sudo)
}

func set(s ...string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, x := range s {
		m[x] = true
	}
	return m
}

func isAssignment(s string) bool {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// binDirs are the directories whose programs are keyed by their base name:
// /usr/bin/git is git. Programs elsewhere (./deploy.sh, venv/bin/pip) keep
// their path, so a script in one place does not borrow the answers given
// for a script of the same name in another.
var binDirs = [...]string{"/usr/bin/", "/bin/", "/usr/local/bin/", "/usr/sbin/", "/sbin/", "/opt/homebrew/bin/", "/usr/local/sbin/"}

func programName(w word) string {
	if !w.lit {
		return w.text
	}
	for _, d := range binDirs {
		if rest, ok := strings.CutPrefix(w.text, d); ok && rest != "" && !strings.Contains(rest, "/") {
			return rest
		}
	}
	return w.text
}

// shells are the programs that run `-c` strings, scripts, or their stdin.
var shells = set("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish")

// interpreters run code from a script argument, -c/-e/-m, or stdin.
var interpreters = set("python", "python2", "python3", "node", "nodejs", "ruby", "perl", "php", "pwsh", "powershell", "osascript", "lua", "Rscript", "deno", "bun", "tsx", "ts-node")

// interpreterBase maps versioned names (python3.12) to their family.
func interpreterBase(prog string) string {
	if strings.HasPrefix(prog, "python") {
		rest := strings.TrimLeft(prog[len("python"):], "0123456789.")
		if rest == "" {
			return "python"
		}
	}
	return prog
}

// shellScriptArg returns the index in cmd of the string a shell runs with
// -c, or -1.
func shellScriptArg(cmd []word) int {
	withC := false
	for i := 1; i < len(cmd); i++ {
		t := cmd[i].text
		if !cmd[i].lit {
			return -1
		}
		if t == "--" {
			if withC && i+1 < len(cmd) {
				return i + 1
			}
			return -1
		}
		if len(t) > 1 && (t[0] == '-' || t[0] == '+') && !strings.HasPrefix(t, "--") {
			if t == "-o" || t == "+o" || t == "-O" || t == "+O" {
				i++
				continue
			}
			if strings.IndexByte(t, 'c') > 0 {
				withC = true
			}
			continue
		}
		if strings.HasPrefix(t, "--") {
			continue
		}
		if withC {
			return i
		}
		return -1
	}
	return -1
}

// readsScriptFromStdin reports whether a shell or interpreter would run
// code read from its standard input: no script, no -c/-e/-m.
func readsScriptFromStdin(prog string, args []word) bool {
	base := interpreterBase(prog)
	if !shells[base] && !interpreters[base] {
		return false
	}
	for _, a := range args {
		t := a.text
		if !a.lit {
			return false
		}
		switch {
		case t == "-" || t == "-s" || t == "--":
			return true
		case strings.HasPrefix(t, "-"):
			if t == "-c" || t == "-e" || t == "-m" || t == "--eval" || t == "-E" || t == "--command" {
				return false
			}
			continue
		}
		return false // a script file or arguments
	}
	return true
}

// teeMarks returns the write marks of tee's file arguments.
func teeMarks(args []word) []string {
	mark := ">"
	files := false
	for _, a := range args {
		switch {
		case a.text == "-a" || a.text == "--append":
			mark = ">>"
		case strings.HasPrefix(a.text, "-") && a.lit:
		case a.lit && harmlessSink(a.text):
		default:
			files = true
		}
	}
	if !files {
		return nil
	}
	return []string{mark}
}

// copiers write to their last operand.
var copiers = set("cp", "mv", "install", "ln", "rsync")

// remoteCopiers reach another machine through a host:path operand.
var remoteCopiers = set("scp", "rsync", "sftp")

// argMarks are the risk marks of what a command's operands name: a secret
// file (secret-file: `cat .env`, `head certs/server.key`), another machine
// (remote-host: `scp -r . me@host:/tmp/`) and, for commands that copy, a
// destination outside the workspace and /tmp (write-outside: `cp x
// /usr/local/bin/`). They put `cat .env` on another ladder level than
// `cat README.md`, so that approving one never vouches for the other.
func (w walker) argMarks(prog string, args []word) []string {
	var marks []string
	secret, remote := false, false
	last := ""
	for _, a := range args {
		if !a.lit || strings.HasPrefix(a.text, "-") {
			continue
		}
		t := a.text
		last = t
		if !secret && secretAt(t, w.cwd, w.home) {
			secret = true
			marks = append(marks, "secret-file")
		}
		if !remote && remoteCopiers[prog] && isRemoteTarget(t) {
			remote = true
			marks = append(marks, "remote-host")
		}
	}
	if copiers[prog] && last != "" && !isRemoteTarget(last) && w.outside(last) {
		marks = append(marks, "write-outside")
	}
	if removers[prog] && !slices.Contains(marks, "write-outside") {
		// mv takes its sources away and rm, shred, chmod … change what
		// they name: any operand outside the workspace is a write there
		// (mv ~ /dev/null), whatever approving rm of a build file said.
		for _, a := range args {
			if a.lit && !strings.HasPrefix(a.text, "-") && !isRemoteTarget(a.text) && w.outside(a.text) {
				marks = append(marks, "write-outside")
				break
			}
		}
	}
	if removers[prog] {
		// rm *, rm -f -- */*, mv * /tmp: every file of a directory, not
		// the build file an approval of rm was about.
		for _, a := range args {
			if a.glob && !strings.HasPrefix(a.text, "-") && strings.Trim(path.Base(a.text), "*.") == "" {
				marks = append(marks, "every-file")
				break
			}
		}
	}
	if !secret && readsTrees(prog, args) {
		// A recursive read of a directory that holds credentials (grep -r
		// token ~/.config, tar czf x ~) reads them, though no operand
		// names one.
		for _, a := range args {
			if a.lit && !strings.HasPrefix(a.text, "-") && holdsSecrets(a.text, w.cwd, w.home) {
				marks = append(marks, "secret-file")
				break
			}
		}
	}
	return marks
}

// removers change or take away every file they name, not only their last
// operand.
var removers = set("mv", "rm", "rmdir", "unlink", "shred", "truncate", "chmod", "chown", "chgrp", "chattr", "setfacl", "srm", "trash", "trash-put", "gio")

// recursiveReaders read whole directory trees: always, or with one of
// their recursive flags.
var recursiveReaders = map[string][]string{
	"rg": nil, "ag": nil, "ack": nil, "tar": nil, "bsdtar": nil, "7z": nil, "du": nil,
	"grep": {"-r", "-R", "--recursive", "--dereference-recursive", "-d"}, "egrep": {"-r", "-R", "--recursive"}, "fgrep": {"-r", "-R", "--recursive"},
	"zip": {"-r", "-R", "--recurse-paths"}, "cp": {"-r", "-R", "-a", "--recursive", "--archive"},
	"rsync": {"-r", "-a", "--recursive", "--archive"}, "scp": {"-r"}, "sftp": {"-r"},
	"base64": nil, "cat": nil, "strings": nil, "xxd": nil, "od": nil, "hexdump": nil,
}

// readsTrees reports whether prog with args reads whole directories: it
// always does, or a recursive flag is given (also inside a short-option
// cluster such as -rn).
func readsTrees(prog string, args []word) bool {
	flags, ok := recursiveReaders[prog]
	if !ok {
		return false
	}
	if flags == nil {
		return true
	}
	for _, a := range args {
		t := a.text
		if !a.lit || !strings.HasPrefix(t, "-") {
			continue
		}
		for _, f := range flags {
			if t == f || strings.HasPrefix(t, f+"=") {
				return true
			}
			if len(f) == 2 && !strings.HasPrefix(t, "--") && strings.ContainsRune(t[1:], rune(f[1])) {
				return true
			}
		}
	}
	return false
}

// isRemoteTarget reports whether an operand has the [user@]host:path shape
// of scp and rsync (and is not a URL or a Windows drive).
func isRemoteTarget(t string) bool {
	host, _, ok := strings.Cut(t, ":")
	if !ok || host == "" || strings.Contains(host, "/") || len(host) == 1 || strings.Contains(t, "://") {
		return false
	}
	return true
}

// outside reports whether a path operand lies outside the working
// directory and /tmp.
func (w walker) outside(t string) bool {
	switch {
	case t == "~" || strings.HasPrefix(t, "~/"):
		if w.home == "" {
			return true
		}
		t = w.home + t[1:]
	case !strings.HasPrefix(t, "/"):
		return strings.HasPrefix(path.Clean(t), "..")
	}
	t = path.Clean(t)
	if t == "/tmp" || strings.HasPrefix(t, "/tmp/") || harmlessSink(t) {
		return false
	}
	return w.cwd == "" || w.cwd == "/" || (t != w.cwd && !strings.HasPrefix(t, w.cwd+"/"))
}

// envDumpMark marks a command that prints the environment, where tokens
// and keys live: env, printenv, set, export -p, cat /proc/self/environ.
const envDumpMark = "secret-env"

// envDump reports whether a command prints environment variables: env
// with no command (seen through otherwise), printenv, set alone, ps's e
// option, or a read of a process's environ file.
func envDump(prog string, args []word) bool {
	switch prog {
	case "env", "printenv":
		return true // env with a command is seen through and never keyed as env
	case "set":
		return len(args) == 0
	case "ps":
		for _, a := range args {
			t := a.text
			if !strings.HasPrefix(t, "-") && strings.ContainsAny(t, "eE") {
				return true // BSD e: the environment after each command
			}
			if strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Count(t, "e") > 1 {
				return true
			}
		}
	case "compgen":
		return false
	case "jq", "gojq", "jaq":
		// env and $ENV in a jq program are the environment.
		for _, a := range args {
			if !strings.HasPrefix(a.text, "-") && (jqEnv.MatchString(a.text)) {
				return true
			}
		}
	case "make", "gmake":
		for _, a := range args {
			if a.text == "-p" || a.text == "--print-data-base" || strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.Contains(a.text, "p") && len(a.text) < 6 {
				return true // the database holds every variable, the environment's included
			}
		}
	case "npm", "pnpm", "yarn", "bun":
		// npm run env prints the environment scripts run with.
		for i, a := range args {
			if a.text == "env" && i > 0 && (args[i-1].text == "run" || args[i-1].text == "run-script") {
				return true
			}
		}
	}
	for _, a := range args {
		if environFile(a.text) {
			return true
		}
	}
	return secretVars(args)
}

var jqEnv = regexp.MustCompile(`(^|[^A-Za-z0-9_.$])(env|\$ENV|\$__loc__)\b`)

// secretVarName matches the names people give the variables that hold
// credentials: $GITHUB_TOKEN, $AWS_SECRET_ACCESS_KEY, $DB_PASSWORD.
var secretVarName = regexp.MustCompile(`(?i)(TOKEN|SECRET|PASSW|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH|COOKIE|SESSION_?ID|^AWS_|^GH_|^GITHUB_|^NPM_|^OPENAI_|^ANTHROPIC_|^GOOGLE_APPLICATION|^AZURE_|^VAULT_|^DOCKER_PASS|^PGPASS|^MYSQL_PWD)`)

var paramRef = regexp.MustCompile(`\$\{?!?([A-Za-z_][A-Za-z0-9_]*)`)

// secretVars reports whether an argument expands a variable whose name
// says it holds a credential (echo $AWS_SECRET_ACCESS_KEY, curl
// "https://x/?k=$GITHUB_TOKEN"), or expands variables indirectly (${!v}),
// which can read any.
func secretVars(args []word) bool {
	for _, a := range args {
		if a.lit && !a.computed {
			continue
		}
		if strings.Contains(a.text, "${!") {
			return true
		}
		for _, m := range paramRef.FindAllStringSubmatch(a.text, -1) {
			if secretVarName.MatchString(m[1]) {
				return true
			}
		}
	}
	return false
}

// environFile reports whether a path names a process's environment.
func environFile(p string) bool {
	return p == "environ" || strings.HasSuffix(p, "/environ") || strings.HasSuffix(p, "/environ*") || strings.HasPrefix(p, "/proc/") && strings.Contains(p, "environ")
}

// readMark is the mark of a file a redirection reads: a secret, or a
// process's environment.
func readMark(target word) string {
	switch {
	case environFile(target.text):
		return envDumpMark
	case !target.lit:
		return ""
	case isSecretPath(target.text) || target.glob && isSecretPath(strings.TrimRight(target.text, "*?")):
		return "secret-file"
	}
	return ""
}
