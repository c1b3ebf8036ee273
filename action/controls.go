package action

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// This file recognises limen's own controls: every part of an action that
// would answer a person's ask, change or roll back the policy, install or
// remove a runtime's hook, stop limend, start another one, talk to its
// sockets, or change its database or the runtimes' hook settings. Such a
// part is blocked whatever anyone approved before (internal/engine), so it
// is recognised from the command's words (any path to the binary, global
// options in any order, after wrappers), never from how a rule spells it.
// The knowledge is kept as tables; controls_test.go has a case per row.

// Self is where the limend deciding an action keeps what an agent must not
// touch. The daemon fills it in (the predictor reads nothing itself); the
// locations that do not depend on its configuration, such as
// ~/.claude/settings.json or ~/.local/share/limen, are protected without
// it.
type Self struct {
	// Sockets are limend's Unix sockets (gRPC and HTTP), cleaned absolute
	// paths.
	Sockets []string
	// DB is limend's database file, a cleaned absolute path.
	DB string
	// Files are other files limen depends on: a policy or configuration
	// file, a runtime's hook settings installed outside the usual places.
	Files []string
	// Keys are files whose reading is as good as holding limen's state:
	// limend's client key and certificate for a team's etcd, with which
	// anyone can write answers and policy past limend. Reading one is a
	// secret read, changing one a control (they are in Files too).
	Keys []string
	// PID is limend's process id; 0 when unknown.
	PID int
	// Home is the home directory of the user limend runs as, as the
	// system says (it may lie outside /home, /Users and /root: a
	// /var/home, a scratch $HOME); "" when unknown. The runtimes' hook
	// settings and limen's own files under it are protected there too.
	Home string
}

// holdsRecords reports whether a path a command reads names limend's own
// database, wherever limend keeps it (XDG_DATA_HOME, --db), or a file
// beside it: the record of every command an agent was asked about and
// every answer, a secret as the default location's is (secrets.go). With
// tree, a directory above it counts too (grep -r allow ..).
func (s *Self) holdsRecords(t, cwd, home string, tree bool) bool {
	if s == nil || t == "" {
		return false
	}
	sc := &controlScope{self: s, cwd: cwd, home: home}
	for _, p := range sc.resolveAll(t) {
		target := splitPath(p)
		if s.DB != "" {
			dir := splitPath(globQuote(path.Dir(s.DB)))
			if gap, ok := segmentsMatch(append(dir, "*"), target, false); ok && (gap == 0 || tree) {
				return true
			}
		}
		for _, k := range s.Keys {
			if gap, ok := segmentsMatch(splitPath(globQuote(k)), target, false); ok && (gap == 0 || tree) {
				return true
			}
		}
	}
	return false
}

// holdsRecords is [Self.holdsRecords] of limend's Self in every
// directory the command's relative paths may name.
func (w walker) holdsRecords(t string, tree bool) bool {
	for _, d := range w.dirs() {
		if w.out.self.holdsRecords(t, d, w.home, tree) {
			return true
		}
	}
	return false
}

// protectedPath is a glob of a location that only a person may change.
// A pattern ending in "/**" protects a directory and everything in it.
type protectedPath struct {
	glob string
	what string
}

// protectedUnderHome are relative to any home directory (the action's own,
// and /home/*, /Users/*, /root, so another user's limen is covered too).
var protectedUnderHome = []protectedPath{
	{".claude/settings*.json", "Claude Code's settings, where limen's hook is installed"},
	{".claude/hooks/**", "Claude Code's hooks"},
	{".codex/**", "Codex's configuration and hooks"},
	{".gemini/settings.json", "Gemini CLI's settings, where limen's hook is installed"},
	{".local/share/limen/**", "limen's database"},
	{".local/state/limen/**", "limen's sockets and state"},
	{".config/limen/**", "limen's configuration"},
	// The service manager starts limend from its unit: an override's
	// ExecStart runs a fake limend at its sockets (the twelfth pass).
	{".config/systemd/user/limen*", "limen's service units"},
	{".config/systemd/user/*/limen*", "limen's service units"},
	{".config/systemd/user/limen*/**", "limen's service units"},
	{"Library/LaunchAgents/*limen*", "limen's launchd agent"},
	{"Library/Application Support/limen/**", "limen's database and sockets (macOS)"},
	// A runtime's hook runs limen-hook by its path: replacing or removing
	// the binary turns every decision into what the replacement says.
	{"go/bin/limen*", "limen's programs"},
	{"bin/limen*", "limen's programs"},
	{".local/bin/limen*", "limen's programs"},
}

// protectedInProject are relative to the working directory: a project's
// own runtime settings can install or remove hooks too.
var protectedInProject = []protectedPath{
	{".claude/settings*.json", "the project's Claude Code settings, where limen's hook can be installed"},
	{".codex/**", "the project's Codex configuration"},
	{".gemini/settings.json", "the project's Gemini CLI settings, where limen's hook can be installed"},
}

// protectedAbsolute do not depend on a home or working directory.
var protectedAbsolute = []protectedPath{
	{"/run/user/*/limen/**", "limen's sockets"},
	{"/etc/claude-code/managed-settings.json", "Claude Code's managed settings"},
	{"/Library/Application Support/ClaudeCode/managed-settings.json", "Claude Code's managed settings"},
	{"/etc/gemini-cli/settings.json", "Gemini CLI's system settings"},
	{"/usr/local/bin/limen*", "limen's programs"},
	{"/usr/bin/limen*", "limen's programs"},
	{"/opt/homebrew/bin/limen*", "limen's programs"},
}

// home is limend's user's home directory, "" when unknown (s may be nil).
func (s *Self) home() string {
	if s == nil {
		return ""
	}
	return s.Home
}

// homeRoots are the home directories protectedUnderHome applies to besides
// the action's own.
var homeRoots = []string{"/home/*", "/Users/*", "/root"}

// controlScope is what a control check knows besides the command: limen's
// own locations, and where the command runs.
type controlScope struct {
	self      *Self
	cwd, home string
	// dyn caches the entries that depend on the scope, made on first use:
	// one command checks many words against them.
	dyn     []entry
	dynDone bool
	// cdMode counts the directory right above the project's settings
	// too: a cd there makes the relative paths after it name them.
	cdMode bool
	// projectAbove counts every directory above the project's settings:
	// a find that aims at them.
	projectAbove bool
}

// vagueGlob reports whether a path reaches a project entry only through a
// glob with less than two characters of its own (.*, *, ?): a pattern that
// names everything names no settings file in particular.
func vagueGlob(xs, es []string) bool {
	for i, x := range xs {
		if i >= len(es) || !hasGlob(x) || x == es[i] {
			continue
		}
		literal := 0
		for _, c := range x {
			if !strings.ContainsRune("*?[]", c) {
				literal++
			}
		}
		if literal < 2 {
			return true
		}
	}
	return false
}

// pathHit is how a path relates to a protected location: gap 0 is the
// location itself (or inside a protected directory); gap n > 0 is a
// directory n levels above it (removing or moving that removes it too).
type pathHit struct {
	what string
	path string // the protected glob, for the reason
	gap  int
	tree bool
}

// entry is a protected glob split into its path segments.
type entry struct {
	glob, what string
	segs       []string
	abs, tree  bool
	project    bool // under the working directory
}

func newEntry(glob, what string) entry {
	g, tree := strings.CutSuffix(glob, "/**")
	return entry{glob: glob, what: what, segs: splitPath(g), abs: strings.HasPrefix(g, "/"), tree: tree}
}

// staticEntries are the protected locations every limen has, under every
// home root and absolute.
var staticEntries = func() []entry {
	var out []entry
	for _, r := range homeRoots {
		for _, p := range protectedUnderHome {
			out = append(out, newEntry(r+"/"+p.glob, p.what))
		}
	}
	for _, p := range protectedAbsolute {
		out = append(out, newEntry(p.glob, p.what))
	}
	return out
}()

// anchors are texts one of which every path at or inside a static or
// project entry contains (lowercased): a path with none of them, no glob
// and outside limen's own files can only be above a protected location.
var anchors = []string{".claude", ".codex", ".gemini", "limen", "claude-code", "claudecode", "gemini-cli"}

// dynamicEntries returns the protected locations of this scope: under its
// home (when no home root covers it), its project, and limend's own files.
func (s *controlScope) dynamicEntries() []entry {
	if s.dynDone {
		return s.dyn
	}
	out := make([]entry, 0, len(protectedUnderHome)+len(protectedInProject)+4)
	for _, h := range []string{s.home, s.self.home()} {
		if h != "" && homeOf(h) == "" {
			for _, p := range protectedUnderHome {
				out = append(out, newEntry(h+"/"+p.glob, p.what))
			}
		}
		if s.self.home() == s.home {
			break // the same home: once is enough
		}
	}
	for _, p := range protectedInProject {
		g := p.glob
		if s.cwd != "" {
			g = s.cwd + "/" + g
		}
		e := newEntry(g, p.what)
		e.project = true
		out = append(out, e)
	}
	for _, f := range s.selfFiles() {
		out = append(out, newEntry(globQuote(f[0]), f[1]))
	}
	s.dyn, s.dynDone = out, true
	return out
}

// selfFiles are limend's own files with what each is.
func (s *controlScope) selfFiles() [][2]string {
	if s.self == nil {
		return nil
	}
	var out [][2]string
	for _, sock := range s.self.Sockets {
		if sock != "" {
			out = append(out, [2]string{sock, "limend's socket"})
		}
	}
	if s.self.DB != "" {
		out = append(out, [2]string{s.self.DB, "limen's database"})
	}
	for _, f := range s.self.Files {
		if f != "" {
			out = append(out, [2]string{f, "a file limen depends on"})
		}
	}
	return out
}

