package action

import (
	"regexp"
	"strings"
)

// The see functions of exec_table.go rows whose code is in a language of
// its own: awk programs, sed scripts, tar's and git's command options,
// vim's ex commands, container and pod commands.

// seeAwk: an awk program that calls system() on a literal string runs that
// command; one that calls it on anything else, or pipes to or from a
// command, runs code limen cannot read.
func seeAwk(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	var progs []int
	file := false
	i := 1
	for i < len(cmd) {
		t := cmd[i].text
		if !cmd[i].lit || !strings.HasPrefix(t, "-") || t == "-" {
			break
		}
		if t == "--" {
			i++
			break
		}
		if (t == "-i" || t == "--include") && i+1 < len(cmd) && cmd[i+1].text == "inplace" || t == "-iinplace" || t == "--include=inplace" {
			// gawk -i inplace rewrites every file it is given.
			return 0, w.opaqueCall(c, "gawk -i inplace rewrites the files it is given")
		}
		switch t {
		case "-f", "--file", "-i", "--include", "-l", "--load":
			if i+1 < len(cmd) && (!cmd[i+1].lit || cmd[i+1].glob || readsStdinPath(cmd[i+1].text)) {
				return 0, w.opaqueCall(c, "its program is read from its input or built when it runs")
			}
			file = true
			i += 2
			continue
		case "-e", "--source":
			progs = append(progs, i+1)
			i += 2
			continue
		case "-v", "--assign", "-F", "--field-separator":
			i += 2
			continue
		}
		if strings.HasPrefix(t, "-f") || strings.HasPrefix(t, "--file=") {
			file = true
		}
		if strings.HasPrefix(t, "--source=") || strings.HasPrefix(t, "-e") && len(t) > 2 {
			return 0, w.opaqueCall(c, "its program runs commands limen cannot read")
		}
		i++
	}
	if !file && len(progs) == 0 && i < len(cmd) {
		progs = append(progs, i)
	}
	for _, at := range progs {
		if at >= len(cmd) {
			continue
		}
		if !cmd[at].lit {
			return 0, w.opaqueCall(c, "its program is built when it runs")
		}
		if awkFileIO.MatchString(cmd[at].text) {
			// print > "GNUmakefile", getline < ".env", ENVIRON[…]: awk
			// writes and reads files of its own choosing (the twentieth
			// red-team pass wrote a Makefile so, and make ran it).
			return 0, w.opaqueCall(c, "its program writes or reads files (print >, getline <) or the environment, which limen does not follow")
		}
		cmds, ok := awkCommands(cmd[at].text)
		if !ok {
			return 0, w.opaqueCall(c, "its program runs commands limen cannot read")
		}
		for _, s := range cmds {
			w.parseInner(c, at, s, true)
		}
	}
	return 0, false
}

// awkFileIO finds an awk program's own file input and output: a print or
// printf redirected to a file (print x > "f", >> "f"), getline from a
// file (getline l < "f"), and ENVIRON.
// A ">" or "<" anywhere after them counts, strings and comparisons
// included: a target can hide in a string ("all:;@id" > "GNUmakefile"),
// and reading too much costs an ask.
var awkFileIO = regexp.MustCompile(`(?s)\bprintf?\b.*>|\bgetline\b.*<|ENVIRON`)

