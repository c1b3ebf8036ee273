package predictor

import (
	"path"
	"strings"
)

// optSpec describes a command's options well enough to skip them.
type optSpec struct {
	valueShort string          // short options that take a value (-u root, -uroot)
	valueLong  map[string]bool // long options that take a value unless given with =
	positional int             // operands before the wrapped command (timeout's duration)
	assigns    bool            // NAME=value words before the wrapped command (env, sudo)
}

// wrappers run another command given as their remaining words. They are
// seen through: the wrapped command is the part's program.
var wrappers = map[string]optSpec{
	"sudo":       {valueShort: "uUgCDhprtT", valueLong: set("--user", "--group", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user", "--close-from", "--command-timeout"), assigns: true},
	"doas":       {valueShort: "uC"},
	"pkexec":     {valueLong: set("--user")},
	"run0":       {valueShort: "uD", valueLong: set("--user", "--chdir", "--description", "--setenv")},
	"env":        {valueShort: "uCS", valueLong: set("--unset", "--chdir", "--split-string"), assigns: true},
	"timeout":    {valueShort: "sk", valueLong: set("--signal", "--kill-after"), positional: 1},
	"nice":       {valueShort: "n", valueLong: set("--adjustment")},
	"ionice":     {valueShort: "cnp", valueLong: set("--class", "--classdata")},
	"nohup":      {},
	"time":       {valueShort: "fo", valueLong: set("--format", "--output")},
	"command":    {},
	"builtin":    {},
	"exec":       {valueShort: "a"},
	"stdbuf":     {valueShort: "ioe", valueLong: set("--input", "--output", "--error")},
	"xargs":      {valueShort: "aEdILnPs", valueLong: set("--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var")},
	"caffeinate": {valueShort: "tw"},
	"chronic":    {},
	"unbuffer":   {},
	"watch":      {valueShort: "nqd", valueLong: set("--interval", "--differences")},
}

func set(s ...string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, x := range s {
		m[x] = true
	}
	return m
}

// unwrap skips the leading assignments and wrappers of a simple command and
// returns the index of the real program and the privilege wrapper crossed,
// if any. A wrapper with nothing after it is itself the program.
func unwrap(words []word, start int) (int, string) {
	priv := ""
	for i := 0; i < 8 && start < len(words); i++ {
		w := words[start]
		if !w.lit {
			break
		}
		name := programName(w)
		spec, ok := wrappers[name]
		if !ok || name == "watch" {
			break // watch '…' is parsed as a script by nested
		}
		if name == "command" && start+1 < len(words) && (words[start+1].text == "-v" || words[start+1].text == "-V") {
			break // command -v looks a name up; it runs nothing
		}
		j := skipOptions(words, start+1, spec)
		if spec.assigns {
			for j < len(words) && words[j].lit && isAssignment(words[j].text) {
				j++
			}
		}
		j += spec.positional
		if j >= len(words) {
			break
		}
		if privWrappers[name] {
			priv = name
		}
		start = j
	}
	return start, priv
}

// skipOptions returns the index of the first word at or after i that is
// not an option of spec (or the option terminator "--").
func skipOptions(words []word, i int, spec optSpec) int {
	for i < len(words) {
		w := words[i]
		if !w.lit || len(w.text) < 2 || w.text[0] != '-' {
			return i
		}
		if w.text == "--" {
			return i + 1
		}
		if strings.HasPrefix(w.text, "--") {
			if !strings.Contains(w.text, "=") && spec.valueLong[w.text] {
				i++
			}
			i++
			continue
		}
		for k := 1; k < len(w.text); k++ {
			if strings.IndexByte(spec.valueShort, w.text[k]) >= 0 {
				if k == len(w.text)-1 {
					i++ // the value is the next word
				}
				break
			}
		}
		i++
	}
	return i
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
		if !secret && isSecretPath(t) {
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
	return marks
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