// globQuote escapes glob characters of a real path, so that it is matched
// as written.
func globQuote(p string) string {
	if !hasGlob(p) {
		return p
	}
	var b strings.Builder
	for _, c := range p {
		if strings.ContainsRune(`*?[\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// protectedAt returns how the cleaned path p (which may itself be a glob,
// as a shell word can be) relates to the closest protected location, and
// false when it relates to none. Without above, only the location itself
// (gap 0) is looked for, which most words are quickly ruled out of.
func (s *controlScope) protectedAt(p string, above bool) (pathHit, bool) {
	if !above && !hasGlob(p) && !s.mayBeProtected(p) {
		return pathHit{}, false
	}
	xs := splitPath(p)
	abs := strings.HasPrefix(p, "/")
	best, found := pathHit{}, false
	for _, list := range [2][]entry{staticEntries, s.dynamicEntries()} {
		for _, e := range list {
			if e.abs != abs {
				continue
			}
			gap, ok := segmentsMatch(e.segs, xs, e.tree)
			// Above the project's own settings is the workspace itself:
			// rm -rf ., chmod -R . and find . -exec are everyday work on
			// what is under version control, not limen's to forbid.
			if ok && gap > 0 && e.project && !s.cdMode && !s.projectAbove {
				continue
			}
			if ok && e.project && vagueGlob(xs, e.segs) {
				continue // kubectl --accept-hosts '.*', git add *: no aim at the project's settings
			}
			if ok && (!above && gap == 0 || above) && (!found || gap < best.gap) {
				best, found = pathHit{what: e.what, path: e.glob, gap: gap, tree: e.tree}, true
			}
		}
	}
	return best, found
}

// mayBeProtected is protectedAt's quick test for a literal path; it
// allocates nothing, as it runs on most words of every command.
func (s *controlScope) mayBeProtected(p string) bool {
	for _, a := range anchors {
		if containsFold(p, a) {
			return true
		}
	}
	if s.self == nil {
		return false
	}
	under := func(f string) bool {
		return f != "" && strings.HasPrefix(p, f) && (len(p) == len(f) || p[len(f)] == '/')
	}
	for _, sock := range s.self.Sockets {
		if under(sock) {
			return true
		}
	}
	for _, f := range s.self.Files {
		if under(f) {
			return true
		}
	}
	return under(s.self.DB)
}

// cannotReach reports, without resolving t (which allocates), that the
// word cannot name a protected location: no glob, no ~ or .., no anchor
// in it or the working directory, and a relative path whose directory no
// file of limend's lies under. Anchors hold no "/", so joining t to the
// working directory cannot make one.
func (s *controlScope) cannotReach(t string) bool {
	if hasGlob(t) || strings.HasPrefix(t, "~") || strings.Contains(t, "..") || s.mayBeProtected(t) {
		return false
	}
	if strings.HasPrefix(t, "/") {
		return true // mayBeProtected saw the whole path
	}
	for _, a := range anchors {
		if containsFold(s.cwd, a) {
			return false
		}
	}
	if s.self == nil {
		return true
	}
	near := func(f string) bool {
		below := len(f) > len(s.cwd) && strings.HasPrefix(f, s.cwd) && f[len(s.cwd)] == '/'
		return f != "" && (below || strings.HasPrefix(s.cwd, f))
	}
	for _, f := range s.self.Sockets {
		if near(f) {
			return false
		}
	}
	for _, f := range s.self.Files {
		if near(f) {
			return false
		}
	}
	return !near(s.self.DB)
}

// containsFold reports whether s contains the lowercase ASCII text sub,
// ignoring the case of s.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// segmentsMatch compares a protected glob's segments es with a path's xs:
// gap 0 when the path is the location (or inside it, for a tree), gap n
// when the path is n directories above it.
func segmentsMatch(es, xs []string, tree bool) (int, bool) {
	n := min(len(es), len(xs))
	for i := 0; i < n; i++ {
		if xs[i] == "**" {
			// globstar: zero or more directories, then the rest of the
			// word (prettier --write "**/*.js" names no settings file).
			for j := i; j <= len(es); j++ {
				if gap, ok := segmentsMatch(es[j:], xs[i+1:], tree); ok && (gap == 0 || j < len(es)) {
					return gap, true
				}
			}
			return 0, tree && i+1 == len(xs)
		}
		if !segMatch(es[i], xs[i]) {
			return 0, false
		}
	}
	switch {
	case len(xs) < len(es):
		return len(es) - len(xs), true
	case len(xs) == len(es) || tree:
		return 0, true
	}
	return 0, false
}

// segMatch reports whether a protected segment and a path segment could
// name the same file. Either may be a glob; two globs are taken to overlap
// (failing closed), except that, as in the shell, a glob that does not
// start with a dot never matches a name that does.
func segMatch(pat, seg string) bool {
	// macOS and Windows file systems ignore case: ~/.CLAUDE is ~/.claude.
	pat, seg = strings.ToLower(pat), strings.ToLower(seg)
	if pat == seg {
		return true
	}
	pg, sg := hasGlob(pat), hasGlob(seg)
	switch {
	case pg && sg:
		return strings.HasPrefix(pat, ".") == strings.HasPrefix(seg, ".") || strings.HasPrefix(pat, "[") || strings.HasPrefix(seg, "[")
	case sg:
		if strings.HasPrefix(pat, ".") && !strings.HasPrefix(seg, ".") && !strings.HasPrefix(seg, "[") {
			return false
		}
		ok, _ := path.Match(seg, pat) // the shell takes a bad pattern literally
		return ok
	case pg:
		ok, _ := path.Match(pat, seg)
		return ok
	}
	return false
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" || p == "." {
		return nil
	}
	return strings.Split(p, "/")
}

// resolve makes a shell word a cleaned path: ~ is the home directory (any
// home, as a glob, when the action's is unknown), a relative path is joined
// to the working directory.
func (s *controlScope) resolve(t string) string {
	if t == "~" || strings.HasPrefix(t, "~/") {
		home := s.home
		if home == "" {
			home = "/home/*"
		}
		t = home + t[1:]
	} else if rest, ok := strings.CutPrefix(t, "~"); ok && rest != "" {
		user, tail, _ := strings.Cut(rest, "/")
		t = "/home/" + user + "/" + tail
	}
	if !strings.HasPrefix(t, "/") && s.cwd != "" {
		t = s.cwd + "/" + t
	}
	return path.Clean(procThrough(t, s.cwd))
}

// resolveAll is resolve and, for a path through another process's
// working directory (/proc/1/cwd/…), also the path it names when that
// process runs in / (as pid 1 and most daemons do): limen cannot know
// which, so both are checked.
func (s *controlScope) resolveAll(t string) []string {
	p := s.resolve(t)
	if !strings.HasPrefix(p, "/proc/") && !strings.Contains(t, "/proc/") {
		return []string{p}
	}
	q := s.resolve(strings.Replace(t, "/cwd/", "/cwd/"+otherCwdMarker, 1))
	q = path.Clean(strings.Replace(q, otherCwdMarker, "", 1))
	if q == p {
		return []string{p}
	}
	return []string{p, q}
}

// otherCwdMarker asks procThrough to take another process's working
// directory for / (see resolveAll).
const otherCwdMarker = "\x00root-cwd\x00/"

// procThrough sees through /proc/<pid>/root, a process's root directory
// (/proc/self/root/home/ana/.claude is /home/ana/.claude), and
// /proc/<pid>/cwd, its working directory (taken to be cwd: for another
// process it could be anywhere, and cwd is the likeliest; resolveAll
// checks / too). It runs before the path is cleaned: /proc/self/cwd/.. is
// the parent of the working directory, not /proc/self.
func procThrough(p, cwd string) string {
	for i := 0; i < 4; i++ {
		rest, ok := strings.CutPrefix(p, "/proc/")
		if !ok {
			return p
		}
		_, sub, ok := strings.Cut(rest, "/")
		if !ok {
			return p
		}
		dir, below, _ := strings.Cut(sub, "/")
		switch {
		case dir == "root":
			p = "/" + below
		case dir == "cwd" && strings.HasPrefix(below, otherCwdMarker):
			p = "/" + strings.TrimPrefix(below, otherCwdMarker)
		case dir == "cwd" && cwd != "":
			p = cwd + "/" + below
		default:
			return p
		}
	}
	return p
}

// expandHome replaces the home variables a non-literal word may use, and
// reports whether the word is literal afterwards.
func (s *controlScope) expandHome(t string) (string, bool) {
	home := s.home
	if home == "" {
		home = "/home/*"
	}
	// The XDG variables at their defaults; where a person moved them,
	// limend's own paths (Self) still name the real files.
	for _, v := range [...][2]string{
		{"HOME", home}, {"XDG_DATA_HOME", home + "/.local/share"}, {"XDG_STATE_HOME", home + "/.local/state"},
		{"XDG_CONFIG_HOME", home + "/.config"}, {"XDG_RUNTIME_DIR", "/run/user/*"},
	} {
		t = strings.ReplaceAll(t, "${"+v[0]+"}", v[1])
		t = strings.ReplaceAll(t, "$"+v[0], v[1])
	}
	t = strings.ReplaceAll(t, `"`, "")
	return t, !strings.ContainsAny(t, "$`")
}

// nonLiteralMarks are the texts that make a word limen cannot expand name
// one of its locations: `rm "$X/.claude/settings.json"`.
var nonLiteralMarks = []string{".claude/settings", ".claude/hooks", ".codex", ".gemini/settings", "limen"}

// pathReaders only read the files they name (or only name them), so naming
// a protected file is no control: `cat ~/.claude/settings.json` is fine.
// Redirections are checked for every program.
var pathReaders = set(
	"cat", "head", "tail", "less", "more", "bat", "grep", "egrep", "fgrep", "rg", "ag", "ack", "wc", "stat",
	"ls", "ll", "file", "diff", "cmp", "md5sum", "sha1sum", "sha256sum", "sha512sum", "shasum", "b2sum",
	"cksum", "xxd", "od", "hexdump", "strings", "jq", "readlink", "realpath", "basename", "dirname", "test",
	"[", "du", "tree", "lsof", "pgrep", "echo", "printf", "nl", "cut", "column", "which", "type", "cd", "pushd",
	"ldd", "nm", "objdump", "readelf", "otool", "size",
)

// treeWriters remove, move or change the mode of what they name, so naming
// a directory above a protected location changes that location too (`rm
// -rf ~/.local/share`, `chmod 000 ~/.claude`).
var treeWriters = set("rm", "rmdir", "unlink", "mv", "chmod", "chown", "chgrp", "chattr", "setfacl", "shred",
	"srm", "trash", "trash-put", "gio", "find", "mount")

// destOnly copy their other operands, which they only read: only the
// destination (the last operand, or -t DIR) is written.
var destOnly = set("cp", "install", "rsync")

// copyLinks reports whether cp makes links instead of copies (-s,
// --symbolic-link, -l, --link): like ln, its sources are then reachable
// under another name (cp -s limen's socket /tmp/l.sock), so every operand
// counts, not only the destination.
func copyLinks(prog string, args []word) bool {
	if prog != "cp" {
		return false
	}
	for _, a := range args {
		t := a.text
		switch {
		case !a.lit || t == "--":
			return false
		case t == "--symbolic-link" || t == "--link" || strings.HasPrefix("--symbolic-link", t) && len(t) > 3 && t != "--s" || strings.HasPrefix(t, "--li") && strings.HasPrefix("--link", t):
			return true
		case len(t) > 1 && t[0] == '-' && t[1] != '-':
			for _, c := range t[1:] {
				if c == 'S' || c == 't' {
					break // a value follows
				}
				if c == 's' || c == 'l' {
					return true
				}
			}
		}
	}
	return false
}

// limenBinaries are limen's programs, each with the check of its argv.
// The table is filled in init, as its checks refer back to argvControl.
var limenBinaries map[string]func(s *controlScope, args []word, appended bool) string

func init() {
	limenBinaries = map[string]func(*controlScope, []word, bool) string{
		"limenctl":   limenctlControl,
		"limend":     limendControl,
		"limen-hook": limenHookControl,
	}
}

// programControls are the other programs that can be limen's controls,
// each with the check of its argv.
var programControls = map[string]func(s *controlScope, args []word) string{
	"kill":      killControl,
	"pkill":     pkillControl,
	"killall":   killallControl,
	"skill":     skillControl,
	"snice":     skillControl,
	"killall5":  func(*controlScope, []word) string { return "killall5 signals every process, limend included" },
	"systemctl": systemctlControl,
	"service":   serviceControl,
	"launchctl": launchctlControl,
	"loginctl":  loginctlControl,
	"claude":    claudeControl,
	"grpcurl":   grpcClientControl,
	"grpc_cli":  grpcClientControl,
	"grpcui":    grpcClientControl,
	"evans":     grpcClientControl,
	"ghz":       grpcClientControl,
	"buf":       grpcClientControl,
	"curl":      curlControl,
	"nc":        socketClientControl,
	"ncat":      socketClientControl,
	"netcat":    socketClientControl,
	"socat":     socketClientControl,
	"websocat":  socketClientControl,
}

// codeRunners run code given in their arguments or on stdin, each with
// the options whose value is that code ("" for the first operand, as awk
// takes its program); a control is recognised by what the code names
// (limen's socket, its API, its files), since what it does cannot be
// read. A script file is a path like any other: python3 x.py names no
// code.
var codeRunners = map[string][]string{
	"python": {"-c"}, "python2": {"-c"}, "python3": {"-c"}, "node": {"-e", "--eval", "-p", "--print"},
	"nodejs": {"-e", "--eval", "-p", "--print"}, "ruby": {"-e"}, "perl": {"-e", "-E"}, "php": {"-r"},
	"lua": {"-e"}, "deno": {"eval"}, "bun": {"-e", "--eval", "-p", "--print"}, "osascript": {"-e"},
	"rscript": {"-e"}, "pwsh": {"-c", "-Command"}, "powershell": {"-c", "-Command"}, "expect": {"-c"},
	"awk": {""}, "gawk": {""}, "mawk": {""},
	"sh": {"-c"}, "bash": {"-c"}, "zsh": {"-c"}, "dash": {"-c"}, "ksh": {"-c"}, "fish": {"-c"},
	// They run later what their standard input says (a here-document).
	"at": {"-c"}, "batch": {"-c"}, "crontab": {"-c"},
}

// codeWords returns the words of args that are code for the code runner
// prog.
func codeWords(prog string, args []word) []word {
	flags, ok := codeRunners[interpreterBase(prog)]
	if !ok {
		return nil
	}
	var out []word
	for i, a := range args {
		if i > 0 && (containsString(flags, args[i-1].text) || isCommandStringFlag(args[i-1].text)) {
			out = append(out, a)
		}
	}
	if containsString(flags, "") && !hasWord(args, "-f") && !hasWord(args, "--file") {
		for i := 0; i < len(args); i++ {
			t := args[i].text
			if t == "-v" || t == "-F" {
				i++ // -v x=1, -F :
				continue
			}
			if !strings.HasPrefix(t, "-") {
				out = append(out, args[i]) // awk's program
				break
			}
		}
	}
	return out
}

// codeMarks are what code that talks to limen or changes its files names.
var codeMarks = []string{"limen.v1", "limend", "limenctl", "limen-hook", ".claude/settings", ".claude/hooks", ".codex/", ".gemini/settings",
	"share/limen", "state/limen", "config/limen", "/limen/"}

// commandControl says why one simple command is one of limen's controls,
// or returns "". words are the command's words after static expansion,
// with words[start] its program once wrappers are removed; redirs are the
// key texts of its redirections (and of enclosing ones).
func commandControl(self *Self, cwd, home string, words []word, start int, redirs []string) string {
	s := &controlScope{self: self, cwd: cwd, home: home}
	if start >= len(words) {
		return ""
	}
	cmd := words[start:]
	prog := strings.ToLower(binaryName(cmd[0]))
	for _, r := range redirs {
		if why := s.redirControl(prog, r); why != "" {
			return why
		}
	}
	// GIT_INDEX_FILE=~/.claude/settings.json git add -A writes git's
	// index over the file: a path in an assignment is written too.
	for _, w := range words[:start] {
		if name, value, ok := strings.Cut(w.text, "="); ok && isAssignment(w.text) && pathEnv(name, value) {
			if why := s.pathHits(name, []word{{text: value, lit: w.lit}}, false); why != "" {
				return why
			}
		}
	}
	// xargs and parallel add words of their input to the command, so a
	// limenctl with no subcommand under them can become any subcommand.
	appended := false
	for _, w := range words[:start] {
		if n := binaryName(w); n == "xargs" || n == "parallel" {
			appended = true
		}
	}
	cmd, crossed := unwrapByName(cmd)
	return s.argvControl(cmd, appended || crossed, 0)
}

// pathWrappers are the wrappers unwrapByName sees through, by base name.
// The key ladder has its own table, keyed by exact program words; this one
// is the controls' own, so that a wrapper given by a path (/opt/x/bin/env)
// or one the ladder keys as a program (watch, setsid) still shows what
// it runs.
var pathWrappers = map[string]wrapSpec{
	"sudo":    {valueShort: "uUgCDhprtT", valueLong: set("--user", "--group", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user", "--close-from", "--command-timeout"), assigns: true},
	"doas":    {valueShort: "uC"},
	"env":     {valueShort: "uCS", valueLong: set("--unset", "--chdir", "--split-string"), assigns: true},
	"timeout": {valueShort: "sk", valueLong: set("--signal", "--kill-after"), positional: 1},
	"nice":    {valueShort: "n", valueLong: set("--adjustment")},
	"ionice":  {valueShort: "cnp", valueLong: set("--class", "--classdata")},
	"nohup":   {}, "setsid": {}, "command": {}, "exec": {valueShort: "a"}, "chronic": {}, "unbuffer": {},
	"time":    {valueShort: "fo", valueLong: set("--format", "--output")},
	"stdbuf":  {valueShort: "ioe", valueLong: set("--input", "--output", "--error")},
	"xargs":   {valueShort: "aEdILnPs", valueLong: set("--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var")},
	"watch":   {valueShort: "nqd", valueLong: set("--interval", "--differences")},
	"flock":   {valueShort: "wEc", valueLong: set("--timeout", "--conflict-exit-code", "--command"), positional: 1},
	"taskset": {positional: 1},
}

// wrapSpec describes a wrapper's options well enough to skip them.
type wrapSpec struct {
	valueShort string          // short options that take a value (-u root, -uroot)
	valueLong  map[string]bool // long options that take a value unless given with =
	positional int             // operands before the wrapped command (timeout's duration)
	assigns    bool            // NAME=value words before the wrapped command (env, sudo)
}

// skip returns the index of the first word at or after i that is not an
// option of the wrapper (or the option terminator "--").
func (spec wrapSpec) skip(words []word, i int) int {
	for i < len(words) {
		t := words[i].text
		if !words[i].lit || len(t) < 2 || t[0] != '-' {
			return i
		}
		if t == "--" {
			return i + 1
		}
		if strings.HasPrefix(t, "--") {
			if !strings.Contains(t, "=") && spec.valueLong[t] {
				i++
			}
			i++
			continue
		}
		for k := 1; k < len(t); k++ {
			if strings.IndexByte(spec.valueShort, t[k]) >= 0 {
				if k == len(t)-1 {
					i++ // the value is the next word
				}
				break
			}
		}
		i++
	}
	return i
}

// unwrapByName removes the wrappers the key ladder keeps because they are
// given by a path (/opt/x/bin/env limenctl …) or run their command
// repeatedly (watch -n1 limenctl …), and reports whether one of them
// appends words of its input (xargs).
func unwrapByName(cmd []word) ([]word, bool) {
	appended := false
	for range 8 {
		if len(cmd) < 2 || !cmd[0].lit {
			return cmd, appended
		}
		name := binaryName(cmd[0])
		spec, ok := pathWrappers[name]
		if !ok {
			return cmd, appended
		}
		j := spec.skip(cmd, 1)
		if spec.assigns {
			for j < len(cmd) && cmd[j].lit && isAssignment(cmd[j].text) {
				j++
			}
		}
		j += spec.positional
		if j >= len(cmd) {
			return cmd, appended
		}
		if name == "xargs" {
			appended = true
		}
		cmd = cmd[j:]
	}
	return cmd, appended
}

// OpaqueControl says why an opaque part is one of limen's controls, from
// its texts (its subject, and its exact key, which holds what the subject
// may leave out: the here-document the code comes from), or returns "".
// What an opaque part runs cannot be read ($L answer, python -c '…', a
// command that does not parse), so its text is all there is: it is a
// control when it names limen's API, sockets or files, or gives
// limenctl's control words to a program limen cannot name. self may be
// nil (the engine checks parts made without it).
func OpaqueControl(self *Self, texts ...string) string {
	for _, t := range texts {
		if why := opaqueControl(self, t); why != "" {
			return why
		}
	}
	return ""
}

func opaqueControl(self *Self, text string) string {
	// limenctl's own words first: they say best what the part would do.
	fields := strings.Fields(text)
	ws := make([]word, len(fields))
	for i, f := range fields {
		ws[i] = word{text: strings.Trim(f, `"'`), lit: true}
	}
	for i := range ws {
		name := binaryName(ws[i])
		if i == 0 || strings.EqualFold(name, "limenctl") || strings.ContainsAny(ws[i].text, "$`)") {
			if why := limenctlControlWords(ws[i+1:]); why != "" {
				return "it runs what limen cannot read, with limenctl's words: " + why
			}
		}
	}
	if m := mentions(text, codeMarks, self); m != "" {
		return "it runs what limen cannot read, naming " + m
	}
	return ""
}

// binaryName is the base name of a program word ("/home/me/go/bin/limenctl"
// is limenctl); a word limen cannot expand stays as written.
func binaryName(w word) string {
	if !w.lit {
		return w.text
	}
	return strings.TrimSuffix(path.Base(w.text), ".exe")
}

// argvControl classes an argv whose program is cmd[0].
func (s *controlScope) argvControl(cmd []word, appended bool, depth int) string {
	if len(cmd) == 0 || depth > 3 {
		return ""
	}
	if !cmd[0].lit || cmd[0].text == "{}" {
		if strings.Contains(strings.ToLower(cmd[0].text), "limen") {
			return "it runs a program, named by a substitution, that mentions limen"
		}
		// A program limen cannot name ($L, or what find -exec {} found)
		// given limenctl's words for answering or changing policy is
		// taken to be limenctl.
		if why := limenctlControlWords(cmd[1:]); why != "" {
			return "it runs a program limen cannot name (" + cmd[0].text + ") with limenctl's words: " + why
		}
		return "" // opaque: never allowed by learning, decided elsewhere
	}
	prog := strings.ToLower(binaryName(cmd[0])) // macOS file systems ignore case
	args := cmd[1:]
	if strings.Contains(prog, "{") && strings.Contains(prog, ",") && strings.Contains(strings.ToLower(prog), "limen") {
		return "a brace expansion builds a command of limen's (" + prog + ")"
	}
	if check, ok := limenBinaries[prog]; ok {
		if why := check(s, args, appended); why != "" {
			return why
		}
	} else if strings.HasPrefix(prog, "limen") {
		return prog + " is a program of limen's that limen does not know to be harmless"
	} else if prog == "go" {
		if why := s.goRun(args, appended, depth); why != "" {
			return why
		}
	} else if check, ok := programControls[prog]; ok {
		if why := check(s, args); why != "" {
			return why
		}
	}
	if _, ok := codeRunners[interpreterBase(prog)]; ok {
		for _, a := range codeWords(prog, args) {
			if m := mentions(a.text, codeMarks, s.self); m != "" {
				return fmt.Sprintf("%s runs code that names %s", prog, m)
			}
		}
	}
	if _, limen := limenBinaries[prog]; !limen && prog != "go" && !pathReaders[prog] {
		// Wrappers limen does not know (setsid, strace -f, taskset 1, …)
		// still end in limenctl's words.
		for i, a := range args {
			if a.lit && strings.EqualFold(binaryName(a), "limenctl") {
				if why := limenctlControlWords(args[i+1:]); why != "" {
					return prog + " runs limenctl: " + why
				}
			}
			// A command given as one string (busybox sh -c '…', su -c,
			// env -S, tmux new-session 'limenctl tui'): its words, split
			// as the shell would split them.
			if i > 0 && isCommandStringFlag(args[i-1].text) || startsWithLimenctl(a.text) {
				fields := strings.Fields(a.text)
				ws := make([]word, len(fields))
				for k, f := range fields {
					ws[k] = word{text: strings.Trim(f, `"'`), lit: true}
				}
				for k := range ws {
					if strings.EqualFold(binaryName(ws[k]), "limenctl") {
						if why := limenctlControlWords(ws[k+1:]); why != "" {
							return prog + " runs limenctl: " + why
						}
					}
				}
			}
		}
	}
	return s.pathControl(prog, args)
}

// mentions returns the first of marks (or of limen's own paths) that text
// contains, or "".
func mentions(text string, marks []string, self *Self) string {
	if self != nil {
		for _, p := range self.Sockets {
			if p != "" && strings.Contains(text, p) {
				return p
			}
		}
		if self.DB != "" && strings.Contains(text, self.DB) {
			return self.DB
		}
	}
	lower := strings.ToLower(text)
	for _, m := range marks {
		if strings.Contains(lower, m) {
			return m
		}
	}
	return ""
}

// redirControl checks a redirection that writes a file.
func (s *controlScope) redirControl(prog, r string) string {
	// The key text is the operator (with its fd), then " target", or for
	// a here-document the delimiter and the body right after it.
	n := 0
	for n < len(r) && strings.IndexByte("0123456789<>&|-", r[n]) >= 0 {
		n++
	}
	op, target := r[:n], strings.TrimPrefix(r[n:], " ")
	if strings.Contains(op, "<<") && !strings.Contains(op, "<<<") {
		// a here-document: its body is code for a code runner
		if _, ok := codeRunners[interpreterBase(prog)]; ok {
			if m := mentions(r, codeMarks, s.self); m != "" {
				return fmt.Sprintf("%s runs code that names %s", prog, m)
			}
		}
		return ""
	}
	if _, ok := codeRunners[interpreterBase(prog)]; ok && op == "<<<" {
		if m := mentions(target, codeMarks, s.self); m != "" {
			return fmt.Sprintf("%s runs code that names %s", prog, m)
		}
	}
	if !strings.Contains(op, ">") {
		return ""
	}
	if hit, ok := s.wordHit(word{text: target, lit: !strings.ContainsAny(target, "$`")}, false); ok && hit.gap == 0 {
		return fmt.Sprintf("a redirection would write %s (%s)", hit.what, hit.path)
	}
	return ""
}

// wordHit resolves one word of a command and checks it; a word limen
// cannot expand counts when it names one of limen's locations.
func (s *controlScope) wordHit(w word, above bool) (pathHit, bool) {
	t := w.text
	if !w.lit {
		var lit bool
		if t, lit = s.expandHome(t); !lit {
			if m := mentions(t, nonLiteralMarks, s.self); m != "" {
				return pathHit{what: "a location of limen's that the shell builds (" + m + ")", path: w.text}, true
			}
			return pathHit{}, false
		}
	}
	if t == "" {
		return pathHit{}, false
	}
	if !above && s.cannotReach(t) {
		return pathHit{}, false
	}
	for _, p := range s.resolveAll(t) {
		if hit, ok := s.protectedAt(p, above); ok {
			return hit, true
		}
	}
	return pathHit{}, false
}

// pathControl checks the paths a command names.
func (s *controlScope) pathControl(prog string, args []word) string {
	if why := renamesLimen(prog, args); why != "" {
		return why
	}
	if why := s.outputControl(prog, args); why != "" {
		return why
	}
	if pathReaders[prog] || prog == "git" && pathReaderSubs[prog+" "+subcommand(prog, args)] {
		if prog != "cd" && prog != "pushd" {
			return ""
		}
		// A cd into a protected directory, or the one holding a protected
		// file, makes the relative paths after it name protected files.
		s.cdMode = true
		defer func() { s.cdMode = false }()
		for _, a := range args {
			if hit, ok := s.wordHit(a, true); ok && (hit.gap == 0 || hit.gap == 1 && !hit.tree) {
				return fmt.Sprintf("%s enters the directory of %s (%s)", prog, hit.what, hit.path)
			}
		}
		return ""
	}
	tree := treeWriters[prog]
	if prog == "find" {
		acts, targeted := findWrites(args)
		if !acts {
			return "" // a find that only lists or reads; its patterns are no paths
		}
		tree = true
		args = findStarts(args)
		if targeted {
			// find . -name settings.json -delete aims at the project's
			// settings too.
			s.projectAbove = true
			defer func() { s.projectAbove = false }()
		}
	}
	operands, derived := args, []word(nil)
	if destOnly[prog] && !(prog == "rsync" && hasWord(args, "--remove-source-files")) && !copyLinks(prog, args) {
		operands, derived = copyTargets(args)
	}
	if prog == "mv" {
		// mv removes its sources (any directory above a protected
		// location moves it away) and writes its destination, or a name
		// inside it: mv x /usr/local/bin changes no limen program.
		dests, inside := copyTargets(args)
		if why := s.pathHits(prog, dests, false); why != "" {
			return why
		}
		if why := s.pathHits(prog, inside, false); why != "" {
			return why
		}
		operands = sourcesOf(args)
	}
	if volumeMounters[prog] {
		if why := s.volumeControl(prog, args); why != "" {
			return why
		}
	}
	if why := s.pathHits(prog, operands, tree); why != "" {
		return why
	}
	// A recursive copy into a directory above a protected location can
	// overwrite it (cp -r evil/. ~).
	return s.pathHits(prog, derived, tree || recursiveCopy(args))
}

// pathHits checks words as paths a command changes; with tree, a
// directory above a protected location counts too.
func (s *controlScope) pathHits(prog string, words []word, tree bool) string {
	for _, a := range words {
		texts, n := operandTexts(a)
		for _, t := range texts[:n] {
			hit, ok := s.wordHit(t, tree)
			if !ok || hit.gap > 0 && !tree {
				continue
			}
			if hit.gap > 0 {
				return fmt.Sprintf("%s would change a directory that holds %s (%s)", prog, hit.what, hit.path)
			}
			return fmt.Sprintf("%s would touch %s (%s)", prog, hit.what, hit.path)
		}
	}
	return ""
}

// sourcesOf returns the operands of mv but its destination.
func sourcesOf(args []word) []word {
	var ops []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.text == "-t" || a.text == "--target-directory":
			i++
		case strings.HasPrefix(a.text, "-") && a.lit:
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) > 0 && !hasWord(args, "-t") && !hasWord(args, "--target-directory") {
		ops = ops[:len(ops)-1]
	}
	return ops
}

// renamesLimen says why a command makes a copy of one of limen's programs
// under another name (cp limenctl /tmp/lc; go build -o /tmp/lc
// ./cmd/limenctl), which would hide it from the argv checks here.
func renamesLimen(prog string, args []word) string {
	switch prog {
	case "cp", "ln", "mv", "install", "rsync", "go":
	default:
		return ""
	}
	var ops []word
	out := ""
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case prog == "go" && (t == "-o" || t == "--o") && i+1 < len(args):
			out = args[i+1].text
			i++
		case prog == "go" && strings.HasPrefix(t, "-o="):
			out = strings.TrimPrefix(t, "-o=")
		case strings.HasPrefix(t, "-") && args[i].lit:
		default:
			ops = append(ops, args[i])
		}
	}
	if prog == "go" {
		if len(ops) == 0 || ops[0].text != "build" || out == "" || strings.HasSuffix(out, "/") {
			return ""
		}
		for _, p := range ops[1:] {
			name := path.Base(strings.TrimSuffix(strings.SplitN(p.text, "@", 2)[0], "/"))
			if _, ok := limenBinaries[name]; ok && path.Base(out) != name {
				return "go build names limen's " + name + " " + path.Base(out) + ", hiding it from limen"
			}
		}
		return ""
	}
	switch prog {
	case "cp", "ln", "mv", "install", "rsync":
	default:
		return ""
	}
	if len(ops) < 2 {
		return ""
	}
	dest := ops[len(ops)-1]
	if strings.HasSuffix(dest.text, "/") {
		return ""
	}
	for _, src := range ops[:len(ops)-1] {
		name := strings.ToLower(path.Base(src.text))
		if !src.lit && strings.Contains(name, "limen") {
			return prog + " copies a program of limen's named by a substitution (" + src.text + ")"
		}
		if _, ok := limenBinaries[name]; ok && path.Base(dest.text) != name && !isBinDir(dest.text) {
			return prog + " gives limen's " + name + " another name (" + dest.text + "), hiding it from limen"
		}
	}
	return ""
}

// isBinDir reports whether a copy's destination is a directory of
// programs, so that the copy keeps its name.
func isBinDir(p string) bool {
	switch path.Base(p) {
	case "bin", "sbin", ".", "..", "~":
		return true
	}
	return false
}

// volumeMounters give a container the host paths named in -v HOST:DIR
// and --mount src=HOST, to change from inside, where limen sees nothing.
var volumeMounters = set("docker", "podman", "nerdctl")

// volumeControl checks the host side of a container's volumes: a protected
// location, or the directory right above one (-v ~/.claude:/x, -v ~:/h),
// other than the project's own (-v .:/app is everyday work).
func (s *controlScope) volumeControl(prog string, args []word) string {
	for _, a := range args {
		if !strings.ContainsAny(a.text, ":,") {
			continue
		}
		texts, n := operandTexts(a)
		for _, t := range texts[1:n] {
			if !t.lit {
				continue
			}
			p := s.resolve(t.text)
			xs := splitPath(p)
			for _, list := range [2][]entry{staticEntries, s.dynamicEntries()} {
				for _, e := range list {
					if e.project || e.abs != strings.HasPrefix(p, "/") {
						continue
					}
					if gap, ok := segmentsMatch(e.segs, xs, e.tree); ok && gap <= 1 {
						return fmt.Sprintf("%s would let a container change %s (%s)", prog, e.what, e.glob)
					}
				}
			}
		}
	}
	return ""
}

// pathReaderSubs are subcommands that only read the files they name.
var pathReaderSubs = set("git diff", "git log", "git show", "git status", "git blame", "git ls-files", "git grep")

// protectedNames are the file names of protected locations, for telling
// whether a find expression can select one.
var protectedNames = []string{".claude", ".codex", ".gemini", "limen", "hooks", "settings.json", "settings.local.json",
	"config.toml", "limen.db", "limend.sock", "limend-http.sock", "managed-settings.json"}

// findStarts returns a find's starting points: the operands before its
// expression (the patterns of -name and -regex are no paths).
func findStarts(args []word) []word {
	for i, a := range args {
		if t := a.text; a.lit && (strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == "\\(") {
			return args[:i]
		}
	}
	return args
}

// findWrites reports whether a find may delete, run a writing command on,
// or write a list over what it finds (acts), and whether what it selects
// can be a protected file (targeted). A find that acts without a -name
// that rules protected files out counts as acting on them (find . -name
// '*.o' -delete cannot reach one).
func findWrites(args []word) (acts, targeted bool) {
	other := false
	var names []string
	for i := 0; i < len(args); i++ {
		switch t := args[i].text; t {
		case "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			acts = true
		case "-exec", "-execdir", "-ok", "-okdir":
			// -exec ls {} reads; the command's own part is checked too.
			if i+1 >= len(args) || !args[i+1].lit || !pathReaders[binaryName(args[i+1])] || args[i+1].text == "cd" {
				acts = true
			}
		case "-name", "-iname":
			if i+1 < len(args) {
				names = append(names, args[i+1].text)
				if !args[i+1].lit {
					other = true
				}
				i++
			}
		case "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex":
			other = true
			if i+1 < len(args) && (mentions(args[i+1].text, anchors, nil) != "" || !args[i+1].lit) {
				targeted = true
			}
		case "!", "-not", "-lname", "-ilname", "-inum", "-samefile", "-links":
			other = true
		}
	}
	for _, n := range names {
		for _, p := range protectedNames {
			if ok, _ := path.Match(strings.ToLower(n), p); ok {
				targeted = true
			}
		}
	}
	if !acts {
		return false, false
	}
	return other || len(names) == 0 || targeted, targeted
}

func containsString(list []string, t string) bool {
	for _, x := range list {
		if x == t {
			return true
		}
	}
	return false
}

func hasWord(args []word, t string) bool {
	for _, a := range args {
		if a.text == t {
			return true
		}
	}
	return false
}

// recursiveCopy reports whether cp, install or rsync copies directories.
func recursiveCopy(args []word) bool {
	for _, a := range args {
		t := a.text
		switch {
		case t == "--recursive" || t == "--archive":
			return true
		case len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsAny(t[1:], "rRa"):
			return true
		}
	}
	return false
}

// operandTexts are the texts of a word that may be paths: the word, and
// what follows "=" in of=FILE or --output=FILE.
// A word with ":" or "," also gives each path-like piece of it: the host
// side of docker's -v ~/.claude:/x, the src= of a --mount.
func operandTexts(a word) ([4]word, int) {
	var out [4]word
	if strings.HasPrefix(a.text, "-") && !strings.Contains(a.text, "=") {
		return out, 0
	}
	out[0] = a
	n := 1
	if _, v, ok := strings.Cut(a.text, "="); ok && v != "" {
		out[n] = word{text: v, lit: a.lit}
		n++
	}
	if strings.ContainsAny(a.text, ":,") {
		rest := a.text
		for rest != "" && n < len(out) {
			var piece string
			piece, rest, _ = strings.Cut(rest, ",")
			if _, v, ok := strings.Cut(piece, "="); ok {
				piece = v
			}
			host, _, _ := strings.Cut(piece, ":")
			if host != a.text && (strings.HasPrefix(host, "/") || strings.HasPrefix(host, "~") || strings.HasPrefix(host, ".")) {
				out[n] = word{text: host, lit: a.lit}
				n++
			}
		}
	}
	return out, n
}

// copyTargets returns the words cp or install writes: the destination,
// and (derived) the destination joined with each source's base name, for
// a copy into a directory.
func copyTargets(args []word) (dests, derived []word) {
	var ops []word
	var out []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.text == "-t" || a.text == "--target-directory":
			if i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		case strings.HasPrefix(a.text, "--target-directory="):
			out = append(out, word{text: strings.TrimPrefix(a.text, "--target-directory="), lit: a.lit})
		case strings.HasPrefix(a.text, "-") && a.lit:
		default:
			ops = append(ops, a)
		}
	}
	if len(out) == 0 && len(ops) > 0 {
		out = append(out, ops[len(ops)-1])
		ops = ops[:len(ops)-1]
	}
	for _, d := range out {
		for _, src := range ops {
			if strings.HasSuffix(src.text, "/") || strings.HasSuffix(src.text, "/.") {
				// cp -r evil/. ~ and rsync -a evil/ ~ copy the contents:
				// what they write is below the destination itself.
				derived = append(derived, d)
				continue
			}
			derived = append(derived, word{text: strings.TrimSuffix(d.text, "/") + "/" + path.Base(src.text), lit: d.lit && src.lit})
		}
	}
	return out, derived
}