// awkCommands returns the commands an awk program runs with system() on
// string literals; false when it runs any other way (system of an
// expression, a pipe to or from a command, a coprocess).
func awkCommands(prog string) ([]string, bool) {
	var out []string
	prev := byte('{') // the last significant character: says whether / starts a regex
	for i := 0; i < len(prog); i++ {
		c := prog[i]
		switch {
		case c == '"':
			_, n, ok := awkString(prog[i:])
			if !ok {
				return nil, false
			}
			i += n - 1
			prev = '"'
		case c == '/' && strings.IndexByte("(,~!&|{};:?\n=", prev) >= 0:
			j := i + 1
			for j < len(prog) && prog[j] != '/' {
				if prog[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(prog) {
				return nil, false
			}
			i = j
			prev = '/'
		case c == '#':
			for i < len(prog) && prog[i] != '\n' {
				i++
			}
			prev = '\n'
		case c == '|':
			if i+1 < len(prog) && prog[i+1] == '|' {
				i++
				prev = '|'
				continue
			}
			return nil, false // print | "cmd", "cmd" | getline, |&
		case isAwkIdent(c) && (i == 0 || !isAwkIdent(prog[i-1])):
			j := i
			for j < len(prog) && isAwkIdent(prog[j]) {
				j++
			}
			switch prog[i:j] {
			case "system":
				k := j
				for k < len(prog) && (prog[k] == ' ' || prog[k] == '\t') {
					k++
				}
				if k >= len(prog) || prog[k] != '(' {
					return nil, false
				}
				k++
				for k < len(prog) && prog[k] == ' ' {
					k++
				}
				s, n, ok := awkString(prog[k:])
				if !ok {
					return nil, false
				}
				k += n
				for k < len(prog) && prog[k] == ' ' {
					k++
				}
				if k >= len(prog) || prog[k] != ')' {
					return nil, false // system("rm " x): built when it runs
				}
				out = append(out, s)
				i = k
				prev = ')'
				continue
			}
			i = j - 1
			prev = 'a'
		case c == ' ' || c == '\t':
		default:
			prev = c
		}
	}
	return out, true
}

func isAwkIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// awkString decodes the string literal at the start of s: its value and
// length; false when s does not start with one.
func awkString(s string) (string, int, bool) {
	if s == "" || s[0] != '"' {
		return "", 0, false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), i + 1, true
		case '\\':
			if i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(s[i])
				}
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// sedArgs is a sed command line as GNU sed reads it: options anywhere
// before `--` (getopt permutes them past the file operands, so
// `sed -n 1p f -e 'e id'` runs e id), long options by any unique prefix
// (--expr), and the first operand the script only when no -e or -f gave
// one. seeSed and sedOutputs both read sed through it.
type sedArgs struct {
	scripts []word // the scripts given inline, or the first operand
	files   []word // the script files of -f
	stdin   bool   // a script file read from standard input, or built when it runs
}

// sedLong are GNU sed's long options; those in sedLongValue take a value.
var (
	sedLong      = []string{"binary", "debug", "expression", "file", "follow-symlinks", "help", "in-place", "line-length", "null-data", "posix", "quiet", "regexp-extended", "sandbox", "separate", "silent", "unbuffered", "version", "zero-terminated"}
	sedLongValue = set("expression", "file", "line-length")
)

func parseSed(args []word) sedArgs {
	var out sedArgs
	explicit := false
	var ops []word
	script := func(v word) { explicit = true; out.scripts = append(out.scripts, v) }
	file := func(v word) {
		explicit = true
		if !v.lit || v.glob || readsStdinPath(v.text) {
			out.stdin = true
		}
		out.files = append(out.files, v)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		next := func() (word, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return word{}, false
		}
		switch {
		case !a.lit || len(t) < 2 || t[0] != '-':
			ops = append(ops, a)
		case t == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(t, "--"):
			name, val, hasVal := strings.Cut(t[2:], "=")
			full := uniquePrefix(name, sedLong)
			if !sedLongValue[full] {
				continue // a flag, --in-place[=SUFFIX], or one sed refuses
			}
			v := word{text: val, lit: true}
			if !hasVal {
				var ok bool
				if v, ok = next(); !ok {
					continue
				}
			}
			switch full {
			case "expression":
				script(v)
			case "file":
				file(v)
			}
		default:
			// A cluster of short options: -ne 's/x/y/', -nf x.sed, -i.bak
			// (the rest of -i is a suffix), -l 70.
			for k := 1; k < len(t); k++ {
				c := t[k]
				if c == 'i' {
					break
				}
				if c != 'e' && c != 'f' && c != 'l' {
					continue
				}
				v := word{text: t[k+1:], lit: true}
				if v.text == "" {
					var ok bool
					if v, ok = next(); !ok {
						break
					}
				}
				switch c {
				case 'e':
					script(v)
				case 'f':
					file(v)
				}
				break
			}
		}
	}
	if !explicit && len(ops) > 0 {
		out.scripts = append(out.scripts, ops[0])
	}
	return out
}

// uniquePrefix returns the name of names that s is, or abbreviates
// uniquely, as getopt_long reads long options; "" when none or several.
func uniquePrefix(s string, names []string) string {
	found := ""
	for _, n := range names {
		if n == s {
			return n
		}
		if s != "" && strings.HasPrefix(n, s) {
			if found != "" {
				return ""
			}
			found = n
		}
	}
	return found
}

// seeSed: a sed script with the e command or the e flag of s runs
// commands limen cannot read (their text is built from the input), and so
// does a script file limen cannot see.
func seeSed(w walker, c *execCall) (int, bool) {
	p := parseSed(c.cmd()[1:])
	if p.stdin {
		return 0, w.opaqueCall(c, "its script is read from its input or built when it runs")
	}
	for _, s := range p.scripts {
		if !s.lit || sedRuns(s.text) {
			return 0, w.opaqueCall(c, "its script runs commands")
		}
	}
	return 0, false
}

// sedRuns reports whether a sed script may run a command: the e command,
// the e flag of s, or a script limen cannot parse.
func sedRuns(s string) bool {
	i := 0
	skipSpace := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ';' || s[i] == '\n') {
			i++
		}
	}
	// delimited reads text up to an unescaped delimiter d.
	delimited := func(d byte) bool {
		for i < len(s) {
			switch s[i] {
			case '\\':
				i += 2
				continue
			case d:
				i++
				return true
			case '\n':
				if d != '\n' {
					return false
				}
			}
			i++
		}
		return false
	}
	toEOL := func() {
		for i < len(s) && s[i] != '\n' {
			i++
		}
	}
	address := func() bool {
		for {
			switch {
			case i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '$' || s[i] == '~' || s[i] == '+'):
				i++
			case i < len(s) && s[i] == '/':
				i++
				if !delimited('/') {
					return false
				}
				for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
			case i+1 < len(s) && s[i] == '\\':
				d := s[i+1]
				i += 2
				if !delimited(d) {
					return false
				}
			case i < len(s) && (s[i] == ',' || s[i] == ' ' || s[i] == '!'):
				i++
			default:
				return true
			}
		}
	}
	for {
		skipSpace()
		if i >= len(s) {
			return false
		}
		if !address() {
			return true
		}
		if i >= len(s) {
			return true
		}
		c := s[i]
		i++
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'q', 'Q', 'x', 'z', 'F', 'L':
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++ // q5, l 70
			}
		case '#':
			toEOL()
		case 'a', 'i', 'c', 'r', 'R', 'w', 'W', 'b', 't', 'T', ':', 'v':
			if c == 'b' || c == 't' || c == 'T' || c == ':' || c == 'v' {
				for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
					i++
				}
				continue
			}
			toEOL()
		case 'e':
			return true
		case 's', 'y':
			if i >= len(s) || s[i] == '\n' || s[i] == '\\' {
				return true
			}
			d := s[i]
			i++
			// Two delimited sections: the regex, then the
			// replacement (delimited moves past each).
			if !delimited(d) {
				return true
			}
			if !delimited(d) {
				return true
			}
			if c == 'y' {
				continue
			}
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				switch f := s[i]; {
				case f == 'e':
					return true
				case f == 'w' || f == 'W':
					toEOL() // the rest of the line names a file
					continue
				case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9' || f == ' ':
				default:
					return true
				}
				i++
			}
		default:
			return true
		}
	}
}

