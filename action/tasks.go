package action

import (
	"slices"
	"strings"
)

// A task runner's target is code the project defines: `make test` and
// `make deploy` run different recipes, `npm run build` and `npm run
// publish` different scripts, and `git evil` or `cargo xtask` a program or
// alias found on the machine. Approving one says nothing about another, so
// each target set is a risk mark of its own ("Bash:make deploy
// [targets:deploy]"): the person's answers to that same set, and nothing
// broader, can allow it. (What a target does when the project's files
// change under it is the known limit of docs/SECURITY.md: limen does not
// read Makefiles.)

// taskRunners are the programs whose operands name recipes of the project:
// every operand that is not an option or an assignment is a target.
var taskRunners = map[string]taskRunner{
	"make":  {valued: set("-C", "-f", "-I", "-o", "-W", "-l", "--file", "--makefile", "--directory", "--include-dir", "--old-file", "--assume-old", "--new-file", "--assume-new", "--what-if", "--load-average", "--eval", "-E"), numeric: set("-j", "--jobs")},
	"gmake": {valued: set("-C", "-f", "-I", "-o", "-W", "-l", "--file", "--makefile", "--directory", "--include-dir", "--old-file", "--assume-old", "--new-file", "--assume-new", "--what-if", "--load-average", "--eval", "-E"), numeric: set("-j", "--jobs")},
	"just":  {valued: set("-f", "--justfile", "-d", "--working-directory", "--set", "--dotenv-filename", "--dotenv-path", "--shell", "--shell-arg", "--color", "--command-color", "--list-heading", "--list-prefix", "--chooser")},
	"task":  {valued: set("-d", "--dir", "-t", "--taskfile", "-o", "--output", "-c", "--color", "--concurrency", "-C", "--interval", "--sort")},
	"rake":  {valued: set("-f", "--rakefile", "-C", "--directory", "-I", "--libdir", "-r", "--require", "-R", "--rakelibdir", "-e", "--execute", "-p", "--execute-print", "-E", "--execute-continue", "-j", "--jobs")},
	"ninja": {valued: set("-C", "-f", "-j", "-k", "-l", "-d", "-t", "-w")},
}

// taskRunner is how a task runner's options are read.
type taskRunner struct {
	valued  map[string]bool // options whose value is the next word
	numeric map[string]bool // options followed by an optional number
}

// scriptRunners run a script of package.json: the subcommand levels below
// are "npm run X" (and npm's lifecycle shorthands), or for yarn, pnpm and
// bun any subcommand that is not one of their own.
var (
	npmScripts  = set("test", "t", "tst", "start", "stop", "restart")
	yarnBuiltin = set("add", "audit", "autoclean", "bin", "cache", "check", "config", "constraints", "create", "dedupe", "dlx", "exec", "explain",
		"generate-lock-entry", "global", "help", "import", "info", "init", "install", "licenses", "link", "list", "login", "logout", "node", "npm",
		"outdated", "owner", "pack", "patch", "patch-commit", "plugin", "policies", "publish", "rebuild", "remove", "search", "set", "stage", "tag",
		"team", "unlink", "unplug", "up", "upgrade", "upgrade-interactive", "version", "versions", "why", "workspace", "workspaces", "run")
	pnpmBuiltin = set("add", "install", "i", "update", "up", "upgrade", "remove", "rm", "uninstall", "un", "link", "ln", "unlink", "import", "rebuild", "rb",
		"prune", "fetch", "install-test", "it", "patch", "patch-commit", "patch-remove", "audit", "list", "ls", "ll", "la", "outdated", "why", "licenses",
		"dlx", "exec", "create", "run", "run-script", "test", "t", "tst", "start", "publish", "pack", "store", "env", "setup", "init", "deploy",
		"config", "c", "get", "set", "root", "bin", "doctor", "server", "recursive", "multi", "m", "dedupe", "self-update", "cat-file", "cat-index",
		"find-hash", "approve-builds", "ignored-builds", "help", "why", "version")
	bunBuiltin = set("run", "test", "x", "repl", "exec", "install", "i", "add", "a", "remove", "rm", "update", "outdated", "audit", "link", "unlink",
		"publish", "patch", "pm", "info", "why", "build", "init", "create", "c", "upgrade", "completions", "discord", "help", "ci")
)

