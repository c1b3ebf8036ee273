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
	if base := interpreterBase(prog); base == "python" {
		for i, a := range args {
			if a.text == "-m" && i+1 < len(args) {
				m := args[i+1]
				if m.lit && !strings.ContainsAny(m.text, "./") {
					add(word{text: m.text + ".py", lit: true})
					add(word{text: m.text + "/__main__.py", lit: true})
				}
				break
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

// obeyedFiles are the files of the directory a program runs in that it
// reads and does what they say, by program: a Makefile's recipes,
// package.json's scripts, pytest's conftest.py, git's hooks. An agent that
// edits one and runs the approved `make test` runs what it wrote, as
// surely as with `python3 notes.md`. A name ending in "/" stands for
// everything below it; one starting with "**/" for that name anywhere
// below the directory (a conftest.py of any test directory).
var obeyedFiles = map[string][]string{
	"make":  {"Makefile", "makefile", "GNUmakefile", "**/*.mk"},
	"gmake": {"Makefile", "makefile", "GNUmakefile", "**/*.mk"},
	"just":  {"justfile", "Justfile", ".justfile"},
	"task":  {"Taskfile.yml", "Taskfile.yaml", "taskfile.yml"},
	"rake":  {"Rakefile", "rakefile", "lib/tasks/"},
	"npm":   {"package.json", ".npmrc"},
	"yarn":  {"package.json", ".yarnrc", ".yarnrc.yml"},
	"pnpm":  {"package.json", ".npmrc", ".pnpmfile.cjs"},
	"bun":   {"package.json", "bunfig.toml"},
	// pytest runs the tests it collects: an agent's new test_*.py is code
	// the approved pytest runs (the tenth red-team pass).
	"pytest":         {"**/conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", "**/test_*.py", "**/*_test.py"},
	"jest":           {"**/*.test.js", "**/*.test.ts", "**/*.spec.js", "**/*.spec.ts", "jest.config.js", "jest.config.ts"},
	"vitest":         {"**/*.test.js", "**/*.test.ts", "**/*.spec.js", "**/*.spec.ts", "vitest.config.ts", "vite.config.ts"},
	"tox":            {"tox.ini", "pyproject.toml", "setup.py"},
	"nox":            {"noxfile.py"},
	"cargo":          {"build.rs", "Cargo.toml", ".cargo/"},
	"git":            {".git/hooks/", ".git/config", ".gitattributes"},
	"gradle":         {"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"},
	"mvn":            {"pom.xml"},
	"composer":       {"composer.json"},
	"bundle":         {"Gemfile"},
	"docker":         {"Dockerfile", "compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml"},
	"docker-compose": {"compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml"},
}

// obeys returns the files of obeyedFiles for prog where it runs, as
// absolute names (with their "/" and "**/" forms kept).
func (w walker) obeys(prog string, args []word) []string {
	prog, _ = asModule(prog, args)
	names := obeyedFiles[prog]
	here := w.here()
	if len(names) == 0 || here == "" || !strings.HasPrefix(here, "/") {
		return nil
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		if rest, ok := strings.CutPrefix(n, "**/"); ok {
			out = append(out, here+"/**/"+rest)
			continue
		}
		out = append(out, path.Join(here, n)+map[bool]string{true: "/"}[strings.HasSuffix(n, "/")])
	}
	return out
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