// tarScripts are tar's options whose value is a command it runs.
var tarScripts = []string{"--to-command", "--use-compress-program", "--info-script", "--new-volume-script", "--rsh-command", "--rmt-command", "-I", "-F"}

// seeTar: tar --to-command=CMD, -I CMD, --checkpoint-action=exec=CMD run CMD.
func seeTar(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		t := cmd[i].text
		if !strings.HasPrefix(t, "-") {
			continue
		}
		if v, ok := strings.CutPrefix(t, "--checkpoint-action="); ok {
			if script, ok := strings.CutPrefix(v, "exec="); ok {
				w.runScript(c, i, script, true)
			}
			continue
		}
		if t == "--checkpoint-action" && i+1 < len(cmd) {
			if script, ok := strings.CutPrefix(cmd[i+1].text, "exec="); ok {
				w.runScript(c, i+1, script, true)
			}
			continue
		}
		if !strings.HasPrefix(t, "--") && len(t) > 2 && strings.ContainsAny(t[1:], "IF") {
			// a cluster such as -cIf: its value options take the next words in order
			if i+1 < len(cmd) {
				w.runScript(c, i+1, cmd[i+1].text, true)
			}
			continue
		}
		if val, at, ok := optionValue(cmd, i, tarScripts); ok {
			w.runScript(c, at, val, true)
		}
	}
	return 0, false
}

