package action

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What a part writes and what it runs. An approved interpreter runs
// whatever file it is given, so the file decides what happens: an agent
// that writes notes.md and then runs `python3 notes.md` (allowed, like
// `python3 script.py` before it) runs code no person has seen — the ninth
// red-team pass forged answers to its own asks that way. Parts say which
// files they write (Writes) and which they run as code (Runs), as
// absolute paths, so that limend can ask before a part runs a file an
// agent wrote since a person last allowed running it (engine.Input.Wrote).
// Only what the text says literally is listed; a part that runs a path
// limen cannot read is opaque already.

// writerTools are the file tools whose path is a file they write.
var writerTools = set("Write", "Edit", "MultiEdit", "NotebookEdit")

// WrittenBy returns the files p writes: a file tool's path, or a shell
// command's redirections and output operands.
func WrittenBy(p Part) []string {
	if writerTools[p.Tool] && strings.HasPrefix(p.Subject, "/") {
		return []string{p.Subject}
	}
	return p.Writes
}

// abs is the absolute path t names where the command runs, or "" when
// that is only known when it runs.
func (w walker) abs(t word) string {
	if !t.lit || t.glob || t.computed || t.text == "" {
		return ""
	}
	d := w.resolveDir(w.here(), t)
	if d == "" || !strings.HasPrefix(d, "/") {
		return ""
	}
	return d
}

// redirectWrites are the files a statement's redirections write.
func (w walker) redirectWrites(rs []*syntax.Redirect) []string {
	var out []string
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrAllClob, syntax.RdrInOut,
			syntax.AppOut, syntax.AppAll, syntax.AppClob, syntax.AppAllClob, syntax.DplOut:
		default:
			continue
		}
		if r.Word == nil {
			continue
		}
		t := w.word(r.Word)
		if t.lit && (harmlessSink(t.text) || isFD(t.text)) {
			continue
		}
		if p := w.writtenAt(t); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// writtenAt is the path a write to t writes: t's absolute path, or, for a
// target the shell expands when it runs (a glob, a variable: bash writes
// `> scripts/gen.p?` to scripts/gen.py when that is the one match), the
// tree below the longest directory of it that is literal (the
// seventeenth red-team pass).
func (w walker) writtenAt(t word) string {
	if t.lit && (t.text == "-" || harmlessSink(t.text) || isFD(t.text)) {
		return "" // standard output, /dev/null
	}
	if p := w.abs(t); p != "" {
		return p
	}
	if t.text == "" {
		return ""
	}
	dir := t.text
	if i := strings.IndexAny(dir, "*?[{$`\\"); i >= 0 {
		dir = dir[:i]
	} else if !t.lit {
		dir = ""
	}
	dir = dir[:strings.LastIndexByte(dir, '/')+1]
	if dir == "" {
		dir = "."
	}
	p := w.abs(word{text: dir, lit: true})
	if p == "" {
		return "/" // where is only known when it runs
	}
	return strings.TrimSuffix(p, "/") + "/"
}

// commandWrites are the files a simple command writes through its
// options and operands (outputs.go), and the destination of a copy.
func (w walker) commandWrites(prog string, args []word) []string {
	var out []string
	for _, o := range outputsOf(prog, args) {
		switch p := w.writtenAt(o.w); {
		case p != "" && o.dir:
			out = append(out, strings.TrimSuffix(p, "/")+"/") // some files below it
		case p != "":
			out = append(out, p)
		}
	}
	out = append(out, w.treeWrites(prog, args)...)
	out = append(out, w.operandWrites(prog, args)...)
	out = append(out, w.fetchWrites(prog, args)...)
	if copiers[prog] {
		ops := operandsOf(args, set("-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"))
		if len(ops) > 1 {
			if d := ops[len(ops)-1]; w.abs(d) == "" {
				out = append(out, w.writtenAt(d)) // cp x scripts/gen.p?
			}
			dst := w.abs(ops[len(ops)-1])
			if dst != "" {
				out = append(out, dst)
				// cp notes.md bin/: the copy is bin/notes.md
				for _, src := range ops[:len(ops)-1] {
					if src.lit {
						out = append(out, path.Join(dst, path.Base(src.text)))
					}
				}
			}
		}
	}
	if prog == "sed" || prog == "gsed" || prog == "perl" {
		if inPlaceFlag(args) {
			for _, a := range args[1:] {
				if !strings.HasPrefix(a.text, "-") {
					if p := w.writtenAt(a); p != "" {
						out = append(out, p)
					}
				}
			}
		}
	}
	return out
}