// fileTools that change the file they name.
var fileWriters = set("Edit", "Write", "MultiEdit", "NotebookEdit", "write_file", "replace")

// fileControl says why a file tool's use of the cleaned absolute path p is
// one of limen's controls, or returns "". Reads are no control.
func fileControl(a Action, tool, p string) string {
	if !fileWriters[tool] {
		return ""
	}
	s := &controlScope{self: a.Self, cwd: cleanAbs(a.Cwd), home: HomeDir(a)}
	if hit, ok := s.protectedAt(globQuote(p), false); ok && hit.gap == 0 {
		return fmt.Sprintf("%s would change %s (%s)", tool, hit.what, hit.path)
	}
	return ""
}

// operandCandidates returns the indexes of args that could be the first operand
// after options, read as a flag parser would: a word after an option that
// takes a value is that value; a word after an option limen does not know
// may be its value or the operand, so both are returned and the caller
// classes every candidate (failing closed).
func operandCandidates(args []word, valueFlags, boolFlags map[string]bool) []int {
	var out []int
	state := 0 // 0: operand expected, 1: maybe a value, 2: a value
	for i, a := range args {
		t := a.text
		if a.lit && t == "--" {
			if state != 2 {
				if i+1 < len(args) {
					out = append(out, i+1)
				}
				return out
			}
			state = 0
			continue
		}
		if len(t) > 1 && t[0] == '-' && state != 2 { // --socket="$S" too
			name, _, withValue := strings.Cut(t, "=")
			switch {
			case withValue || boolFlags[name]:
				state = 0
			case valueFlags[name]:
				state = 2
			default:
				state = 1
			}
			continue
		}
		if state == 2 {
			state = 0
			continue
		}
		out = append(out, i)
		if state == 0 {
			return out
		}
		state = 0
	}
	return out
}