// gitExec says what a git configuration key's value runs.
func gitExec(key string) envHow {
	k := strings.ToLower(key)
	switch k {
	case "core.sshcommand", "core.pager", "core.editor", "core.askpass", "core.fsmonitor", "core.gitproxy",
		"sequence.editor", "diff.external", "gpg.program", "uploadpack.packobjectshook", "credential.helper",
		"sendemail.aliasesfile", "web.browser", "instaweb.httpd", "merge.tool", "diff.tool":
		return envScript
	case "core.hookspath", "include.path", "init.templatedir", "core.worktree":
		return envCode
	}
	switch {
	case strings.HasPrefix(k, "alias."), strings.HasPrefix(k, "pager."),
		strings.HasPrefix(k, "filter.") && (strings.HasSuffix(k, ".clean") || strings.HasSuffix(k, ".smudge") || strings.HasSuffix(k, ".process")),
		strings.HasPrefix(k, "diff.") && (strings.HasSuffix(k, ".textconv") || strings.HasSuffix(k, ".command")),
		strings.HasPrefix(k, "merge.") && strings.HasSuffix(k, ".driver"),
		strings.HasPrefix(k, "gpg.") && strings.HasSuffix(k, ".program"),
		strings.HasPrefix(k, "mergetool.") && strings.HasSuffix(k, ".cmd"),
		strings.HasPrefix(k, "difftool.") && strings.HasSuffix(k, ".cmd"),
		strings.HasPrefix(k, "credential.") && strings.HasSuffix(k, ".helper"),
		strings.HasPrefix(k, "remote.") && (strings.HasSuffix(k, ".uploadpack") || strings.HasSuffix(k, ".receivepack")):
		return envScript
	case strings.HasPrefix(k, "includeif."), strings.HasPrefix(k, "protocol.") && strings.HasSuffix(k, ".allow"):
		return envCode
	}
	return envNone
}

// gitHarmlessKeys are git configuration keys (or sections, ending in a
// dot) that run nothing and send nothing elsewhere: who commits, how
// output looks, how merges are shown. Any other key given with -c or
// written with git config makes the part opaque: git has hundreds, and
// many run programs (core.fsmonitor), fetch or push elsewhere
// (url.*.insteadOf, remote.*.mirror) or turn off checks (safe.directory).
var gitHarmlessKeys = []string{
	"user.name", "user.email", "user.signingkey", "author.", "committer.", "color.", "advice.", "column.", "i18n.",
	"core.quotepath", "core.autocrlf", "core.filemode", "core.ignorecase", "core.abbrev", "core.safecrlf", "core.eol",
	"core.whitespace", "core.precomposeunicode", "core.longpaths", "init.defaultbranch", "pull.rebase", "pull.ff",
	"push.default", "push.autosetupremote", "fetch.prune", "fetch.prunetags", "merge.conflictstyle", "merge.ff",
	"merge.renames", "rebase.autosquash", "rebase.autostash", "rebase.updaterefs", "diff.noprefix", "diff.renames",
	"diff.algorithm", "diff.colormoved", "diff.mnemonicprefix", "diff.context", "log.", "format.pretty", "format.signoff",
	"commit.gpgsign", "commit.verbose", "tag.gpgsign", "tag.sort", "status.", "grep.", "gc.auto", "maintenance.auto",
	"blame.", "branch.sort", "branch.autosetuprebase", "rerere.enabled", "help.autocorrect",
}