// operandWrites are the files a command writes that are its operands or
// named after them, beyond copies and outputs: a decompressor's output
// (gunzip Makefile.gz writes the Makefile), sponge's file, a scripted
// editor's files (ed, vim -c), git mv's destination.
func (w walker) operandWrites(prog string, args []word) []string {
	var out []string
	add := func(t word) {
		if p := w.abs(t); p != "" {
			out = append(out, p)
		}
	}
	ops := operandsOf(args, nil)
	switch prog {
	case "gunzip", "unxz", "bunzip2", "unzstd", "unlzma", "lz4", "brotli", "gzip", "xz", "bzip2", "zstd", "lzma", "uncompress":
		decompress := decompressors[prog] || anyFlag(args, []string{"-d", "--decompress", "--uncompress"})
		if !decompress || anyFlag(args, []string{"-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test"}) {
			return nil
		}
		for _, o := range ops {
			if ext := path.Ext(o.text); ext != "" {
				add(word{text: strings.TrimSuffix(o.text, ext), lit: o.lit})
			}
		}
	case "sponge", "ed", "red", "ex", "vi", "vim", "nvim", "nano", "emacs", "kak", "hx":
		for _, o := range ops {
			add(o)
		}
	case "git":
		if len(ops) >= 3 && ops[0].text == "mv" {
			dst := ops[len(ops)-1]
			add(dst)
			for _, src := range ops[1 : len(ops)-1] {
				add(word{text: path.Join(dst.text, path.Base(src.text)), lit: src.lit && dst.lit})
			}
		}
	}
	return out
}

// fetchWrites are the files a command fetches from elsewhere into the
// tree: wget's and aria2c's file named after the URL (like curl -O), a
// remote copy's destination (scp, kubectl cp, aws s3 cp, rclone copy), a
// clone or checkout of another repository's code (gh repo clone, gh pr
// checkout, hg clone, svn checkout). What is fetched is anybody's.
func (w walker) fetchWrites(prog string, args []word) []string {
	ops := operandsOf(args, fetchValued)
	sub := ""
	if len(ops) > 0 {
		sub = ops[0].text
		if len(ops) > 1 && (prog == "aws" || prog == "gcloud" || prog == "gh" || prog == "glab" || prog == "az") {
			sub += " " + ops[1].text
		}
	}
	into := func(dirOpts ...string) []string {
		for i := range args {
			for _, o := range dirOpts {
				if v, ok := outputValue(args, i, o); ok {
					return []string{w.writtenAt(word{text: strings.TrimSuffix(v.text, "/") + "/x", lit: v.lit, glob: true})}
				}
			}
		}
		if h := w.here(); strings.HasPrefix(h, "/") {
			return []string{strings.TrimSuffix(h, "/") + "/"}
		}
		return []string{"/"}
	}
	named := func(o ...string) bool {
		for i := range args {
			for _, n := range o {
				if _, ok := outputValue(args, i, n); ok {
					return true
				}
			}
		}
		return false
	}
	switch {
	case prog == "wget":
		if anyFlag(args, []string{"-r", "--recursive", "-m", "--mirror", "-p", "--page-requisites", "-i", "--input-file"}) {
			return into("-P", "--directory-prefix")
		}
		if !named("-O", "--output-document") {
			return into("-P", "--directory-prefix") // named after the URL, or index.html
		}
	case prog == "aria2c":
		if !named("-o", "--out") {
			return into("-d", "--dir")
		}
	case (prog == "http" || prog == "https" || prog == "xh") && anyFlag(args, []string{"-d", "--download"}):
		if !named("-o", "--output") {
			return into()
		}
	case prog == "scp" || prog == "kubectl" && sub == "cp" || (prog == "docker" || prog == "podman") && sub == "cp" ||
		prog == "aws" && (sub == "s3 cp" || sub == "s3 sync" || sub == "s3 mv") || prog == "gsutil" && (sub == "cp" || sub == "rsync" || sub == "mv") ||
		prog == "gcloud" && (sub == "storage cp" || sub == "storage rsync") || prog == "rclone" && (sub == "copy" || sub == "sync" || sub == "copyto" || sub == "move") ||
		prog == "az" && strings.HasPrefix(sub, "storage"):
		if len(ops) >= 2 {
			dst := ops[len(ops)-1]
			if t := dst.text; dst.lit && !isRemoteTarget(t) && !strings.Contains(t, "://") {
				p := w.writtenAt(dst)
				if t == "." || strings.HasSuffix(t, "/") || prog == "rclone" || strings.HasSuffix(sub, "sync") {
					p = strings.TrimSuffix(p, "/") + "/" // a directory: what lands below it is named by the source
				}
				return []string{p}
			}
		}
	case (prog == "gh" || prog == "glab") && (sub == "repo clone" || sub == "gist clone" || sub == "pr checkout" || sub == "mr checkout" ||
		sub == "release download" || sub == "run download" || sub == "repo fork"):
		return into("-D", "--dir")
	case (prog == "hg" || prog == "svn") && (sub == "clone" || sub == "checkout" || sub == "co" || sub == "export" || sub == "update" || sub == "up" || sub == "pull"):
		return into()
	}
	return nil
}