// limenctlCommands classes limenctl's commands: "" is harmless (it reads,
// or asks limen for a decision like any agent), any other text says why it
// is a control. A command not in the table is a control: limen fails
// closed on a subcommand it does not know (a newer limenctl's).
var limenctlCommands = map[string]string{
	"":                     "", // no subcommand: limenctl prints its help
	"help":                 "",
	"completion":           "",
	"decide":               "",
	"await":                "", // waits for a person's answer; gives none
	"pending":              "",
	"history":              "",
	"status":               "",
	"eval":                 "", // replays a stream file offline
	"policy":               "", // prints the policy commands' help
	"policy show":          "",
	"policy explain":       "",
	"policy diff":          "",
	"policy history":       "",
	"policy simulate":      "",
	"policy help":          "",
	"answer":               "limenctl answer answers a person's ask",
	"forget":               "limenctl forget takes back a person's answers",
	"tui":                  "limenctl tui answers a person's asks",
	"policy set":           "limenctl policy set changes limen's policy",
	"policy edit":          "limenctl policy edit changes limen's policy",
	"policy rollback":      "limenctl policy rollback changes limen's policy",
	"policy import-claude": "limenctl policy import-claude changes limen's policy",
	"hook":                 "limenctl hook installs or removes limen's hook in a runtime",
	"bench":                "limenctl bench floods limend and, with --seed-answers, answers asks",
	"mcp-gate":             "limenctl mcp-gate runs a program under limen's own name",
}