// gitHarmless reports whether a git configuration key is one of
// gitHarmlessKeys.
func gitHarmless(key string) bool {
	k := strings.ToLower(key)
	for _, h := range gitHarmlessKeys {
		if k == h || strings.HasSuffix(h, ".") && strings.HasPrefix(k, h) {
			return true
		}
	}
	return false
}

// gitSetting handles one key=value git setting, given with -c or written
// with git config: a value that runs a command is parsed (an alias runs
// only when it starts with !), a value that points at code is opaque.
func (w walker) gitSetting(c *execCall, at int, key, value string, lit bool) {
	how := gitExec(key)
	if how == envNone {
		if !gitHarmless(key) {
			// remote.origin.mirror, url.*.insteadOf, protocol.*,
			// safe.directory …: what it changes is not read here.
			w.opaqueCall(c, "it sets git configuration ("+key+") that limen does not know to be harmless")
		}
		return
	}
	if !lit || how == envCode {
		w.opaqueCall(c, "it configures git to run code limen cannot read")
		return
	}
	k := strings.ToLower(key)
	if strings.HasPrefix(k, "alias.") || strings.HasPrefix(k, "credential.") || strings.HasPrefix(k, "pager.") {
		rest, ok := strings.CutPrefix(value, "!")
		if !ok {
			if strings.HasPrefix(k, "alias.") || !strings.ContainsAny(value, " /") {
				return // a git subcommand, or git credential-<name>
			}
		}
		value = rest
	}
	w.runScript(c, at, value, true)
}

// gitScripts are options of git subcommands whose value is a command git
// runs.
var gitScripts = map[string][]string{
	"rebase":        {"-x", "--exec"},
	"difftool":      {"-x", "--extcmd"},
	"clone":         {"-u", "--upload-pack"},
	"fetch":         {"--upload-pack"},
	"pull":          {"--upload-pack"},
	"ls-remote":     {"--upload-pack"},
	"push":          {"--receive-pack", "--exec"},
	"archive":       {"--exec"},
	"filter-branch": {"--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter"},
	"mergetool":     {},
	"grep":          {"-O", "--open-files-in-pager"},
}

// seeGit: git -c key=value, git config key value, submodule foreach,
// rebase --exec, bisect run and the transport commands.
func seeGit(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	i := 1
	for i < len(cmd) && strings.HasPrefix(cmd[i].text, "-") {
		t := cmd[i].text
		switch {
		case t == "-c" && i+1 < len(cmd):
			key, value, _ := strings.Cut(cmd[i+1].text, "=")
			w.gitSetting(c, i+1, key, value, cmd[i+1].lit)
			i += 2
			continue
		case strings.HasPrefix(t, "-c") && len(t) > 2:
			key, value, _ := strings.Cut(t[2:], "=")
			w.gitSetting(c, i, key, value, cmd[i].lit)
		case strings.HasPrefix(t, "--config-env"):
			w.opaqueCall(c, "it configures git from the environment")
		case strings.HasPrefix(t, "--exec-path="):
			w.opaqueCall(c, "it runs git's commands from another directory")
		case subcommandPrograms["git"][t]:
			i++
		}
		i++
	}
	if i >= len(cmd) {
		return 0, false
	}
	sub := cmd[i].text
	args := cmd[i+1:]
	for k, a := range args {
		if a.lit && strings.HasPrefix(a.text, "ext::") || strings.Contains(a.text, "::") && strings.HasPrefix(a.text, "ext:") {
			w.opaqueCall(c, "an ext:: URL runs a command")
		}
		if !strings.HasPrefix(a.text, "-") {
			continue
		}
		if val, at, ok := optionValue(args, k, gitScripts[sub]); ok {
			w.runScript(c, i+1+at, val, true)
		}
		if sub == "clone" && (a.text == "-c" || a.text == "--config") && k+1 < len(args) {
			key, value, _ := strings.Cut(args[k+1].text, "=")
			w.gitSetting(c, i+2+k, key, value, args[k+1].lit)
		}
	}
	switch sub {
	case "config":
		// git config [options] key value, git config set key value
		var ops []int
		for k := 0; k < len(args); k++ {
			a := args[k].text
			if strings.HasPrefix(a, "-") {
				if a == "--file" || a == "-f" || a == "--blob" || a == "--type" || a == "--default" || a == "--comment" || a == "--value" {
					k++
				}
				continue
			}
			if len(ops) == 0 && (a == "set" || a == "--add") {
				continue
			}
			ops = append(ops, k)
		}
		if len(ops) >= 2 {
			key, value := args[ops[0]], args[ops[1]]
			w.gitSetting(c, i+1+ops[1], key.text, value.text, key.lit && value.lit)
		}
	case "submodule":
		for k, a := range args {
			if a.text == "foreach" {
				rest := k + 1
				for rest < len(args) && strings.HasPrefix(args[rest].text, "-") {
					rest++
				}
				if rest < len(args) {
					w.runWords(c, i+1+rest)
				}
				break
			}
		}
	case "bisect":
		if len(args) > 1 && args[0].text == "run" {
			w.command(c.words, c.start+i+2, c.ctx.withPriv(c.priv), c.rs)
		}
	}
	return 0, false
}