// fetchValued are the fetchers' options that take a value.
var fetchValued = set("-O", "--output-document", "-P", "--directory-prefix", "-o", "--out", "--output", "-d", "--dir", "-D", "-c", "--container",
	"-n", "--namespace", "-i", "--input-file", "-e", "--execute", "--header", "-U", "--user-agent", "--profile", "--region", "-F", "-P", "-S", "-l", "-J")

// decompressors decompress by default (the others with -d).
var decompressors = set("gunzip", "unxz", "bunzip2", "unzstd", "unlzma", "uncompress")

// treeWrites are the trees a command writes files into that its words do
// not name, each as "dir/": an archive extracted or a patch applied where
// it runs. The files in an agent's notes.tgz or notes.diff are the
// agent's as surely as those it writes itself, so a run below is asked
// (RunsMatch). Where it runs is not known, it is "/".
func (w walker) treeWrites(prog string, args []word) []string {
	into := func() []string {
		if h := w.here(); strings.HasPrefix(h, "/") {
			return []string{strings.TrimSuffix(h, "/") + "/"}
		}
		return []string{"/"}
	}
	first := ""
	if len(args) > 0 {
		first = args[0].text
	}
	switch prog {
	case "tar", "gtar", "bsdtar":
		if tarExtracts(args) && !hasArg(args, "-C") && !hasArgPrefix(args, "--directory") {
			return into()
		}
	case "unzip":
		if !hasArg(args, "-d") && !hasArg(args, "-l") && !hasArg(args, "-t") && !hasArg(args, "-v") && !hasArg(args, "-Z") && !hasArg(args, "-p") {
			return into()
		}
	case "7z", "7za", "7zr":
		if first == "x" || first == "e" {
			return into() // or its -oDIR, below it or not
		}
	case "cpio":
		if strings.HasPrefix(first, "-i") || first == "--extract" {
			return into()
		}
	case "ar", "jar":
		if strings.Contains(strings.TrimPrefix(first, "-"), "x") {
			return into()
		}
	case "patch":
		if !hasArg(args, "--dry-run") {
			return into()
		}
	case "split", "csplit", "uudecode", "rename", "prename", "perl-rename", "file-rename", "mmv":
		// files named after a prefix, a header or an expression
		return into()
	case "git":
		// A patch's content is the agent's, a clone's or submodule's
		// anybody's; what a restore brings back is gitRestores'.
		sub, _, _ := strings.Cut(subcommand(prog, args), " ")
		if worktreeWriters[sub] {
			// A remote's branch (origin/evil, FETCH_HEAD) holds what
			// others pushed, which no decision here saw written (the
			// eighteenth pass checked out origin/evil and ran its
			// tests): a tree written.
			for i, o := range operandsOf(args, nil) {
				if i > 0 && (!o.lit || remoteRef(o.text)) {
					return into()
				}
			}
		}
		if sub == "am" || sub == "clone" || sub == "submodule" || sub == "apply" && !hasArg(args, "--check") && !hasArg(args, "--stat") && !hasArg(args, "--numstat") && !hasArg(args, "--summary") {
			return into()
		}
	}
	return nil
}

// gitRestores are the work trees where a git part puts files back from
// commits or stashes (Part.Restores), and gitImports those whose objects
// get content limen did not see written (Part.Imports). A file an agent
// wrote, stashed while a person approved the build, and popped after is
// the agent's again (the fifteenth pass); so is one fetched from a
// repository the agent named, once checked out.
func (w walker) gitRestores(prog string, args []word) (restores, imports []string) {
	if prog != "git" {
		return nil, nil
	}
	here := []string{"/"}
	if h := w.here(); strings.HasPrefix(h, "/") {
		here = []string{h}
	}
	sub, _, _ := strings.Cut(subcommand(prog, args), " ")
	ops := operandsOf(args, nil)
	switch {
	case sub == "checkout" && (hasArg(args, "-b") || hasArg(args, "-B")) && len(ops) <= 2,
		sub == "switch" && (hasArg(args, "-c") || hasArg(args, "-C")) && len(ops) <= 2,
		sub == "reset" && !hasArg(args, "--hard") && !hasArg(args, "--merge") && !hasArg(args, "--keep"):
		// a new branch where HEAD is, or the index only: the tree stays
	case worktreeWriters[sub]:
		restores = here
	}
	switch {
	case sub == "fetch" || sub == "pull" || sub == "remote":
		// From the remote a project works with (origin, upstream), the
		// content is the team's; from any other repository an operand
		// names (a URL, host:repo, a directory the agent made, a remote
		// it added), anybody's (the nineteenth pass pulled from build/).
		for i, o := range ops[1:] {
			if !o.lit || gitURL(o.text) || i == 0 && (sub == "fetch" || sub == "pull") && !teamRemotes[o.text] {
				imports = here
			}
		}
	case gitObjectWriters[sub], sub == "apply" && (hasArg(args, "--cached") || hasArg(args, "--index")),
		sub == "update-index" && (hasArg(args, "--cacheinfo") || hasArg(args, "--index-info")),
		sub == "hash-object" && hasArg(args, "-w"), sub == "bundle" && hasArg(args, "unbundle"):
		imports = here
	}
	return restores, imports
}