// limenctlGroups are the commands that take a subcommand of their own.
var limenctlGroups = set("policy", "hook")

// limenctl's global options.
var (
	limenctlValueFlags = set("--socket", "--timeout")
	limenctlBoolFlags  = set("--json", "--help", "-h", "--version")
)

func limenctlControl(s *controlScope, args []word, appended bool) string {
	cands := operandCandidates(args, limenctlValueFlags, limenctlBoolFlags)
	if len(cands) == 0 {
		if appended {
			return "xargs would give limenctl its subcommand from its input"
		}
		return ""
	}
	for _, i := range cands {
		if why := limenctlAt(args, i, appended); why != "" {
			return why
		}
	}
	return ""
}

// limenctlAt classes limenctl with its subcommand at args[i].
func limenctlAt(args []word, i int, appended bool) string {
	first := args[i]
	if !first.lit {
		return "limenctl would run a subcommand limen cannot read (" + first.text + ")"
	}
	name := first.text
	if limenctlGroups[name] {
		subs := operandCandidates(args[i+1:], limenctlValueFlags, limenctlBoolFlags)
		if len(subs) == 0 && appended {
			return "xargs would give limenctl " + name + " its subcommand from its input"
		}
		for _, j := range subs {
			sub := args[i+1+j]
			if !sub.lit {
				return "limenctl " + name + " would run a subcommand limen cannot read (" + sub.text + ")"
			}
			if why := limenctlClass(name + " " + sub.text); why != "" {
				return why
			}
		}
	}
	return limenctlClass(name)
}