// vimHarmless are ex commands that run nothing: go to a line, quit,
// write, set an option.
var vimHarmless = regexp.MustCompile(`^(\d+|\$|q!?|qa(ll)?!?|wq!?|wqa(ll)?!?|xa?!?|wa?!?|set? [a-z]+(=[\w.,-]*)?( [a-z]+(=[\w.,-]*)?)*|syn(tax)? (on|off|enable)|noh(lsearch)?|norm(al)?!? [a-zA-Z0-9 ]*|/[^|]*|\?[^|]*)$`)

// seeVim: vim -c CMD, +CMD and --cmd CMD run ex commands: :!cmd runs a
// shell command, anything but a few harmless ones may run code. -S, -s
// and -u load files of them.
func seeVim(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	exMode := programName(cmd[0]) == "ex"
	for i := 1; i < len(cmd); i++ {
		t := cmd[i].text
		var ex string
		at := i
		switch {
		case t == "-c" || t == "--cmd":
			if i+1 >= len(cmd) {
				continue
			}
			at = i + 1
			ex = cmd[at].text
			i++
		case strings.HasPrefix(t, "-c") && len(t) > 2:
			ex = t[2:]
		case len(t) > 2 && t[0] == '-' && t[1] != '-' && t[len(t)-1] == 'c':
			// a cluster ending in c: ex -sc CMD
			if i+1 >= len(cmd) {
				continue
			}
			at = i + 1
			ex = cmd[at].text
			i++
		case strings.HasPrefix(t, "+") && len(t) > 1:
			ex = t[1:]
		case t == "-S" || t == "-s":
			return 0, w.opaqueCall(c, "it runs a file of editor commands")
		case t == "-u" || t == "-U":
			if i+1 < len(cmd) && (cmd[i+1].text == "NONE" || cmd[i+1].text == "NORC" || cmd[i+1].text == "DEFAULTS") {
				i++
				continue
			}
			return 0, w.opaqueCall(c, "it runs a file of editor commands")
		case t == "-e" || t == "-E" || t == "-es" || t == "-Es":
			exMode = true
			continue
		default:
			continue
		}
		if !cmd[at].lit {
			return 0, w.opaqueCall(c, "its editor command is built when it runs")
		}
		ex = strings.TrimLeft(ex, ": \t")
		if ex == "" || vimHarmless.MatchString(ex) {
			continue
		}
		if rest, ok := strings.CutPrefix(ex, "!"); ok && !strings.Contains(rest, "|") {
			w.runScript(c, at, rest, true)
			continue
		}
		return 0, w.opaqueCall(c, "it runs editor commands that may run code")
	}
	if exMode {
		if in, _ := w.stdinOf(c); in != stdinNone {
			return 0, w.opaqueCall(c, "it runs the editor commands its input holds")
		}
	}
	return 0, false
}

