package action

import (
	"path"
	"strings"
)

// Where a command runs. A relative path names a file in the directory the
// command runs in, which is not always the working directory the agent
// reported: `cd ~/.claude && rm settings.json`, `env -C ~/.claude rm
// settings.json` and `git -C /tmp/evil log` (which runs the hooks and
// pager of /tmp/evil/.git/config) all act elsewhere. limen follows the
// directory as far as the text says it, checks its controls and secrets
// in both the working directory and the one the command runs in (so a
// wrong guess of either cannot hide a protected file), and marks a command
// that runs outside the project, or where limen cannot tell, as elsewhere:
// an approval of the same program in the project vouches for nothing
// about it.

// elsewhereMark marks a command that runs outside the working directory,
// or in a directory only known when it runs.
const elsewhereMark = "elsewhere"

// dirState is the directory a shell has moved to with cd. It is shared by
// the commands that one shell process runs in order, copied into a
// subshell or a child shell, so that what they do stays there.
type dirState struct {
	moved bool   // a cd ran: at holds where to
	at    string // the directory; "" when it is only known when it runs
	// named says the command's own words name the directory (git -C DIR,
	// env -C DIR), not an earlier cd.
	named bool
}

// here is the directory the walker's command runs in ("" when unknown).
func (w walker) here() string {
	if w.dir != nil && w.dir.moved {
		return w.dir.at
	}
	return w.cwd
}

// dirs are the directories a relative path of the command is checked in:
// the working directory, and the one the command runs in when that
// differs and is known.
func (w walker) dirs() []string {
	h := w.here()
	if h == "" || h == w.cwd {
		return []string{w.cwd}
	}
	return []string{w.cwd, h}
}

// copyDir returns the walker with a directory state of its own, as a
// subshell or a child shell has.
func (w walker) copyDir() walker {
	d := dirState{}
	if w.dir != nil {
		d = *w.dir
	}
	w.dir = &d
	return w
}

// runsAt returns the walker for one command that runs in dir (a wrapper's
// or the program's own chdir option); the shell's directory is unchanged.
func (w walker) runsAt(dir string) walker {
	w.dir = &dirState{moved: true, at: dir, named: true}
	return w
}

// runsElsewhere reports whether the command runs outside the working
// directory, or where limen cannot tell.
// systemDir reports whether a command runs in a directory that is no
// project: the root, a home directory itself, or the system's own trees.
// Relative paths there name the system's files (rm -rf bin in /), so an
// approval given in a project says nothing about them.
func (w walker) systemDir(d string) bool {
	if d == "" {
		return false
	}
	d = path.Clean(d)
	if d == "/" || d == w.home || d == "/home" || d == "/Users" || d == "/tmp" || d == "/var/tmp" || d == "/root" && w.home == "/root" {
		return true
	}
	for _, root := range []string{"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/var", "/opt", "/boot", "/sys", "/proc", "/dev", "/System", "/Library", "/Applications", "/private"} {
		if d == root || strings.HasPrefix(d, root+"/") {
			return true
		}
	}
	return false
}

func (w walker) runsElsewhere() bool {
	if w.dir == nil || !w.dir.moved {
		return false
	}
	h := w.dir.at
	return h == "" || w.cwd == "" || h != w.cwd && !strings.HasPrefix(h, w.cwd+"/")
}

// loopDir makes the shell's directory unknown from a loop on, when the
// command line may cd: a later pass of the body runs where an earlier one
// moved.
func (w walker) loopDir() {
	if w.out.cds && w.dir != nil {
		*w.dir = dirState{moved: true}
	}
}

// resolveDir is the directory d names, seen from base ("" when that is
// only known when it runs).
func (w walker) resolveDir(base string, d word) string {
	t := d.text
	switch {
	case !d.lit || d.glob || d.computed || t == "" || t == "-":
		return ""
	case t == "~" || strings.HasPrefix(t, "~/"):
		if w.home == "" {
			return ""
		}
		return path.Clean(w.home + t[1:])
	case strings.HasPrefix(t, "~"):
		return "" // ~user: another account's home
	case strings.HasPrefix(t, "/"):
		return kernelPath(t, w.here())
	case base == "":
		return ""
	}
	return path.Join(base, t)
}