func limenctlClass(cmd string) string {
	why, ok := limenctlCommands[cmd]
	if !ok {
		return "limenctl " + cmd + " is not a limenctl command limen knows to be harmless"
	}
	return why
}

// commandStringFlags give a command as one string to the programs that
// take them (sh -c, su -c, script -c, env -S, flock -c).
var commandStringFlags = set("-c", "--command", "-S", "--split-string", "-e", "--eval")

// startsWithLimenctl reports whether a word holds a command line that
// starts with limenctl (tmux new-session -d 'limenctl tui').
func startsWithLimenctl(t string) bool {
	first, rest, ok := strings.Cut(strings.TrimSpace(t), " ")
	return ok && rest != "" && strings.EqualFold(path.Base(first), "limenctl")
}

// isCommandStringFlag reports whether an option gives a command string:
// one of commandStringFlags, or a cluster ending in c (script -qc).
func isCommandStringFlag(t string) bool {
	return commandStringFlags[t] || len(t) > 2 && t[0] == '-' && t[1] != '-' && strings.HasSuffix(t, "c")
}

// limenctlControlWords returns why args would be a control if the program
// were limenctl, counting only subcommands the table names as controls
// (not unknown ones, which any program has).
func limenctlControlWords(args []word) string {
	for _, i := range operandCandidates(args, limenctlValueFlags, limenctlBoolFlags) {
		if !args[i].lit {
			continue
		}
		name := args[i].text
		if limenctlGroups[name] {
			for _, j := range operandCandidates(args[i+1:], limenctlValueFlags, limenctlBoolFlags) {
				if why := limenctlCommands[name+" "+args[i+1+j].text]; why != "" {
					return why
				}
			}
			continue
		}
		if why := limenctlCommands[name]; why != "" {
			return why
		}
	}
	return ""
}

// limendControl: any limend but its help starts another daemon, on
// another socket or database, or with another configuration.
func limendControl(_ *controlScope, args []word, _ bool) string {
	if len(args) == 0 {
		return "it starts limend: only a person starts or stops limen"
	}
	for _, a := range args {
		switch a.text {
		case "-h", "-help", "--help", "-version", "--version":
		default:
			return "it starts limend: only a person starts or stops limen"
		}
	}
	return ""
}

