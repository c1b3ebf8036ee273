package action

import (
	"path"
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
		if p := w.abs(t); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// commandWrites are the files a simple command writes through its
// options and operands (outputs.go), and the destination of a copy.
func (w walker) commandWrites(prog string, args []word) []string {
	var out []string
	for _, o := range outputsOf(prog, args) {
		if p := w.abs(o.w); p != "" && !o.dir {
			out = append(out, p)
		}
	}
	if copiers[prog] {
		ops := operandsOf(args, set("-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"))
		if len(ops) > 1 {
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
					if p := w.abs(a); p != "" {
						out = append(out, p)
					}
				}
			}
		}
	}
	return out
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
// or shell's script, a program named by its path (./run.sh, bin/tool), a
// file sourced, a module of the working directory (python -m notes), test
// files and go run's files.
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
	// An interpreter imports from where its script is (python puts the
	// script's directory first on sys.path; node resolves ./ requires
	// there), and python -m from the working directory: a module written
	// there shadows the one the script meant (scripts/json.py).
	switch base := interpreterBase(prog); {
	case base == "python" && hasArg(args, "-m"):
		out = append(out, w.under(w.here(), pyCode)...)
	case base == "python" || base == "node" || prog == "nodejs" || prog == "deno" || prog == "tsx" || prog == "ts-node" || base == "ruby":
		if x, ok := scriptOf(prog, args); ok {
			if p := w.abs(x); p != "" {
				code := map[string][]string{"python": pyCode, "ruby": rbCode}[base]
				if code == nil {
					code = jsCode
				}
				// And the working directory's tree: what the script
				// imports from the project (a sys.path it extends), and
				// the same files spelled through a link in the project.
				out = append(out, w.under(path.Dir(p), code)...)
				if h := w.here(); h != path.Dir(p) {
					out = append(out, w.under(h, code)...)
				}
			}
		}
	}
	return out
}

// withWrites returns ctx with more files its commands write (an enclosing
// statement's redirections).
func (ctx shellCtx) withWrites(ps []string) shellCtx {
	if len(ps) > 0 {
		ctx.writes = append(ctx.writes[:len(ctx.writes):len(ctx.writes)], ps...)
	}
	return ctx
}

// Source files by language, as obeyedFiles names them: what a test
// runner, build tool or interpreter compiles or imports from the tree it
// runs in. An agent that adds or edits any of them and runs the approved
// `go test ./...` runs what it wrote: a new zz_test.go, an init() in any
// file of the package, a scripts/json.py that `python3 scripts/gen.py`
// imports instead of the standard library's (the eleventh red-team pass
// did each). So the whole language is the runner's, not a list of test
// file names.
var (
	goCode   = []string{"**/*.go", "go.mod", "go.work"}
	rustCode = []string{"**/*.rs", "Cargo.toml", "Cargo.lock", "build.rs", ".cargo/", "rust-toolchain.toml", "rust-toolchain"}
	// Compiled modules and native extensions load as surely as source
	// (the twelfth pass wrote a scripts/json.pyc); node loads whatever a
	// package's "main" names, of any extension, so all of node_modules is
	// code.
	pyCode = []string{"**/*.py", "**/*.pth", "**/*.pyc", "**/*.so", "**/*.pyd", "**/*.zip"}
	jsCode = []string{"**/*.js", "**/*.mjs", "**/*.cjs", "**/*.ts", "**/*.mts", "**/*.cts", "**/*.jsx", "**/*.tsx",
		"**/*.node", "**/package.json", "node_modules/"}
	rbCode  = []string{"**/*.rb", "Gemfile", "Rakefile"}
	jvmCode = []string{"**/*.java", "**/*.kt", "**/*.kts", "**/*.groovy", "**/*.gradle", "pom.xml"}
	// A task runner's recipes run anything at all (make test ran the
	// agent's new test through go test): the code of every language
	// below it, and its own files.
	// Every pass found another kind of file a recipe runs (a .pyc, a
	// script without an extension), so for them it is every file below
	// but data: documents, tables, logs, images, the usual config
	// formats. The files of those formats that a tool runs or obeys are
	// listed by name where it matters (package.json, pytest.ini).
	anyCode = []string{"**/" + notData, "**/Makefile", "**/Taskfile.yml", "**/Taskfile.yaml", "package.json"}
)

// notData, as the name in "dir/**/" + notData, is any file below dir
// whose extension is not one of dataExts.
const notData = "*notdata"

// dataExts are the extensions of files a task runner's recipe reads and
// writes as data, never runs.
var dataExts = set(".md", ".markdown", ".txt", ".rst", ".adoc", ".csv", ".tsv", ".log", ".out", ".json", ".yaml", ".yml", ".toml",
	".xml", ".ini", ".lock", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".ico", ".webp", ".pdf", ".html", ".css", ".scss", ".map",
	".tgz", ".gz", ".zip", ".tar", ".d", ".sum", ".snap", ".golden")