// teamRemotes are the remote names a repository's own work comes from.
var teamRemotes = set("origin", "upstream")

// remoteRef reports whether a git operand names a remote's branch or what
// a fetch brought: origin/x, upstream/x, refs/remotes/…, FETCH_HEAD.
func remoteRef(t string) bool {
	t = strings.TrimPrefix(t, "--")
	return strings.HasPrefix(t, "origin/") || strings.HasPrefix(t, "upstream/") || strings.HasPrefix(t, "refs/remotes/") ||
		strings.HasPrefix(t, "FETCH_HEAD") || strings.HasPrefix(t, "@{u") || strings.HasPrefix(t, "@{upstream") || strings.HasPrefix(t, "@{push")
}

// gitURL reports whether a git operand names a repository by where it is
// (a URL, host:path, a path or a bundle) rather than a remote the
// repository already has; branch names and refspecs (feature/login,
// main:main) are not.
func gitURL(t string) bool {
	return strings.Contains(t, "://") || strings.HasPrefix(t, "/") || strings.HasPrefix(t, ".") || strings.HasPrefix(t, "~") ||
		strings.HasSuffix(t, ".git") || strings.HasSuffix(t, ".bundle") ||
		strings.Contains(t, "@") && strings.Contains(t, ":") || !strings.Contains(t, "/") && strings.Contains(t, ":") && !strings.HasPrefix(t, "+") && strings.Contains(strings.SplitN(t, ":", 2)[0], ".")
}

// worktreeWriters are git's subcommands that write files of the work
// tree from commits, stashes or the index.
var worktreeWriters = set("checkout", "switch", "restore", "reset", "stash", "merge", "rebase", "cherry-pick", "revert",
	"pull", "read-tree", "worktree", "bisect", "checkout-index")

// gitObjectWriters are git's subcommands that store objects from other
// than the work tree's files.
var gitObjectWriters = set("mktree", "commit-tree", "fast-import", "unpack-objects", "replace", "index-pack")

func hasArgPrefix(args []word, p string) bool {
	for _, a := range args {
		if strings.HasPrefix(a.text, p) {
			return true
		}
	}
	return false
}

// inPlaceFlag reports whether sed or perl edits its files in place.
func inPlaceFlag(args []word) bool {
	for _, a := range args {
		if a.text == "-i" || strings.HasPrefix(a.text, "-i") && !strings.HasPrefix(a.text, "--") || a.text == "--in-place" || strings.HasPrefix(a.text, "--in-place=") {
			return true
		}
	}
	return false
}

// runsFiles are the files a simple command runs as code: an interpreter's
// or shell's script and what is beside it, a program named by its path
// (./run.sh, bin/tool), a file sourced, test files named, and what it
// runs of the tree where it runs (obeys).
func (w walker) runsFiles(head word, prog string, args []word) []string {
	var out []string
	add := func(t word) {
		if p := w.abs(t); p != "" {
			out = append(out, p)
		}
	}
	if strings.Contains(head.text, "/") {
		add(head)
	}
	if x, ok := scriptOf(prog, args); ok {
		add(x)
	}
	switch prog {
	case "source", ".":
		if len(args) > 0 {
			add(args[0])
		}
	case "pytest", "py.test", "go", "tsx", "ts-node", "deno", "bun", "jest", "vitest", "mocha":
		for _, a := range args {
			file, _, _ := strings.Cut(a.text, "::") // pytest tests/x.py::test_a
			if ext := path.Ext(file); !strings.HasPrefix(file, "-") && (ext == ".py" || ext == ".go" || ext == ".ts" || ext == ".js" || ext == ".mjs" || ext == ".cjs" || ext == ".tsx") {
				add(word{text: file, lit: a.lit})
			}
		}
	}
	out = append(out, w.obeys(prog, args)...)
	// A script imports and runs from where it is (python puts the
	// script's directory first on sys.path; node resolves ./ requires
	// there; a shell script sources ./lib.sh), as well as from the
	// working directory's tree (obeys).
	if x, ok := scriptOf(prog, args); ok {
		out = append(out, w.besides(x)...)
	} else if strings.Contains(head.text, "/") {
		out = append(out, w.besides(head)...)
	}
	return out
}

// besides returns what a script at t runs from its own directory, when
// that is not where the command runs.
func (w walker) besides(t word) []string {
	p := w.abs(t)
	if p == "" || path.Dir(p) == w.here() {
		return nil
	}
	return w.under(path.Dir(p), anyCode)
}

// withInputs returns ctx with more files its commands read on standard
// input (an enclosing statement's < redirections).
func (ctx shellCtx) withInputs(ps []string) shellCtx {
	if len(ps) > 0 {
		ctx.stdinFiles = append(ctx.stdinFiles[:len(ctx.stdinFiles):len(ctx.stdinFiles)], ps...)
	}
	return ctx
}