// limenHookControl: limen-hook is the runtime's to run. Besides asking
// about a tool call it posts what the runtime saw of the person's dialog
// (PostToolUse, PostToolBatch, PermissionRequest), from which limend
// learns the person's answer: an agent that runs it could post a Yes the
// person never gave for the ask on screen. Only its help and version are
// not controls. Killing it is a control too (see processNames).
func limenHookControl(_ *controlScope, args []word, _ bool) string {
	for _, a := range args {
		switch a.text {
		case "-h", "-help", "--help", "-version", "--version":
			continue
		}
		return "it runs limen-hook, which reports the runtime's dialog answers to limend: only the runtime runs it"
	}
	if len(args) == 0 {
		return "it runs limen-hook, which reports the runtime's dialog answers to limend: only the runtime runs it"
	}
	return ""
}

// goRunValueFlags are the build flags of go run that take a value.
var goRunValueFlags = set("-C", "-o", "-p", "-tags", "-ldflags", "-gcflags", "-asmflags", "-mod", "-modfile", "-overlay",
	"-pgo", "-exec", "-toolexec", "-coverpkg", "-covermode", "-pkgdir", "-installsuffix", "-compiler", "-gccgoflags",
	"-buildmode", "-json", "--tags", "--ldflags", "--gcflags", "--mod", "--exec", "--toolexec")

var goRunBoolFlags = set("-a", "-n", "-x", "-v", "-work", "-trimpath", "-race", "-msan", "-asan", "-cover", "-linkshared", "-buildvcs")

// goRun sees through `go run PKG ARGS…` to the program it builds and runs:
// go run ./cmd/limenctl answer 1 is limenctl answer 1.
func (s *controlScope) goRun(args []word, appended bool, depth int) string {
	i := 0
	for i < len(args) && args[i].lit && strings.HasPrefix(args[i].text, "-") {
		i++
	}
	if i >= len(args) || args[i].text != "run" {
		return ""
	}
	rest := args[i+1:]
	dir := s.cwd
	for j := 0; j+1 < len(rest); j++ {
		if rest[j].text == "-C" {
			dir = path.Join(s.cwd, rest[j+1].text)
		} else if v, ok := strings.CutPrefix(rest[j].text, "-C="); ok {
			dir = path.Join(s.cwd, v)
		}
	}
	for _, c := range operandCandidates(rest, goRunValueFlags, goRunBoolFlags) {
		pkg := rest[c]
		if !pkg.lit {
			if strings.Contains(strings.ToLower(pkg.text), "limen") {
				return "go run builds and runs a package, named by a substitution, that mentions limen"
			}
			continue
		}
		after := c + 1
		p := pkg.text
		if strings.HasSuffix(p, ".go") {
			p = path.Dir(p)
			for after < len(rest) && strings.HasSuffix(rest[after].text, ".go") {
				after++
			}
		}
		p, _, _ = strings.Cut(p, "@")
		p = strings.TrimSuffix(p, "/")
		if p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
			p = path.Join(dir, p)
		}
		name := path.Base(p)
		if _, ok := limenBinaries[name]; ok || strings.HasPrefix(name, "limen") {
			argv := append([]word{{text: name, lit: true}}, rest[after:]...)
			if why := s.argvControl(argv, appended, depth+1); why != "" {
				return why
			}
		}
	}
	return ""
}

// processNames are limen's processes: stopping any of them stops limen
// deciding (a killed limen-hook lets the runtime fall back to its own
// rules).
var processNames = []string{"limend", "limen-hook", "limenctl"}

// processCmdlines are command lines limen's processes may show, for
// patterns matched against the whole command line (pkill -f).
func (s *controlScope) processCmdlines() []string {
	out := []string{"/usr/local/bin/limend", "/home/me/go/bin/limend --socket /run/user/1000/limen/limend.sock",
		"limen-hook --format claude-code", "limenctl tui", "limenctl mcp-gate --"}
	if s.self != nil {
		for _, sock := range s.self.Sockets {
			out = append(out, "limend --socket "+sock)
		}
		if s.self.DB != "" {
			out = append(out, "limend --db "+s.self.DB)
		}
	}
	return out
}

// namesLimenProcess reports whether a non-literal word (a kill's target
// such as $(pgrep limend)) could stand for one of limen's processes: it
// mentions limen, or looks processes up by a pattern that matches one.
func (s *controlScope) namesLimenProcess(text string) bool {
	if strings.Contains(strings.ToLower(text), "limen") {
		return true
	}
	for _, m := range lookupRe.FindAllStringSubmatch(text, -1) {
		fields := strings.Fields(strings.Trim(m[2], `"'`))
		ws := make([]word, 0, len(fields))
		for _, f := range fields {
			ws = append(ws, word{text: strings.Trim(f, `"'`), lit: true})
		}
		if m[1] == "pidof" {
			for _, w := range ws {
				if s.nameMatches(w.text, false, false) {
					return true
				}
			}
			continue
		}
		if s.pgrepMatches(ws, false) != "" {
			return true
		}
	}
	return false
}

// lookupRe finds process lookups inside a substitution's text.
var lookupRe = regexp.MustCompile(`\b(pgrep|pidof|pkill|grep|egrep)\s+([^)|;&` + "`" + `]*)`)

// nameMatches reports whether a killall-style name matches one of limen's
// processes (process names are cut to 15 characters).
func (s *controlScope) nameMatches(name string, fold, re bool) bool {
	for _, p := range processNames {
		switch {
		case re:
			if regexMatches(name, fold, false, true, p) {
				return true
			}
		case fold && strings.EqualFold(name, p), name == p:
			return true
		case len(name) >= 15 && strings.HasPrefix(p, name[:15]):
			return true
		}
	}
	return false
}

// regexMatches reports whether pattern (an extended regular expression)
// matches any of texts; a pattern Go cannot read counts as a match.
func regexMatches(pattern string, fold, exact, failClosed bool, texts ...string) bool {
	if exact {
		pattern = "^(?:" + pattern + ")$"
	}
	if fold {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return failClosed
	}
	for _, t := range texts {
		if re.MatchString(t) {
			return true
		}
	}
	return false
}

// pgrepValueFlags are pkill's and pgrep's options that take a value.
var pgrepValueFlags = set("-s", "--session", "-t", "--terminal", "-P", "--parent", "-g", "--pgroup", "-G", "--group",
	"-u", "--euid", "-U", "--uid", "-F", "--pidfile", "--signal", "--ns", "--nslist", "-d", "--delimiter", "-q", "--queue")

// pgrepSelectors select processes without a pattern: all of a user's, say.
var pgrepSelectors = set("-s", "--session", "-t", "--terminal", "-P", "--parent", "-g", "--pgroup", "-G", "--group",
	"-u", "--euid", "-U", "--uid", "--ns", "--cgroup")

// pgrepMatches says why a pkill with these arguments could signal one of
// limen's processes, or returns "".
// A pattern Go cannot compile counts as a match when failClosed: pkill
// would read it its own way; a grep in a substitution that does not
// compile (grep '(') looks nothing up.
func (s *controlScope) pgrepMatches(args []word, failClosed bool) string {
	full, exact, fold := false, false, false
	var patterns []word
	selector := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if a.lit && len(t) > 1 && t[0] == '-' {
			name, _, withValue := strings.Cut(t, "=")
			if pgrepSelectors[name] {
				selector = true
			}
			if name == "-F" || name == "--pidfile" {
				v := ""
				if withValue {
					_, v, _ = strings.Cut(t, "=")
				} else if i+1 < len(args) {
					v = args[i+1].text
				}
				if strings.Contains(strings.ToLower(v), "limen") {
					return "it signals the process in limen's pid file"
				}
			}
			if pgrepValueFlags[name] && !withValue {
				i++
				continue
			}
			switch name {
			case "-f", "--full":
				full = true
			case "-x", "--exact":
				exact = true
			case "-i", "--ignore-case":
				fold = true
			}
			if !strings.HasPrefix(t, "--") && len(t) > 2 && !isNumber(t[1:]) {
				// a cluster such as -fx
				full = full || strings.Contains(t, "f")
				exact = exact || strings.Contains(t, "x")
				fold = fold || strings.Contains(t, "i")
			}
			continue
		}
		patterns = append(patterns, a)
	}
	if len(patterns) == 0 {
		if selector {
			return "it signals a whole set of processes, which can include limen's"
		}
		return ""
	}
	for _, p := range patterns {
		if !p.lit {
			return "it signals processes by a pattern limen cannot read (" + p.text + ")"
		}
		texts := append([]string(nil), processNames...)
		if full {
			texts = append(texts, s.processCmdlines()...)
		}
		if regexMatches(p.text, fold, exact, failClosed, texts...) {
			return "its pattern " + p.text + " matches limen's processes"
		}
	}
	return ""
}

func pkillControl(s *controlScope, args []word) string {
	if why := s.pgrepMatches(args, true); why != "" {
		return "pkill would stop limen: " + why
	}
	return ""
}

// killControl: kill signals pids; -1 is every process the caller may
// signal, limend's pid is in Self, and a pid computed by a substitution
// counts when the substitution looks limen up.
func killControl(s *controlScope, args []word) string {
	operands, signal := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !operands && a.lit && strings.HasPrefix(t, "-") {
			switch {
			case t == "--":
				operands = true
			case t == "-s" || t == "-n" || t == "--signal":
				i++
				signal = true
			case t == "-1" && (signal || i == len(args)-1):
				// kill -9 -1: every process; kill -1 PID is SIGHUP to PID.
				return "kill -1 signals every process, limend included"
			case t == "-l" || t == "-L" || t == "--list":
				return ""
			default:
				signal = true
			}
			continue
		}
		if !a.lit {
			if s.namesLimenProcess(t) {
				return "kill would stop limen: its target " + t + " looks limen's processes up"
			}
			continue
		}
		if t == "-1" {
			return "kill -1 signals every process, limend included"
		}
		if s.self != nil && s.self.PID > 0 && t == fmt.Sprint(s.self.PID) {
			return "kill would stop limend (pid " + t + ")"
		}
	}
	return ""
}