// kernelPath cleans an absolute path as the kernel would walk it through
// the process's own links: /dev/fd is /proc/self/fd, /proc/self/cwd is
// where the command runs and /proc/self/root is /, so
// /dev/fd/../cwd/Makefile is the project's Makefile (the nineteenth
// red-team pass), not /dev/cwd/Makefile.
func kernelPath(t, here string) string {
	for _, dev := range [...][2]string{{"/dev/fd/", "/proc/self/fd/"}, {"/dev/stdin/", "/proc/self/fd/0/"}, {"/dev/stdout/", "/proc/self/fd/1/"}, {"/dev/stderr/", "/proc/self/fd/2/"}} {
		if rest, ok := strings.CutPrefix(t, dev[0]); ok {
			t = dev[1] + rest
		}
	}
	if !strings.HasPrefix(t, "/proc/") {
		return path.Clean(t)
	}
	return path.Clean(procThrough(path.Clean(t), here))
}

// cd follows a cd, pushd or popd of the shell: where it goes when the
// text says so, unknown otherwise (cd -, popd, a directory built when it
// runs, a cd that runs only sometimes).
func (w walker) cd(prog string, args []word, cond bool) {
	if w.dir == nil {
		return
	}
	var target *word
	for i := range args {
		a := &args[i]
		if a.lit && strings.HasPrefix(a.text, "-") && len(a.text) > 1 && target == nil && a.text != "--" {
			continue // -L, -P, -e, -@
		}
		if a.lit && a.text == "--" && target == nil {
			continue
		}
		target = a
		break
	}
	at := ""
	switch {
	case prog == "popd":
	case target == nil:
		if prog == "cd" {
			at = w.home
		}
	default:
		at = w.resolveDir(w.here(), *target)
	}
	if cond && at != w.here() {
		at = "" // it may or may not have run: either directory
	}
	*w.dir = dirState{moved: true, at: at}
}

// chdirSpec is how a program says, in its options, that it runs in
// another directory.
type chdirSpec struct {
	short byte     // -C DIR, -CDIR, or the last letter of a cluster (-iC DIR)
	long  []string // --chdir=DIR, --chdir DIR, or a prefix getopt accepts (--ch)
	// valueShort are the program's other short options that take a value,
	// so a cluster is read as the program reads it (env -uC: C is -u's value).
	valueShort string
	// single are options spelled whole with one dash: go -C, terraform
	// -chdir=DIR.
	single []string
	// beforeOperand says the options that move it end at the first
	// operand: git -C must come before the subcommand.
	beforeOperand bool
}

// wrapperChdir are the wrappers that run their command in another
// directory; programChdir the programs that act on another directory
// (and run what it holds: its .git/config, Makefile, package.json).
var (
	wrapperChdir = map[string]chdirSpec{
		"env":     {short: 'C', long: []string{"chdir"}, valueShort: "uS"},
		"sudo":    {short: 'D', long: []string{"chdir"}, valueShort: "uUgChprtT"},
		"run0":    {short: 'D', long: []string{"chdir"}, valueShort: "u"},
		"unshare": {short: 'w', long: []string{"wd"}, valueShort: "SGRl"},
		"nsenter": {short: 'w', long: []string{"wd"}, valueShort: "tSGrTe"},
		"conda":   {long: []string{"cwd"}},
		"mamba":   {long: []string{"cwd"}},
	}
	programChdir = map[string]chdirSpec{
		"git": {short: 'C', long: []string{"git-dir", "work-tree"}, valueShort: "c", beforeOperand: true},
		// -j and -l take a number only when one follows (make -j -C DIR):
		// they are not among the options whose value is the next word.
		"make":      {short: 'C', long: []string{"directory"}, valueShort: "fIoW"},
		"gmake":     {short: 'C', long: []string{"directory"}, valueShort: "fIoW"},
		"go":        {single: []string{"-C"}, beforeOperand: true},
		"ninja":     {short: 'C', valueShort: "fjklt"},
		"npm":       {short: 'C', long: []string{"prefix"}},
		"pnpm":      {short: 'C', long: []string{"dir"}},
		"yarn":      {long: []string{"cwd"}},
		"bun":       {long: []string{"cwd"}},
		"uv":        {long: []string{"directory", "project"}},
		"poetry":    {short: 'C', long: []string{"directory", "project"}},
		"just":      {short: 'd', long: []string{"working-directory", "justfile"}, valueShort: "f"},
		"task":      {short: 'd', long: []string{"dir"}},
		"terraform": {single: []string{"-chdir"}, beforeOperand: true},
		"tofu":      {single: []string{"-chdir"}, beforeOperand: true},
		"gradle":    {short: 'p', long: []string{"project-dir"}},
		"cargo":     {short: 'C', long: []string{"manifest-path"}},
		"meson":     {short: 'C'},
		"rake":      {short: 'C', long: []string{"directory"}},
		"pytest":    {long: []string{"rootdir"}},
	}
)

// fileOptions are the chdir options that name a file in the directory
// rather than the directory.
var fileOptions = set("manifest-path", "justfile", "git-dir")