// containerValueOpts are the options of docker run, create and exec that
// take a value.
var containerValueOpts = set(
	"-a", "--attach", "-c", "--cpu-shares", "--cidfile", "--cpus", "--cpuset-cpus", "--device", "--dns", "-e", "--env",
	"--env-file", "--entrypoint", "--expose", "--gpus", "-h", "--hostname", "--ip", "--ipc", "-l", "--label", "--label-file",
	"--link", "--log-driver", "--log-opt", "-m", "--memory", "--mount", "--name", "--network", "--net", "--pid", "--platform",
	"-p", "--publish", "--pull", "--restart", "--runtime", "--security-opt", "--shm-size", "--stop-signal", "--stop-timeout",
	"--tmpfs", "-u", "--user", "--ulimit", "-v", "--volume", "--volumes-from", "-w", "--workdir", "--add-host", "--cap-add",
	"--cap-drop", "--cgroupns", "--health-cmd", "--health-interval", "--isolation", "--memory-swap", "--userns", "--uts",
	"--detach-keys", "--group-add", "--annotation", "--network-alias", "--device-cgroup-rule", "--cgroup-parent", "--domainname",
)

// seeContainer: docker run IMAGE CMD… and docker exec CONTAINER CMD… run
// CMD in the container (as do podman and nerdctl, and docker compose run
// and exec with a service); the docker command is keyed too.
func seeContainer(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	prog := programName(cmd[0])
	i := 1
	skipGlobals := func() {
		for i < len(cmd) && strings.HasPrefix(cmd[i].text, "-") {
			if subcommandPrograms[prog][cmd[i].text] || subcommandPrograms["docker-compose"][cmd[i].text] || cmd[i].text == "--profile" || cmd[i].text == "--project-directory" {
				i++
			}
			i++
		}
	}
	skipGlobals()
	if i < len(cmd) && (cmd[i].text == "compose" || cmd[i].text == "container") {
		i++
		skipGlobals()
	}
	if i >= len(cmd) {
		return 0, false
	}
	sub := cmd[i].text
	if sub != "run" && sub != "exec" && sub != "create" {
		return 0, false
	}
	i++
	entry := -1
	for i < len(cmd) && strings.HasPrefix(cmd[i].text, "-") && cmd[i].lit {
		t := cmd[i].text
		if t == "--" {
			i++
			break
		}
		if t == "--entrypoint" && i+1 < len(cmd) {
			entry = i + 1
		}
		if strings.HasPrefix(t, "--entrypoint=") {
			entry = i
		}
		if t == "--health-cmd" && i+1 < len(cmd) {
			w.runScript(c, i+1, cmd[i+1].text, true)
		}
		if containerValueOpts[t] {
			i++
		}
		i++
	}
	i++ // the image, container or service
	if entry >= 0 {
		words := append([]word(nil), c.words[:c.start+entry]...)
		e := cmd[entry]
		e.text = strings.TrimPrefix(e.text, "--entrypoint=")
		words = append(words, e)
		if i < len(cmd) {
			words = append(words, cmd[i:]...)
		}
		w.command(words, c.start+entry, c.ctx.withPriv(c.priv), c.rs)
		return 0, false
	}
	if i < len(cmd) {
		w.command(c.words, c.start+i, c.ctx.withPriv(c.priv), c.rs)
	}
	return 0, false
}

// seeKubectl: kubectl exec POD -- CMD…, run and debug … -- CMD run CMD
// in the cluster; the kubectl command is keyed too.
func seeKubectl(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	sub := subcommand(programName(cmd[0]), cmd[1:])
	if sub == "config set-credentials" || sub == "config set" {
		// A kubeconfig's exec credentials run a command on every later
		// kubectl call.
		for _, x := range cmd[1:] {
			if !x.lit || strings.HasPrefix(x.text, "--exec-") || strings.Contains(x.text, ".exec.") || strings.Contains(x.text, "auth-provider") {
				return 0, w.opaqueCall(c, "it sets a credential command that every later kubectl call runs")
			}
		}
	}
	sub, _, _ = strings.Cut(sub, " ")
	if sub != "exec" && sub != "run" && sub != "debug" && sub != "attach" {
		return 0, false
	}
	for i := 1; i < len(cmd); i++ {
		if cmd[i].lit && cmd[i].text == "--" {
			if i+1 < len(cmd) {
				w.command(c.words, c.start+i+1, c.ctx.withPriv(c.priv), c.rs)
			}
			return 0, false
		}
	}
	return 0, false
}