var killallValueFlags = set("-u", "--user", "-s", "--signal", "-o", "--older-than", "-y", "--younger-than", "-n", "--ns", "-Z", "--context", "-t")

func killallControl(s *controlScope, args []word) string {
	re, fold := false, false
	selector := false
	names := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if a.lit && len(t) > 1 && t[0] == '-' {
			name, _, withValue := strings.Cut(t, "=")
			switch name {
			case "-r", "--regexp", "-m":
				re = true
			case "-I", "--ignore-case":
				fold = true
			case "-u", "--user":
				selector = true
			}
			if killallValueFlags[name] && !withValue {
				i++
			}
			continue
		}
		names++
		if !a.lit {
			return "killall would stop processes named by a substitution limen cannot read (" + t + ")"
		}
		if s.nameMatches(t, fold, re) {
			return "killall would stop limen: " + t + " matches limen's processes"
		}
	}
	if names == 0 && selector {
		return "killall -u would stop every process of a user, limen's included"
	}
	return ""
}

// skillControl: skill and snice take names, users and ttys in any order.
func skillControl(s *controlScope, args []word) string {
	for _, a := range args {
		if !a.lit {
			return "skill would signal processes named by a substitution limen cannot read (" + a.text + ")"
		}
		if a.text == "-u" || a.text == "-t" {
			return "skill would signal a whole set of processes, limen's included"
		}
		if s.nameMatches(strings.TrimPrefix(a.text, "-c"), false, false) {
			return "skill would stop limen: " + a.text + " matches limen's processes"
		}
	}
	return ""
}

// systemctlHarmless are systemctl verbs that change nothing.
var systemctlHarmless = set("status", "show", "cat", "is-active", "is-enabled", "is-failed", "is-system-running",
	"list-units", "list-unit-files", "list-sockets", "list-timers", "list-dependencies", "list-jobs", "list-automounts",
	"list-paths", "help", "get-default", "show-environment")

// systemctlEverything stop limend and leave the agent running: exit ends
// the user's service manager, isolate every unit its target lacks.
// (poweroff and reboot end the agent too: no way around limen.)
var systemctlEverything = set("exit", "isolate")

var systemctlValueFlags = set("-t", "--type", "-p", "--property", "-s", "--signal", "-H", "--host", "-M", "--machine",
	"--root", "-n", "--lines", "-o", "--output", "--kill-whom", "--kill-value", "--state", "--job-mode", "--what",
	"--timestamp", "--boot-loader-entry", "--reboot-argument", "--message", "--image", "--drop-in", "-P")

func systemctlControl(s *controlScope, args []word) string {
	verb := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if a.lit && len(t) > 1 && t[0] == '-' {
			if name, _, withValue := strings.Cut(t, "="); systemctlValueFlags[name] && !withValue {
				i++
			}
			continue
		}
		if verb == "" {
			if !a.lit {
				return "systemctl would run a verb limen cannot read (" + t + ")"
			}
			verb = t
			if systemctlHarmless[verb] {
				return ""
			}
			if systemctlEverything[verb] {
				return "systemctl " + verb + " stops every service, limend included"
			}
			continue
		}
		if !a.lit || unitMatches(t) && (!strings.HasSuffix(t, ".target") || systemctlStops[verb]) {
			return "systemctl " + verb + " would change limen's service (" + t + ")"
		}
	}
	return ""
}

// systemctlStops stop a target's units with it.
var systemctlStops = set("stop", "kill", "mask", "restart", "try-restart", "reload-or-restart", "isolate", "disable")

// unitMatches reports whether a unit name or pattern could be limen's.
func unitMatches(u string) bool {
	u = path.Base(u)
	if strings.HasPrefix(strings.ToLower(u), "limen") || strings.HasSuffix(u, ".target") {
		return true // stopping a target stops what it wants, limend included
	}
	if !hasGlob(u) {
		return false
	}
	for _, name := range [...]string{"limend.service", "limend.socket", "limen.service", "limen.socket", "limend"} {
		if ok, err := path.Match(u, name); ok || err != nil {
			return true
		}
	}
	return false
}

func serviceControl(_ *controlScope, args []word) string {
	if len(args) >= 1 && (!args[0].lit || unitMatches(args[0].text)) {
		if len(args) >= 2 && args[1].lit && args[1].text == "status" {
			return ""
		}
		return "service would change limen's service (" + args[0].text + ")"
	}
	return ""
}

var launchctlHarmless = set("list", "print", "print-cache", "print-disabled", "blame", "help", "version", "managerpid", "manageruid", "managername")

func launchctlControl(_ *controlScope, args []word) string {
	if len(args) == 0 || args[0].lit && launchctlHarmless[args[0].text] {
		return ""
	}
	for _, a := range args[1:] {
		if !a.lit || strings.Contains(strings.ToLower(a.text), "limen") {
			return "launchctl " + args[0].text + " would change limen's service (" + a.text + ")"
		}
	}
	return ""
}

// loginctlStops are loginctl verbs that end a user's processes.
var loginctlStops = set("terminate-user", "kill-user", "terminate-session", "kill-session")

func loginctlControl(_ *controlScope, args []word) string {
	for _, a := range args {
		if loginctlStops[a.text] {
			return "loginctl " + a.text + " stops a user's processes, limend included"
		}
	}
	return ""
}

// claudeConfigReads are claude config subcommands that change nothing.
var claudeConfigReads = set("get", "list", "ls", "--help", "-h")

// claudeControl: claude config set/add/remove changes Claude Code's
// settings, where limen's hook and permissions live.
func claudeControl(_ *controlScope, args []word) string {
	for i, a := range args {
		if a.text != "config" {
			continue
		}
		if i+1 < len(args) && claudeConfigReads[args[i+1].text] {
			return ""
		}
		return "claude config changes Claude Code's settings, where limen's hook is installed"
	}
	return ""
}

// socketMarks name limen's API or sockets in a client's arguments.
var socketMarks = []string{"limen.v1", "limend", "/limen/"}

// grpcClientControl: a gRPC client that names limen's API or sockets, or
// any Unix socket (limend may listen on one anywhere), talks to limend.
func grpcClientControl(s *controlScope, args []word) string {
	for i, a := range args {
		if m := mentions(a.text, socketMarks, s.self); m != "" {
			return "it talks to limend's API (" + m + ")"
		}
		if a.text == "-unix" || a.text == "--unix" || strings.HasPrefix(a.text, "-unix=") || strings.HasPrefix(a.text, "unix:") {
			return "it talks to a gRPC server on a Unix socket, as limend is"
		}
		if i > 0 && args[i-1].text == "-authority" {
			continue
		}
	}
	return ""
}

// curlControl: curl talks to limend over --unix-socket, or names its API.
func curlControl(s *controlScope, args []word) string {
	for i, a := range args {
		t := a.text
		sock := ""
		switch {
		case t == "--unix-socket" || t == "--abstract-unix-socket":
			if i+1 < len(args) {
				sock = args[i+1].text
				if !args[i+1].lit || hasGlob(sock) {
					return "curl would talk to a Unix socket limen cannot read (" + sock + ")"
				}
			}
		case strings.HasPrefix(t, "--unix-socket=") || strings.HasPrefix(t, "--abstract-unix-socket="):
			_, sock, _ = strings.Cut(t, "=")
		}
		if sock != "" && s.isLimenSocket(sock) {
			return "curl would talk to limend's socket (" + sock + ")"
		}
		if m := mentions(t, []string{"limen.v1"}, nil); m != "" {
			return "curl would call limend's API (" + m + ")"
		}
	}
	return ""
}

// isLimenSocket reports whether a socket path could be limend's.
func (s *controlScope) isLimenSocket(p string) bool {
	if strings.Contains(strings.ToLower(p), "limen") {
		return true
	}
	hit, ok := s.protectedAt(s.resolve(p), false)
	return ok && hit.gap == 0
}

// socketClientControl: nc -U, socat UNIX-CONNECT:…, websocat and the like
// talk to a socket limen owns when an argument names one.
func socketClientControl(s *controlScope, args []word) string {
	for i, a := range args {
		t := a.text
		if i > 0 && args[i-1].lit && args[i-1].text == "-U" && (!a.lit || hasGlob(t)) {
			return "it talks to a Unix socket limen cannot read (" + t + ")"
		}
		if strings.Contains(strings.ToLower(t), "limen") {
			return "it talks to limend's socket (" + t + ")"
		}
		// socat addresses: UNIX-CONNECT:/path,opts
		if k, v, ok := strings.Cut(t, ":"); ok && strings.Contains(strings.ToUpper(k), "UNIX") || ok && strings.HasPrefix(strings.ToUpper(k), "ABSTRACT") {
			v, _, _ = strings.Cut(v, ",")
			if !a.lit || hasGlob(v) || s.isLimenSocket(v) {
				return "it talks to a Unix socket that can be limend's (" + v + ")"
			}
			continue
		}
		if strings.HasPrefix(t, "-") || !strings.Contains(t, "/") && !strings.HasSuffix(t, ".sock") {
			continue
		}
		if !a.lit || s.isLimenSocket(t) {
			return "it talks to limend's socket (" + t + ")"
		}
	}
	return ""
}