// gitBuiltin are git's own commands (git --list-cmds=main of git 2.39):
// any other subcommand is an alias or a git-<name> program found on PATH.
var gitBuiltin = set("add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bugreport", "bundle", "cat-file", "check-attr",
	"check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout-index", "cherry", "cherry-pick", "citool", "clean", "clone", "column",
	"commit", "commit-graph", "commit-tree", "config", "count-objects", "credential", "credential-cache", "credential-store", "daemon", "describe",
	"diagnose", "diff", "diff-files", "diff-index", "diff-tree", "difftool", "fast-export", "fast-import", "fetch", "fetch-pack", "filter-branch",
	"fmt-merge-msg", "for-each-ref", "for-each-repo", "format-patch", "fsck", "fsck-objects", "fsmonitor--daemon", "gc", "get-tar-commit-id", "grep",
	"gui", "hash-object", "help", "hook", "http-backend", "http-fetch", "http-push", "imap-send", "index-pack", "init", "init-db", "instaweb",
	"interpret-trailers", "log", "ls-files", "ls-remote", "ls-tree", "mailinfo", "mailsplit", "maintenance", "merge", "merge-base", "merge-file",
	"merge-index", "merge-one-file", "merge-tree", "mergetool", "mktag", "mktree", "multi-pack-index", "mv", "name-rev", "notes", "pack-objects",
	"pack-redundant", "pack-refs", "patch-id", "prune", "prune-packed", "pull", "push", "quiltimport", "range-diff", "read-tree", "rebase",
	"receive-pack", "reflog", "remote", "repack", "replace", "replay", "request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse", "revert",
	"rm", "send-email", "send-pack", "shell", "shortlog", "show", "show-branch", "show-index", "show-ref", "sparse-checkout", "stage", "stash",
	"status", "stripspace", "submodule", "subtree", "switch", "symbolic-ref", "tag", "unpack-file", "unpack-objects", "update-index", "update-ref",
	"update-server-info", "upload-archive", "upload-pack", "var", "verify-commit", "verify-pack", "verify-tag", "version", "whatchanged", "worktree",
	"write-tree", "lfs")

// cargoBuiltin are cargo's own commands and the ones rustup installs
// beside it (clippy, fmt, miri); any other is an alias of the project's
// .cargo/config.toml (cargo xtask) or a cargo-<name> program.
var cargoBuiltin = set("add", "bench", "build", "b", "check", "c", "clean", "clippy", "config", "doc", "d", "fetch", "fix", "fmt", "generate-lockfile",
	"help", "info", "init", "install", "locate-project", "login", "logout", "metadata", "miri", "new", "owner", "package", "pkgid", "publish",
	"read-manifest", "remove", "report", "run", "r", "rustc", "rustdoc", "search", "test", "t", "tree", "uninstall", "update", "vendor",
	"verify-project", "version", "yank")

// servesRepository are git's commands that serve the repository to
// others: a web server or a daemon on a port.
var servesRepository = set("instaweb", "daemon")

// taskMarks are the marks of a command that runs a target the project or
// the machine defines (see above).
func taskMarks(prog, sub string, args []word) []string {
	if r, ok := taskRunners[prog]; ok {
		if ts := r.targets(args); len(ts) > 0 {
			return []string{"targets:" + joinTargets(ts)}
		}
		return nil
	}
	first, _, _ := strings.Cut(sub, " ")
	switch {
	case sub == "":
		return nil
	case prog == "npm" && (first == "run" || first == "run-script") || (prog == "yarn" || prog == "pnpm" || prog == "bun") && (first == "run" || first == "run-script"):
		if _, script, ok := strings.Cut(sub, " "); ok {
			return []string{"script:" + joinTargets([]string{script})}
		}
		if script := firstOperandAfter(args, first); script != "" {
			return []string{"script:" + joinTargets([]string{script})} // bun run dev
		}
		return []string{"script:?"} // npm run with its script not a plain word
	case prog == "npm" && npmScripts[first],
		prog == "yarn" && !yarnBuiltin[first],
		prog == "pnpm" && !pnpmBuiltin[first],
		prog == "bun" && !bunBuiltin[first] && !strings.Contains(first, "."):
		return []string{"script:" + joinTargets([]string{first})}
	case prog == "git" && servesRepository[first]:
		return []string{"serves"}
	case prog == "git" && !gitBuiltin[first], prog == "cargo" && !cargoBuiltin[first]:
		// An external command reads its own arguments as it likes:
		// cargo xtask dist and cargo xtask test are two tasks.
		ext := []string{first}
		if next := firstOperandAfter(args, first); next != "" {
			ext = append(ext, next)
		}
		return []string{"external:" + strings.Join(ext, "+")}
	}
	return nil
}

// targets are the operands of a task runner: not options (and their
// values), not assignments (VAR=value), up to "--" (after which just and
// task pass arguments on).
func (r taskRunner) targets(args []word) []string {
	var ts []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case a.lit && t == "--":
			return ts
		case a.lit && strings.HasPrefix(t, "-") && len(t) > 1:
			name, _, hasValue := strings.Cut(t, "=")
			if hasValue {
				continue
			}
			if r.valued[name] {
				i++
			} else if r.numeric[name] && i+1 < len(args) && isNumber(args[i+1].text) {
				i++
			}
		case a.lit && isAssignment(t):
		default:
			ts = append(ts, t)
		}
	}
	return ts
}

// firstOperandAfter is the first word after sub that is not an option, or
// "".
func firstOperandAfter(args []word, sub string) string {
	for i, a := range args {
		if a.text != sub {
			continue
		}
		for _, b := range args[i+1:] {
			if b.lit && !strings.HasPrefix(b.text, "-") && !isAssignment(b.text) {
				return b.text
			}
		}
		return ""
	}
	return ""
}

// joinTargets writes a target set as one mark word: sorted, each kept to
// the characters a key's mark may hold (no space, no bracket), joined by
// "+".
func joinTargets(ts []string) string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		t = strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '[' || r == ']' || r == '+' {
				return '_'
			}
			return r
		}, t)
		if len(t) > 48 {
			t = t[:48] + "…"
		}
		out = append(out, t)
	}
	slices.Sort(out)
	return strings.Join(slices.Compact(out), "+")
}