// redirectInputs are the files a statement's input redirections read.
func (w walker) redirectInputs(rs []*syntax.Redirect) []string {
	var out []string
	for _, r := range rs {
		if r.Op != syntax.RdrIn || r.Word == nil {
			continue
		}
		if p := w.abs(w.word(r.Word)); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// obeyedInputs are the files a program that runs nothing of the tree by
// itself is told to run or obey: the value of an option that names its
// program or configuration (sed -f, awk -f, kubectl --kubeconfig, whose
// exec credentials run a command, ssh -F's ProxyCommand, openssl's
// engines, psql -f with its \! escapes), a variable that names one
// (KUBECONFIG, PSQLRC), and the script a database client reads on its
// input (psql < x.sql).
func (w walker) obeyedInputs(prog string, assigns, args []word, stdin []string) []string {
	var out []string
	add := func(t word) {
		if p := w.abs(t); p != "" {
			out = append(out, p)
		}
	}
	if names := obeyedOptions[prog]; len(names) > 0 {
		for i, a := range args {
			if !a.lit || !strings.HasPrefix(a.text, "-") {
				continue
			}
			if a.text == "--" {
				break
			}
			for _, n := range names {
				name, dir := strings.CutSuffix(n, "/") // a directory: all of it
				if v, ok := outputValue(args, i, name); ok {
					if fileOptions[strings.TrimLeft(name, "-")] && v.lit {
						// git --git-dir=build/gd runs at build already
						// (chdir.go): the option names gd there.
						v = word{text: path.Join(w.here(), path.Base(v.text)), lit: true}
					}
					if p := w.abs(v); dir && p != "" {
						out = append(out, strings.TrimSuffix(p, "/")+"/")
					} else if !dir {
						add(v)
					}
				}
			}
		}
	}
	for _, a := range assigns {
		if name, v, ok := strings.Cut(a.text, "="); ok && obeyedEnv[name] {
			for _, f := range strings.Split(v, ":") { // KUBECONFIG=a:b
				add(word{text: f, lit: a.lit})
			}
		}
	}
	if stdinScripts[prog] || !runsNothingBelow[prog] {
		// A database client's script, or whatever a runner does with
		// its input (node x.js < in.txt).
		out = append(out, stdin...)
	}
	// ldd runs the program it lists; a unit or job a service manager
	// is given to link, enable or load runs its commands; an installer
	// runs a local package's install scripts.
	sub := subcommand(prog, args)
	if prog == "ldd" || prog == "systemctl" && (sub == "link" || sub == "enable" || sub == "start") || prog == "launchctl" ||
		installers[prog+" "+sub] {
		for _, o := range operandsOf(args, nil) {
			if o.text != sub && (strings.Contains(o.text, "/") || strings.HasPrefix(o.text, ".")) {
				add(o)
			}
		}
	}
	return out
}

// obeyedOptions are, by program, the options whose value is a file the
// program runs or does what it says (obeyedInputs).
var obeyedOptions = map[string][]string{
	"sed": {"-f", "--file"}, "gsed": {"-f", "--file"},
	"awk": {"-f", "--file", "-i", "--include", "-E", "--exec"}, "gawk": {"-f", "--file", "-i", "--include", "-E", "--exec"},
	"mawk": {"-f"}, "nawk": {"-f"},
	"kubectl": {"--kubeconfig"}, "oc": {"--kubeconfig"}, "helm": {"--kubeconfig"},
	"ssh": {"-F"}, "scp": {"-F"}, "sftp": {"-F"},
	"openssl": {"-config", "-conf", "-engine"},
	// git obeys the config and hooks of the repository it is pointed at.
	"git":     {"--git-dir/", "--work-tree/"},
	"psql":    {"-f", "--file"},
	"sqlite3": {"-init"},
	"mysql":   {"--defaults-file", "--defaults-extra-file"},
	"mongosh": {"--file", "-f"},
	// pip's requirement and constraint files name what it installs,
	// from anywhere (a URL, a git repository).
	"pip": {"-r", "--requirement", "-c", "--constraint"}, "pip3": {"-r", "--requirement", "-c", "--constraint"},
	"uv": {"-r", "--requirement", "-c", "--constraint", "--with-requirements"},
}

// obeyedEnv are the variables that name a file a program obeys.
var obeyedEnv = set("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "KUBECONFIG", "PSQLRC", "PGSERVICEFILE", "OPENSSL_CONF", "MYSQL_HOME", "SQLITE_INIT", "AWKPATH", "LESSKEYIN")

// stdinScripts are the programs that run a script given on standard
// input, with escapes to the shell (psql's \!, sqlite3's .shell,
// mysql's system).
var stdinScripts = set("psql", "mysql", "sqlite3", "mongosh", "redis-cli")

// withWrites returns ctx with more files its commands write (an enclosing
// statement's redirections).
func (ctx shellCtx) withWrites(ps []string) shellCtx {
	if len(ps) > 0 {
		ctx.writes = append(ctx.writes[:len(ctx.writes):len(ctx.writes)], ps...)
	}
	return ctx
}

// What a program runs from the tree it runs in. A test runner, build
// tool, task runner or interpreter runs code, and that code can run any
// file at all: a new zz_test.go under go test, a scripts/json.py that
// `python3 scripts/gen.py` imports instead of the standard library's, a
// .pyc, a script without an extension that a recipe or a test execs (each
// of the eleventh to fourteenth red-team passes found one more kind).
// A table of which files each runner runs was never complete, so a
// program runs every file below where it runs but data (anyCode), unless
// it is one of the few whose every input limen knows: those that run
// nothing from the tree (runsNothingBelow) and git, whose list is exact.
var anyCode = []string{"**/" + notData, "node_modules/"}

// notData, as the name in "dir/**/" + notData, is any file below dir
// whose extension is not one of dataExts.
const notData = "*notdata"

// NotData is notData, for those that describe Runs entries to a person.
const NotData = notData

// dataExts are the extensions of files programs read and write as data
// and never run: tables, logs, images, styles and golden files compared
// against. Not archives: npm installs the tarball package.json names,
// python imports from a zip (the seventeenth red-team pass).
// Configuration formats (JSON, YAML, TOML, INI, XML) are not among them:
// they are where a runner is told what to run (package.json's scripts,
// .mocharc.json's require, pyproject.toml's build backend, a lock file's
// tarball URLs), and the table of which such file each runner obeys was
// never complete. Nor are documents: cargo test runs the examples of a
// README a crate includes as its docs, pytest the doctests of the text
// files its configuration names, and jest's .snap files are modules.
var dataExts = set(".csv", ".tsv", ".log", ".out",
	".png", ".jpg", ".jpeg", ".gif", ".svg", ".ico", ".webp", ".pdf", ".html", ".css", ".scss", ".map",
	".sum", ".golden")

// noExt, as the name in "dir/**/" + noExt, is any file without an
// extension below dir (RunsMatch).
const noExt = "*noext"

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// runner is what a program that runs code runs: every file below it but
// data, and the files of data formats it obeys (package.json's scripts,
// pytest.ini's options, Cargo.toml's build script).
func runner(obeys ...string) []string { return join(anyCode, obeys) }

// obeyedFiles are the files of the directory a program runs in that it
// runs or does what they say, by program (or by "program subcommand"),
// where that is more than anyCode. A name ending in "/" stands for
// everything below it (""
// for everything below the directory); one starting with "**/" for that
// name anywhere below the directory (name may hold "*": **/*.mk).
var obeyedFiles = map[string][]string{
	"npm":      runner(".npmrc", "package-lock.json", "npm-shrinkwrap.json"),
	"yarn":     runner(".yarnrc", ".yarnrc.yml", "yarn.lock"),
	"pnpm":     runner(".npmrc", ".pnpmfile.cjs", "pnpm-lock.yaml", "pnpm-workspace.yaml"),
	"bun":      runner("bunfig.toml", "bun.lock", "bun.lockb"),
	"pytest":   runner("pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"),
	"py.test":  runner("pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"),
	"tox":      runner("tox.ini", "pyproject.toml", "setup.cfg"),
	"mocha":    runner(".mocharc.yml", ".mocharc.yaml", ".mocharc.json"),
	"cargo":    runner("Cargo.toml", "**/Cargo.toml", "Cargo.lock", ".cargo/", "rust-toolchain.toml"),
	"mvn":      runner("pom.xml", "**/pom.xml", ".mvn/"),
	"composer": runner("composer.json", "composer.lock"),
	"bundle":   runner("Gemfile.lock"),
	// brew installs what its taps say; brew bundle runs the Brewfile.
	"brew bundle": runner(),
	"git":         gitObeys,
	// What docker builds runs in a container; what the daemon obeys is
	// the build and compose files.
	"docker":         {"Dockerfile", "**/Dockerfile", "compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml"},
	"docker-compose": {"compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml"},
	"podman":         {"Containerfile", "Dockerfile", "compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml"},
}

// gitObeys is what git runs of the tree. Anything below .git can make git
// run a program: hooks, config, config.worktree, and commondir, which
// names another directory's config (the twelfth pass set core.fsmonitor
// that way). The hook directories core.hooksPath commonly names (husky's,
// the pre-commit framework's config) are git's hooks too. Git runs
// nothing else of the tree, so its list is exact: git status after an
// edit asks nothing.
var gitObeys = []string{".git/", ".gitattributes", ".gitmodules", "**/.gitattributes", ".husky/", ".githooks/", ".git-hooks/", ".hooks/",
	".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml"}

// runsNothingBelow are programs (or "program subcommand"s) that run no
// file of the tree they run in: readers, text tools, file movers, network
// clients, compilers that only compile. What they are given to run (sed
// -f, a find -exec's command) is another part or opaque already.
var runsNothingBelow = set(
	"echo", "printf", "cat", "ls", "ll", "cd", "pwd", "rm", "rmdir", "cp", "mv", "mkdir", "touch", "ln",
	"chmod", "chown", "chgrp", "find", "fd", "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "gsed", "awk", "gawk",
	"head", "tail", "less", "more", "bat", "wc", "sort", "uniq", "cut", "tr", "diff", "cmp", "file", "stat", "du",
	"df", "tar", "zip", "unzip", "gzip", "gunzip", "xz", "unxz", "bzip2", "7z", "7za", "7zr", "cpio", "ar", "patch", "zcat", "zstd", "curl", "wget", "ssh", "scp", "rsync", "sftp",
	"ping", "dig", "nslookup", "host", "which", "whereis", "type", "sleep", "kill", "pkill", "killall", "pgrep",
	"ps", "lsof", "export", "unset", "test", "[", "true", "false", "exit", "return", "date", "jq", "yq", "tee", "basename",
	"dirname", "realpath", "readlink", "whoami", "id", "uname", "hostname", "history", "tree", "env", "printenv",
	"set", "read", "wait", "seq", "yes", "base64", "md5sum", "sha1sum", "sha256sum", "sha512sum", "shasum", "b2sum", "cksum",
	"xxd", "od", "hexdump", "strings", "nl", "paste", "join", "comm", "column", "fold", "fmt", "rev", "tac", "split",
	"csplit", "truncate", "dd", "mktemp", "iconv", "locale", "cal", "bc", "expr", "let", "declare", "local", "readonly",
	"getent", "groups", "who", "uptime", "free", "journalctl", "dmesg", "lsblk", "lsattr", "getfacl", "clear", "pbcopy", "pbpaste",
	"ldd", "nm", "objdump", "readelf", "size", "gofmt",
	// Not go build, go vet or a compiler: compiling is running, as far as
	// what the code names goes (cgo's #include "../.env" prints the file
	// in the compiler's errors; go:embed and include_str! take any file).
	"go fmt", "go mod", "go version", "go env", "go doc", "go clean", "go help", "go work",
	"gh", "glab",
	// Clients of services and the system, which act on what they reach,
	// not on the tree: the cloud and cluster CLIs, service managers,
	// network and database clients, and Windows' own listers.
	"aws", "az", "gcloud", "gsutil", "doctl", "kubectl", "oc", "openssl", "ssh-keygen", "gpg",
	"systemctl", "service", "launchctl", "loginctl", "update-ca-certificates",
	"nc", "netcat", "ncat", "ip", "ss", "netstat", "ifconfig", "traceroute", "nmap", "telnet",
	"psql", "mysql", "sqlite3", "redis-cli", "mongosh", "jar", "where", "dir", "tasklist", "taskkill",
	"brew", "apt", "apt-get", "apt-cache", "dnf", "yum", "pacman", "apk",
)

// PowerShell's cmdlets that only read, list or shape what is piped
// through them (Get-ChildItem, Select-Object): by their verb.
var readingVerbs = set("Get", "Select", "Where", "Format", "Measure", "Sort", "Group", "Test", "Compare", "Resolve", "Out", "ConvertTo", "ConvertFrom")

// runsNothing reports whether prog (or prog sub) runs no file of the tree
// it runs in: runsNothingBelow, a reading cmdlet, or any program asked
// for no more than its help or version (--help, -h, --version).
func runsNothing(key string, args []word) bool {
	if runsNothingBelow[key] {
		return true
	}
	if verb, _, ok := strings.Cut(key, "-"); ok && readingVerbs[verb] && !strings.Contains(key, " ") {
		return true
	}
	for _, a := range args {
		// Flags only: `make help` runs the Makefile's help target, and
		// pytest -v is a verbose test run.
		switch a.text {
		case "--help", "-h", "--version":
		default:
			return false
		}
	}
	return len(args) > 0
}

// obeys returns the files of obeyedFiles for prog where it runs, as
// absolute names (with their "/" and "**/" forms kept).
func (w walker) obeys(prog string, args []word) []string {
	prog, args = asModule(prog, args)
	key := prog
	if sub := subcommand(prog, args); sub != "" {
		k := prog + " " + strings.Fields(sub)[0]
		if _, ok := obeyedFiles[k]; ok || runsNothingBelow[k] {
			key = k
		}
	}
	names, ok := obeyedFiles[key]
	switch {
	case ok:
	case runsNothing(key, args):
		return nil
	default:
		names = anyCode
	}
	out := w.under(w.here(), names)
	if h := w.here(); w.cwd != "" && h != w.cwd && slices.Contains(names, "**/"+notData) {
		// cd src && go test ./..., go -C cmd/tool test, cargo
		// --manifest-path app/Cargo.toml, pytest --rootdir=docs: the
		// package imports the project's others (a path dependency's
		// build.rs), or the runner still collects from the working
		// directory.
		out = append(out, w.under(w.cwd, anyCode)...)
	}
	if slices.Contains(names, "**/"+notData) {
		// And whatever it is given by name, of any kind: make -f
		// data/x.csv runs it as a Makefile, a script may run its
		// argument.
		out = append(out, w.namedFiles(args)...)
	}
	if prog == "pytest" || prog == "py.test" {
		// --doctest-glob='*.csv' runs the doctests of the files it
		// matches, of any kind (the eighteenth pass).
		for i := range args {
			if v, ok := outputValue(args, i, "--doctest-glob"); ok {
				if !v.lit || strings.Contains(v.text, "/") {
					out = append(out, w.under(w.here(), []string{""})...)
					continue
				}
				out = append(out, w.under(w.here(), []string{"**/" + v.text})...)
			}
		}
	}
	return out
}

// namedFiles are the literal paths among a command's operands and option
// values (file-like: with a slash or an extension).
func (w walker) namedFiles(args []word) []string {
	var out []string
	for _, a := range args {
		t := a.text
		if !a.lit || a.glob || t == "" || t == "-" {
			continue
		}
		if strings.HasPrefix(t, "-") {
			_, v, ok := strings.Cut(t, "=")
			if !ok {
				continue
			}
			t = v
		}
		if strings.Contains(t, "://") || !strings.Contains(t, "/") && !strings.Contains(t, ".") {
			continue
		}
		if p := w.abs(word{text: t, lit: true}); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// under returns names (as obeyedFiles spells them) below dir as absolute
// names, or nil when dir is not known.
func (w walker) under(dir string, names []string) []string {
	if len(names) == 0 || dir == "" || !strings.HasPrefix(dir, "/") {
		return nil
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		switch rest, ok := strings.CutPrefix(n, "**/"); {
		case ok:
			out = append(out, strings.TrimSuffix(dir, "/")+"/**/"+rest)
		case n == "":
			out = append(out, strings.TrimSuffix(dir, "/")+"/")
		default:
			out = append(out, path.Join(dir, n)+map[bool]string{true: "/"}[strings.HasSuffix(n, "/")])
		}
	}
	return out
}

func hasArg(args []word, t string) bool {
	for _, a := range args {
		if a.text == t {
			return true
		}
	}
	return false
}

// RunsMatch reports whether a file written at path is one that the Runs
// entry run names: the same path, a path below it when run ends in "/",
// or, for "dir/**/name", a file called name below dir (name may hold
// "*": **/*.mk, **/conftest.py).
//
// A path that ends in "/" is a tree written with files limen does not
// know (treeWrites): every run at or below it matches, and every run of a
// directory above it.
func RunsMatch(run, file string) bool {
	if tree, ok := strings.CutSuffix(file, "/"); ok {
		if !strings.HasSuffix(run, "/") && !strings.Contains(run, "/**/") {
			return strings.HasPrefix(run, tree+"/")
		}
		return overlaps(runDir(run), tree)
	}
	if dir, name, ok := strings.Cut(run, "/**/"); ok {
		if !strings.HasPrefix(file, dir+"/") {
			return false
		}
		base := file[strings.LastIndexByte(file, '/')+1:]
		if name == noExt {
			return base != "" && !strings.Contains(base, ".")
		}
		if name == notData {
			i := strings.LastIndexByte(base, '.')
			return base != "" && (i <= 0 || !dataExts[strings.ToLower(base[i:])])
		}
		if strings.Contains(name, "*") {
			ok, _ := path.Match(name, base)
			return ok
		}
		return base == name
	}
	if strings.HasSuffix(run, "/") {
		return strings.HasPrefix(file, run)
	}
	return run == file
}

// Covers reports whether a person who allowed run allowed running
// whatever is below the written tree ("dir/"): run is every file below
// the tree or above it, not a few named ones (git's hooks).
func Covers(run, tree string) bool {
	tree = strings.TrimSuffix(tree, "/")
	dir, name, ok := strings.Cut(run, "/**/")
	switch {
	case ok && name == notData:
	case !ok && strings.HasSuffix(run, "/"):
		dir = strings.TrimSuffix(run, "/")
	default:
		return false
	}
	return dir == tree || dir == "" || strings.HasPrefix(tree, dir+"/")
}

// runDir is the directory a Runs entry is about: "dir/**/name" and "dir/"
// are dir.
func runDir(run string) string {
	if i := strings.Index(run, "/**/"); i >= 0 {
		return run[:i]
	}
	return strings.TrimSuffix(run, "/")
}

// overlaps reports whether one directory holds the other (or they are the
// same); "" is the root.
func overlaps(a, b string) bool {
	return a == b || a == "" || b == "" || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}