// noExt, as the name in "dir/**/" + noExt, is any file without an
// extension below dir: the bin/setup, script/lint and configure scripts a
// task runner's recipe or a package's script runs (the fourteenth pass
// wrote script/lint with git log --output, and make test ran it).
const noExt = "*noext"

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// obeyedFiles are the files of the directory a program runs in that it
// reads and does what they say, or compiles and runs, by program (or by
// "program subcommand"): a Makefile's recipes, package.json's scripts,
// pytest's conftest.py and tests, git's hooks, the package go test
// builds. A name ending in "/" stands for everything below it (""
// for everything below the directory); one starting with "**/" for that
// name anywhere below the directory (name may open with "*": **/*.go).
var obeyedFiles = map[string][]string{
	"make":  join(anyCode),
	"gmake": join(anyCode),
	"just":  join(anyCode),
	"task":  join(anyCode),
	"rake":  join(anyCode),
	"npm":   join([]string{"package.json", ".npmrc", "**/*.sh", "package-lock.json", "npm-shrinkwrap.json", "**/" + noExt}, jsCode),
	"yarn":  join([]string{"package.json", ".yarnrc", ".yarnrc.yml", "**/*.sh", "yarn.lock", "**/" + noExt}, jsCode),
	"pnpm":  join([]string{"package.json", ".npmrc", ".pnpmfile.cjs", "**/*.sh", "pnpm-lock.yaml", "**/" + noExt}, jsCode),
	"bun":   join([]string{"package.json", "bunfig.toml", "bun.lock", "bun.lockb"}, jsCode),
	"npx":   join([]string{"package.json"}, jsCode),
	// pytest imports every module it collects, and what they import.
	"pytest":      join([]string{"pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"}, pyCode),
	"py.test":     join([]string{"pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"}, pyCode),
	"unittest":    pyCode,
	"jest":        join([]string{"package.json"}, jsCode),
	"vitest":      join([]string{"package.json"}, jsCode),
	"mocha":       join([]string{"package.json", ".mocharc.js", ".mocharc.yml"}, jsCode),
	"tox":         join([]string{"tox.ini", "pyproject.toml", "setup.py"}, pyCode),
	"nox":         join([]string{"noxfile.py"}, pyCode),
	"cargo":       rustCode,
	"go test":     goCode,
	"go run":      goCode,
	"go generate": goCode,
	"go tool":     goCode,
	"node --test": jsCode,
	"deno test":   jsCode,
	"bun test":    jsCode,
	// Anything below .git can make git run a program: hooks, config,
	// config.worktree, and commondir, which names another directory's
	// config (the twelfth pass set core.fsmonitor that way).
	// The hook directories core.hooksPath commonly names (husky's, the
	// pre-commit framework's config) are git's hooks too.
	"git": {".git/", ".gitattributes", ".gitmodules", "**/.gitattributes", ".husky/", ".githooks/", ".git-hooks/", ".hooks/",
		".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml"},
	"gradle":         join([]string{"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"}, jvmCode),
	"gradlew":        join([]string{"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"}, jvmCode),
	"mvn":            jvmCode,
	"composer":       {"composer.json", "**/*.php"},
	"bundle":         rbCode,
	"rspec":          rbCode,
	"docker":         {"Dockerfile", "compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml"},
	"docker-compose": {"compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml"},
}

// obeys returns the files of obeyedFiles for prog where it runs, as
// absolute names (with their "/" and "**/" forms kept).
func (w walker) obeys(prog string, args []word) []string {
	prog, args = asModule(prog, args)
	names := obeyedFiles[prog]
	if sub := subcommand(prog, args); sub != "" {
		if n, ok := obeyedFiles[prog+" "+strings.Fields(sub)[0]]; ok {
			names = n
		}
	}
	if prog == "node" || prog == "nodejs" {
		for _, a := range args {
			if a.text == "--test" {
				names = obeyedFiles["node --test"]
			}
		}
	}
	return w.under(w.here(), names)
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
// or, for "dir/**/name", a file called name below dir (name may open
// with "*": **/*.mk).
func RunsMatch(run, path string) bool {
	if dir, name, ok := strings.Cut(run, "/**/"); ok {
		if !strings.HasPrefix(path, dir+"/") {
			return false
		}
		base := path[strings.LastIndexByte(path, '/')+1:]
		if name == noExt {
			return base != "" && !strings.Contains(base, ".")
		}
		if name == notData {
			i := strings.LastIndexByte(base, '.')
			return base != "" && (i <= 0 || !dataExts[strings.ToLower(base[i:])])
		}
		if suffix, ok := strings.CutPrefix(name, "*"); ok {
			return strings.HasSuffix(base, suffix)
		}
		return base == name
	}
	if strings.HasSuffix(run, "/") {
		return strings.HasPrefix(path, run)
	}
	return run == path
}