// chdirOf returns the directory that args (the words after the program
// name, up to what a wrapper runs) move the program to, seen from base;
// moved is false when they move nothing. A directory given more than once
// is followed as the program does (git -C a -C b is a/b).
func (w walker) chdirOf(spec chdirSpec, args []word, base string) (dir string, moved bool) {
	dir = base
	set := func(d word) {
		if moved && dir == "" {
			return
		}
		dir, moved = w.resolveDir(dir, d), true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		value := func() (word, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return word{}, false
		}
		if !a.lit {
			if !strings.HasPrefix(t, "-") && spec.beforeOperand {
				return dir, moved
			}
			continue
		}
		if t == "--" || !strings.HasPrefix(t, "-") || t == "-" {
			if spec.beforeOperand || t == "--" {
				return dir, moved
			}
			continue
		}
		if matched := w.singleChdir(spec, t, value, set); matched {
			continue
		}
		if strings.HasPrefix(t, "--") {
			name, val, hasVal := strings.Cut(t[2:], "=")
			if !longChdir(spec, name) {
				continue
			}
			v := word{text: val, lit: true}
			if !hasVal {
				var ok bool
				if v, ok = value(); !ok {
					return "", true
				}
			}
			if fileOptions[name] {
				// cargo --manifest-path x/Cargo.toml, just --justfile
				// x/justfile, git --git-dir x/.git: where the file is
				v.text = path.Dir(v.text)
			}
			set(v)
			continue
		}
		if spec.short == 0 {
			continue
		}
		for k := 1; k < len(t); k++ {
			c := t[k]
			if c != spec.short && !strings.ContainsRune(spec.valueShort, rune(c)) {
				continue
			}
			v := word{text: t[k+1:], lit: true}
			if v.text == "" {
				var ok bool
				if v, ok = value(); !ok {
					if c == spec.short {
						return "", true
					}
					break
				}
			}
			if c == spec.short {
				set(v)
			}
			break
		}
	}
	return dir, moved
}

// singleChdir reads spec's one-dash long spellings (-C DIR, -chdir=DIR).
func (w walker) singleChdir(spec chdirSpec, t string, value func() (word, bool), set func(word)) bool {
	for _, s := range spec.single {
		if t == s {
			if v, ok := value(); ok {
				set(v)
			} else {
				set(word{})
			}
			return true
		}
		if v, ok := strings.CutPrefix(t, s+"="); ok {
			set(word{text: v, lit: true})
			return true
		}
	}
	return false
}

// longChdir reports whether --name is one of spec's long options, whole
// or abbreviated to three letters or more, as getopt_long accepts (an
// abbreviation of another option is taken for it too: that only makes
// limen think the command moved).
func longChdir(spec chdirSpec, name string) bool {
	for _, l := range spec.long {
		if name == l || len(name) >= 3 && strings.HasPrefix(l, name) {
			return true
		}
	}
	return false
}

// containsCd reports whether a script may change its directory: it names
// cd, pushd or popd anywhere. Then the bodies of its loops and functions,
// which may run after such a cd, run where limen cannot tell.
func containsCd(script string) bool {
	for _, name := range [...]string{"cd", "pushd", "popd"} {
		for i := 0; ; {
			j := strings.Index(script[i:], name)
			if j < 0 {
				break
			}
			j += i
			before := j == 0 || !isWordByte(script[j-1])
			after := j+len(name) == len(script) || !isWordByte(script[j+len(name)])
			if before && after {
				return true
			}
			i = j + len(name)
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c == '/' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// commandControl is [commandControl] in every directory the command's
// relative paths may name (see dirs).
func (w walker) commandControl(words []word, start int, redirs []string) string {
	for _, d := range w.dirs() {
		if why := commandControl(w.out.self, d, w.home, words, start, redirs); why != "" {
			return why
		}
	}
	return ""
}

// secretAt is [secretAt] in every directory the command's relative paths
// may name.
func (w walker) secretAt(p string) bool {
	for _, d := range w.dirs() {
		if secretAt(p, d, w.home) {
			return true
		}
	}
	return false
}

// holdsSecrets is [holdsSecrets] in every directory the command's
// relative paths may name.
func (w walker) holdsSecrets(p string) bool {
	for _, d := range w.dirs() {
		if holdsSecrets(p, d, w.home) {
			return true
		}
	}
	return false
}

// runsConfig is [runsConfig] of p as it is written and, for a command run
// in another directory, of where it lies there (env -C .git rm config
// removes .git/config).
func (w walker) runsConfig(p string) bool {
	if runsConfig(p) {
		return true
	}
	h := w.here()
	return h != w.cwd && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") && (h == "" || runsConfig(path.Join(h, p)))
}
