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
