package action

import (
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// maxCommandLen is the longest command text Parts parses; a longer one is
// opaque, so its parsing cost stays bounded.
const maxCommandLen = 32 << 10

// maxShellDepth bounds how deep `bash -c '…'` and `eval` strings are parsed.
const maxShellDepth = 3

var parserPool = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

func bashParts(a Action) []Part {
	parts, _ := bashPartsUpTo(a, shellLimits{parts: maxParts, length: maxCommandLen, depth: maxShellDepth})
	return parts
}

// commandDirFields are the fields of a shell tool's input that say where
// the command runs (Codex's workdir, Gemini CLI's directory).
var commandDirFields = []string{"workdir", "directory", "cwd"}

// shellLimits bound how much of a command is parsed into parts: Parts
// keeps the learning small (maxParts, maxCommandLen, maxShellDepth);
// CheckedParts goes much further, so that every part meets the block rules.
type shellLimits struct{ parts, length, depth int }

// bashPartsUpTo is bashParts within lim; capped says that some of the
// command lies beyond lim and was not split into parts.
func bashPartsUpTo(a Action, lim shellLimits) (parts []Part, capped bool) {
	raw, isString := a.Input["command"].(string)
	if !isString {
		return []Part{opaquePart("Bash", "<unparsed>", canonicalJSON(inputOrEmpty(a.Input)))}, false
	}
	cmd := strings.TrimSpace(raw)
	if cmd == "" {
		return []Part{opaquePart("Bash", "<empty>", "")}, false
	}
	if len(cmd) > lim.length {
		return []Part{opaquePart("Bash", capTooLong, cmd)}, true
	}
	out := &shellParts{lim: lim, self: a.Self}
	w := walker{out: out, cwd: cleanAbs(a.Cwd), home: HomeDir(a), top: cmd, vars: &shellVars{}, dir: &dirState{}}
	for _, field := range commandDirFields {
		v, ok := a.Input[field]
		if !ok {
			continue
		}
		// Codex's workdir and Gemini CLI's directory run the command
		// there, as a cd before it would (the tenth red-team pass: cat
		// README.md with workdir ~/.ssh).
		d, isString := v.(string)
		if !isString {
			return []Part{opaquePart("Bash", "<unparsed>", canonicalJSON(inputOrEmpty(a.Input)))}, false
		}
		if d = strings.TrimSpace(d); d != "" {
			at := w.resolveDir(w.cwd, word{text: d, lit: true})
			if at != w.cwd {
				w.dir = &dirState{moved: true, at: at}
			}
		}
	}
	out.cds = containsCd(cmd)
	bg, _ := a.Input["run_in_background"].(bool) // a background shell call (Claude Code's Bash tool field)
	if !w.parse(cmd, shellCtx{later: bg}) || len(out.parts) == 0 {
		return []Part{opaquePart("Bash", "<unparsed>", cmd)}, out.capped
	}
	if out.overflow {
		out.parts = append(out.parts, opaquePart("Bash", capTooMany, cmd))
	}
	return out.parts, out.capped || out.overflow
}

// shellParts collects the parts of one command line.
type shellParts struct {
	parts    []Part
	overflow bool
	// capped is set when a script within was left unparsed for lim's
	// length or depth.
	capped bool
	lim    shellLimits
	self   *Self // limen's own locations, for commandControl
	// cds says the command line may change directory: the bodies of its
	// loops and functions then run where limen cannot tell.
	cds bool
}

func (s *shellParts) add(p Part) {
	if len(s.parts) >= s.lim.parts {
		s.overflow = true
		return
	}
	if p.Opaque && p.Control == "" {
		p.Control = OpaqueControl(s.self, p.Subject, p.Keys.Exact())
	}
	s.parts = append(s.parts, p)
}

// walker turns one parsed shell text into parts. src is the text its
// positions refer to.
type walker struct {
	out   *shellParts
	src   string
	depth int
	// cwd and home place the paths a command names (a copy into ~/.bashrc
	// is not a copy inside the workspace).
	cwd, home string
	// top is the whole command line: the exact key of its opaque parts,
	// so only an approval of the very same text vouches for them.
	top string
	// vars is what the shell running this text has set literally so far.
	vars *shellVars
	// dir is where the shell's cd moved it (chdir.go); nil for walkers of
	// text that is not run by a shell of its own.
	dir *dirState
}

// shellCtx is what a statement inherits from the statements around it.
type shellCtx struct {
	piped  bool     // stdin comes from a pipe
	priv   string   // privilege wrapper of an enclosing `sudo bash -c`
	prefix string   // exact-key prefix of an enclosing `bash -c`
	redirs []string // key text of enclosing redirections
	marks  []string // risk marks of enclosing redirections
	cond   bool     // runs only sometimes (after && or ||, in a branch or loop): what it assigns is not known after
	stdin  bool     // an enclosing statement redirects standard input
	// input says the command gets more arguments from its input (the
	// command xargs runs): what it acts on is only known when it runs.
	input bool
	// writes are the files enclosing redirections write (dataflow.go).
	writes []string
	// later says it runs in the background: what it writes may be
	// written after the decisions that follow (WritesLaterMark).
	later bool
	// stdinFiles are the files enclosing input redirections read.
	stdinFiles []string
}

// parse parses src as a script and walks it; false means it did not parse.
func (w walker) parse(src string, ctx shellCtx) (ok bool) {
	p := parserPool.Get().(*syntax.Parser)
	defer func() {
		if recover() != nil {
			ok = false // a parser bug must not crash the decision point
			return
		}
		parserPool.Put(p)
	}()
	f, err := p.Parse(strings.NewReader(src), "")
	if err != nil {
		return false
	}
	w.src = src
	w.stmts(f.Stmts, ctx)
	return true
}

func (w walker) stmts(list []*syntax.Stmt, ctx shellCtx) {
	for _, s := range list {
		w.stmt(s, ctx)
	}
}

func (w walker) stmt(s *syntax.Stmt, ctx shellCtx) {
	if s == nil || w.out.overflow {
		return
	}
	for _, r := range s.Redirs {
		w.scanWord(r.Word)
		w.scanWord(r.Hdoc)
	}
	if s.Background {
		// It runs in a subshell of its own, alongside what follows.
		ctx.cond = true
		ctx.later = true
		w = w.subshell()
	}
	switch c := s.Cmd.(type) {
	case nil:
		if len(s.Redirs) > 0 {
			w.pseudo("<redirect>", "", s.Redirs, ctx)
		}
		return
	case *syntax.CallExpr:
		w.call(c, s.Redirs, ctx)
		return
	}
	inner := ctx.with(w.redirects(s.Redirs)).withWrites(w.redirectWrites(s.Redirs)).withInputs(w.redirectInputs(s.Redirs))
	if readsStdin(s.Redirs) {
		inner.stdin = true
	}
	switch c := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			// Each side of a pipe runs in a subshell.
			w.subshell().stmt(c.X, inner)
			inner.piped = true
			w.subshell().stmt(c.Y, inner)
			return
		}
		w.stmt(c.X, inner)
		inner.cond = true
		w.stmt(c.Y, inner)
	case *syntax.Block:
		w.stmts(c.Stmts, inner)
	case *syntax.Subshell:
		w.subshell().stmts(c.Stmts, inner)
	case *syntax.IfClause:
		inner.cond = true
		for ; c != nil; c = c.Else {
			w.stmts(c.Cond, inner)
			w.stmts(c.Then, inner)
		}
	case *syntax.WhileClause:
		// A later pass of a loop sees what its body assigned, and runs
		// where its cd moved it.
		w.vars.clear()
		w.loopDir()
		inner.cond = true
		w.stmts(c.Cond, inner)
		w.stmts(c.Do, inner)
	case *syntax.ForClause:
		w.vars.clear()
		w.loopDir()
		inner.cond = true
		w.scanNode(c.Loop)
		w.stmts(c.Do, inner)
	case *syntax.CaseClause:
		inner.cond = true
		w.scanWord(c.Word)
		for _, item := range c.Items {
			for _, pat := range item.Patterns {
				w.scanWord(pat)
			}
			w.stmts(item.Stmts, inner)
		}
	case *syntax.FuncDecl:
		// The body runs when called, when nothing known now may hold.
		if c.Name != nil && !w.vars.frozen {
			if w.vars.funcs == nil {
				w.vars.funcs = make(map[string]bool)
			}
			w.vars.funcs[c.Name.Value] = true
		}
		inner.cond = true
		body := w.copyDir()
		body.vars = &shellVars{}
		if w.out.cds {
			body.dir.moved, body.dir.at = true, "" // called after a cd, maybe
		}
		body.stmt(c.Body, inner)
	case *syntax.TimeClause:
		w.stmt(c.Stmt, inner)
	case *syntax.CoprocClause:
		inner.cond = true
		w.subshell().stmt(c.Stmt, inner)
	case *syntax.TestDecl:
		w.stmt(c.Body, inner)
	case *syntax.DeclClause:
		w.scanNode(c)
		w.declare(c, ctx)
		w.pseudo(c.Variant.Value, w.source(c), s.Redirs, ctx.withMarks(declMarks(c)))
		// export GIT_SSH_COMMAND='rm -rf ~' is run by the git after it.
		for _, a := range c.Args {
			if a.Name != nil && a.Value != nil && envRuns(a.Name.Value) != envNone {
				v := w.word(a.Value)
				as := word{text: a.Name.Value + "=" + v.text, lit: v.lit}
				w.assignmentRuns(&execCall{words: []word{as}, start: 1, ctx: ctx, rs: s.Redirs, priv: ctx.priv}, as)
			}
		}
	case *syntax.TestClause:
		w.scanNode(c)
		w.pseudo("[[", w.source(c), s.Redirs, ctx)
	case *syntax.ArithmCmd:
		w.scanNode(c)
		w.vars.clear() // (( a = 1 )) assigns
		w.pseudo("((", w.source(c), s.Redirs, ctx)
	case *syntax.LetClause:
		w.scanNode(c)
		w.vars.clear()
		w.pseudo("let", w.source(c), s.Redirs, ctx)
	default:
		w.scanNode(c)
	}
}

// subshell returns a walker for commands run in a subshell: it starts
// with what is known here, and what it sets stays there.
func (w walker) subshell() walker {
	w = w.copyDir()
	if len(w.vars.known) == 0 && !w.vars.ifs && len(w.vars.funcs) == 0 {
		w.vars = noVars
		return w
	}
	v := &shellVars{ifs: w.vars.ifs, funcs: w.vars.funcs}
	if len(w.vars.known) > 0 {
		v.known = make(map[string]string, len(w.vars.known))
		for k, x := range w.vars.known {
			v.known[k] = x
		}
	}
	w.vars = v
	return w
}

// readsStdin reports whether redirections give standard input.
func readsStdin(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if r.N == nil || r.N.Value == "0" {
				return true
			}
		}
	}
	return false
}

// declare records the variables a declaration sets: literal values of
// plain declarations are known after it, anything else is forgotten.
func (w walker) declare(c *syntax.DeclClause, ctx shellCtx) {
	plain := c.Variant.Value == "export" || c.Variant.Value == "readonly" || c.Variant.Value == "declare" || c.Variant.Value == "typeset" || c.Variant.Value == "local"
	for _, a := range c.Args {
		if a.Name == nil && a.Value != nil {
			if opt := w.word(a.Value); !opt.lit || opt.text != "-x" && opt.text != "-r" && opt.text != "-g" && opt.text != "--" {
				plain = false // -n makes a reference, -a an array, -i arithmetic
			}
		}
	}
	for _, a := range c.Args {
		if a.Name == nil {
			continue
		}
		name := a.Name.Value
		switch {
		case a.Naked:
			if c.Variant.Value != "export" && c.Variant.Value != "readonly" {
				w.vars.forget(name)
			}
		case plain && !ctx.cond && a.Value != nil && a.Array == nil && a.Index == nil && !a.Append:
			if v := w.word(a.Value); v.lit {
				w.vars.set(name, v.text)
				continue
			}
			w.vars.forget(name)
		default:
			w.vars.forget(name)
		}
	}
}

// declMarks marks declarations that print the environment: export -p,
// declare -x, declare -p, typeset -x, and export or declare alone.
func declMarks(c *syntax.DeclClause) []string {
	if len(c.Args) == 0 {
		switch c.Variant.Value {
		case "export", "declare", "typeset", "readonly":
			return []string{envDumpMark}
		}
		return nil
	}
	names := false
	for _, a := range c.Args {
		if a.Name != nil {
			names = true
		}
	}
	if names {
		return nil
	}
	for _, a := range c.Args {
		if a.Value == nil || len(a.Value.Parts) != 1 {
			continue
		}
		if l, ok := a.Value.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(l.Value, "-") && strings.ContainsAny(l.Value, "pxX") {
			return []string{envDumpMark}
		}
	}
	return nil
}

// withMarks returns ctx with more risk marks.
func (ctx shellCtx) withMarks(marks []string) shellCtx { return ctx.with(nil, marks) }

// with returns ctx extended by the redirections of an enclosing statement.
func (ctx shellCtx) with(texts, marks []string) shellCtx {
	if len(texts) > 0 {
		ctx.redirs = append(ctx.redirs[:len(ctx.redirs):len(ctx.redirs)], texts...)
	}
	if len(marks) > 0 {
		ctx.marks = append(ctx.marks[:len(ctx.marks):len(ctx.marks)], marks...)
	}
	return ctx
}

// scanWord walks the command substitutions inside a word: their commands
// become parts of their own.
func (w walker) scanWord(word *syntax.Word) {
	if word == nil {
		return
	}
	for _, p := range word.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
			continue
		}
		w.scanNode(word)
		return
	}
}

func (w walker) scanNode(n syntax.Node) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			// A subshell: what it assigns stays there.
			w.subshell().stmts(n.Stmts, shellCtx{})
			return false
		case *syntax.ProcSubst:
			// >(sh) reads what the command writes: code from a pipe.
			w.subshell().stmts(n.Stmts, shellCtx{piped: n.Op == syntax.CmdOut})
			return false
		}
		return true
	})
}

// source returns the text of a node as written.
func (w walker) source(n syntax.Node) string {
	start, end := n.Pos().Offset(), n.End().Offset()
	if start > end || end > uint(len(w.src)) {
		return ""
	}
	return w.src[start:end]
}

// word is one shell word after static expansion: its text when lit, else
// as written. A lit word may be a pattern (glob): the text is the pattern.
type word struct {
	text string
	lit  bool
	glob bool
	// computed: part of the text is a guess at what the shell computes
	// (${x:-word} with x unknown reads as word), so the word's value is
	// not certain though it is keyed as text.
	computed bool
}

// computedMark marks a command some of whose arguments are only known
// when it runs ("$X", $(…), a guessed ${x:-word}, what xargs appends):
// approving `git push origin feature` says nothing about `git push origin
// ${x:-+main}`, nor `cat README.md` about `xargs cat`.
const computedMark = "computed-args"

// computedArgs reports whether any argument is not a certain literal.
func computedArgs(args []word) bool {
	for _, a := range args {
		if !a.lit || a.computed {
			return true
		}
	}
	return false
}

// unescape removes shell backslash quoting: every backslash outside double
// quotes, and before $ ` " \ or newline inside them.
func unescape(b *strings.Builder, s string, dq bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		next := s[i+1]
		if dq && !strings.ContainsRune("$`\"\\\n", rune(next)) {
			b.WriteByte(c)
			continue
		}
		i++
		if next != '\n' {
			b.WriteByte(next)
		}
	}
}

// redirects returns the key text and risk marks of a statement's
// redirections. Writes to /dev/null and the like, and duplications of file
// descriptors (2>&1), are left out: they change no file and only hide
// output, so `npm test 2>&1` shares its keys with `npm test`.
func (w walker) redirects(rs []*syntax.Redirect) (texts, marks []string) {
	for _, r := range rs {
		target := word{}
		if r.Word != nil {
			target = w.word(r.Word)
		}
		n := ""
		if r.N != nil {
			n = r.N.Value
		}
		mark := ""
		switch r.Op {
		case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrAllClob, syntax.RdrInOut:
			mark = ">"
		case syntax.AppOut, syntax.AppAll, syntax.AppClob, syntax.AppAllClob:
			mark = ">>"
		case syntax.DplOut, syntax.DplIn:
			if !target.lit || !isFD(target.text) {
				mark = ">" // bash's `>& file` writes both streams to file
			} else {
				continue
			}
		}
		if mark != "" && target.lit && harmlessSink(target.text) {
			continue
		}
		if r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut {
			// < .env reads the file as surely as cat .env does.
			if m := readMark(target); m != "" {
				marks = append(marks, m)
			}
		}
		text := n + r.Op.String() + target.text
		if r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc {
			text = n + r.Op.String() + " " + target.text
		}
		if r.Hdoc != nil {
			text += "\n" + w.source(r.Hdoc)
		}
		texts = append(texts, text)
		if mark != "" {
			marks = append(marks, mark)
			// Where it writes: outside the project, and whether that is a
			// file that runs later (~/.bashrc, ~/.ssh/authorized_keys).
			if t := path.Clean(target.text); target.lit && (blockDevice(t) || strings.HasPrefix(t, "/proc/sys") || strings.HasPrefix(t, "/sys/")) {
				// > /dev/sda, > /proc/sysrq-trigger: a disk's blocks, the
				// kernel's switches.
				marks = append(marks, "destroys")
			}
			if target.lit && w.writesConfig(target.text) {
				// > .mcp.json, > CLAUDE.md, > .husky/pre-commit,
				// > .git/HEAD: what an ordinary command, or the next
				// agent session, runs or obeys (the twelfth pass).
				marks = append(marks, "runs-config")
			}
			switch {
			case !target.lit:
				marks = append(marks, "write-outside")
			case w.outside(target.text):
				marks = append(marks, "write-outside")
				if w.startupFile(target.text) {
					marks = append(marks, WritesStartupMark)
				}
			}
		}
	}
	return texts, marks
}

func isFD(s string) bool {
	if s == "-" {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// harmlessSink reports whether writing to p changes no file.
func harmlessSink(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	n, ok := strings.CutPrefix(p, "/dev/fd/")
	return ok && isFD(n) && n != "-" // /dev/fd/3, not /dev/fd/../cwd/Makefile
}

// pseudo makes a part for a statement that is not a simple command:
// an assignment, a declaration, a test, a bare redirection.
func (w walker) pseudo(prog, text string, rs []*syntax.Redirect, ctx shellCtx) {
	texts, marks := w.redirects(rs)
	ctx = ctx.with(texts, marks).withWrites(w.redirectWrites(rs)).withInputs(w.redirectInputs(rs))
	l := ladder{"Bash"}
	l.add("Bash:" + prog)
	if len(ctx.marks) > 0 {
		l.add("Bash:" + prog + " [" + joinSorted(ctx.marks) + "]")
	}
	exact := text
	for _, t := range ctx.redirs {
		exact = joinSpace(exact, t)
	}
	l.add("Bash:" + ctx.prefix + exact)
	w.out.add(Part{Tool: "Bash", Subject: exact, Keys: l.done(), Writes: ctx.writes,
		Control: w.commandControl([]word{{text: prog, lit: true}}, 0, ctx.redirs)})
}

func (w walker) call(c *syntax.CallExpr, rs []*syntax.Redirect, ctx shellCtx) {
	for _, as := range c.Assigns {
		w.scanWord(as.Value)
		if as.Array != nil || as.Index != nil {
			w.scanNode(as)
		}
	}
	for _, a := range c.Args {
		w.scanWord(a)
	}
	words := make([]word, 0, len(c.Assigns)+len(c.Args))
	for _, as := range c.Assigns {
		if as.Name != nil && as.Value != nil && as.Array == nil && as.Index == nil {
			v := w.word(as.Value)
			op := "="
			if as.Append {
				op = "+="
			}
			words = append(words, word{text: as.Name.Value + op + v.text, lit: v.lit})
		} else {
			words = append(words, word{text: w.source(as)})
		}
	}
	nAssign := len(words)
	for _, a := range c.Args {
		words = w.fields(a, words)
	}
	texts, marks := w.redirects(rs)
	ctx = ctx.with(texts, marks).withWrites(w.redirectWrites(rs)).withInputs(w.redirectInputs(rs))
	if len(c.Args) == 0 {
		// Plain assignments: the values are known after them, unless they
		// run only sometimes or could not be read.
		for i, as := range c.Assigns {
			if as.Name == nil {
				continue
			}
			if !ctx.cond && words[i].lit && as.Value != nil && as.Array == nil && as.Index == nil && !as.Append {
				w.vars.set(as.Name.Value, strings.TrimPrefix(words[i].text, as.Name.Value+"="))
			} else {
				w.vars.forget(as.Name.Value)
			}
		}
		w.pseudo("<assign>", joinWords(words), nil, ctx)
		// PAGER='rm -rf ~' (exported already, or later) is run by git log.
		for k := range words {
			w.assignmentRuns(&execCall{words: words, start: len(words), ctx: ctx, rs: rs, priv: ctx.priv}, words[k])
		}
		return
	}
	for _, as := range c.Assigns {
		if as.Name != nil {
			w.vars.forget(as.Name.Value)
		}
	}
	if nAssign == len(words) {
		// Every argument expanded to nothing: "$empty" runs nothing, but
		// limen cannot tell; key what was written.
		w.opaque(joinWords(words), "its words expand to nothing limen can read", ctx.marks)
		return
	}
	for k := range nAssign {
		if w.assignmentRuns(&execCall{words: words, start: nAssign, ctx: ctx, rs: rs, priv: ctx.priv}, words[k]) {
			return
		}
	}
	w.command(words, nAssign, ctx, rs)
	if prog := programName(words[nAssign]); varSetters[prog] || w.vars.funcs[prog] {
		w.vars.clear()
	}
}

// varSetters are the builtins that may set any variable, so nothing
// known before them is known after.
var varSetters = set("read", "mapfile", "readarray", "getopts", "printf", "unset", "source", ".", "eval", "wait", "set", "shopt", "enable", "cd", "pushd", "popd", "select", "declare", "typeset", "local", "export", "readonly")

// maxWrappers bounds how many wrappers one command is seen through.
const maxWrappers = 8

// command makes the part(s) of a simple command whose program is at
// words[start]; earlier words are assignments.
func (w walker) command(words []word, start int, ctx shellCtx, rs []*syntax.Redirect) {
	priv := ctx.priv
	for n := 0; ; n++ {
		if n == maxWrappers {
			// nice nice … rm: past the bound, what runs is not read.
			w.opaque(joinWords(words[start:]), "it wraps commands in more wrappers than limen follows", ctx.marks)
			return
		}
		head := words[start]
		if !head.lit || head.glob || head.computed || head.text == "" {
			// $a, "$(echo rm)", ${IFS}, r?: what runs is only known when
			// it runs.
			w.opaque(joinWords(words[start:]), "its program ("+head.text+") is only known when it runs", ctx.marks)
			return
		}
		prog := programName(head)
		// Each program crossed (a wrapper, then what it runs) is seen
		// here, expanded: the place for checks on every program word.
		rule, ok := execRuleFor(prog)
		if !ok {
			break
		}
		c := &execCall{rule: rule, words: words, start: start, ctx: ctx, rs: rs, priv: priv}
		next, done := w.seeThrough(c)
		if spec, ok := wrapperChdir[prog]; ok && next > start {
			// env -C DIR, sudo -D DIR: what it runs, runs in DIR.
			if dir, moved := w.chdirOf(spec, c.words[start+1:next], w.here()); moved {
				w = w.runsAt(dir)
			}
		}
		if rule.keep {
			// The program is keyed too: ssh HOST, docker run IMAGE.
			if next > start {
				w.command(words, next, ctx.withPriv(priv), rs)
			}
			break
		}
		if done {
			return
		}
		if next <= start || next >= len(words) {
			break
		}
		if rule.priv {
			priv = prog
		}
		if prog == "xargs" {
			ctx.input = true
		}
		start = next
	}
	cmd := words[start:]
	prog := programName(cmd[0])
	if prog == "cd" || prog == "pushd" || prog == "popd" {
		// What follows runs there; the cd itself is checked where it
		// starts (controls.go refuses a cd into limen's directories).
		defer w.cd(prog, cmd[1:], ctx.cond)
	}
	if spec, ok := programChdir[prog]; ok {
		// git -C DIR, make -C DIR: it acts on DIR, and runs what DIR
		// holds.
		if dir, moved := w.chdirOf(spec, cmd[1:], w.here()); moved {
			w = w.runsAt(dir)
		}
	}
	sub := subcommand(prog, cmd[1:])
	marks := riskyFlags(prog, sub, cmd[1:])
	marks = append(marks, w.argMarks(prog, cmd[1:])...)
	marks = append(marks, installMarks(prog, sub, cmd[1:])...)
	marks = append(marks, w.outputMarks(prog, cmd[1:])...)
	marks = append(marks, taskMarks(prog, sub, cmd[1:])...)        // tasks.go
	marks = append(marks, w.elsewhereMarks(prog, sub, cmd[1:])...) // runs_elsewhere.go
	marks = append(marks, hostMarks(prog, cmd[1:])...)             // network.go
	marks = append(marks, ctx.marks...)
	if ctx.input || computedArgs(cmd[1:]) {
		marks = append(marks, computedMark)
	}
	if configEnv(words[:start]) || (prog == "make" || prog == "gmake") && makeEnv(cmd[1:]) {
		marks = append(marks, "config-env")
	}
	marks = append(marks, envMarks(words[:start])...)
	if ctx.piped && readsPatchFromStdin(prog, sub, cmd[1:]) {
		marks = append(marks, "<pipe")
	}
	if prog == "make" || prog == "gmake" {
		marks = append(marks, makefileMarks(words[:start], cmd[1:])...)
	}
	if envDump(prog, cmd[1:]) {
		marks = append(marks, envDumpMark)
	}
	if ctx.piped && readsScriptFromStdin(prog, cmd[1:]) {
		marks = append(marks, "<pipe")
	}
	if prog == "tee" {
		marks = append(marks, teeMarks(cmd[1:])...)
	}
	if w.runsElsewhere() {
		marks = append(marks, elsewhereMark)
	}
	p := Part{Tool: "Bash", Subject: joinWords(cmd),
		Writes:  append(slices.Clip(ctx.writes), w.commandWrites(prog, cmd[1:])...),
		Runs:    append(w.runsFiles(cmd[0], prog, cmd[1:]), w.obeyedInputs(prog, words[:start], cmd[1:], ctx.stdinFiles)...),
		Control: w.commandControl(words, start, ctx.redirs)}
	p.Restores, p.Imports = w.gitRestores(prog, cmd[1:])
	if ctx.later && (len(p.Writes) > 0 || len(p.Restores) > 0) {
		// A job that writes after the person approves the next build
		// puts the agent's file in place unseen (the fifteenth pass:
		// (tail -f notes | head -1; cp notes scripts/build.js) &).
		marks = append(marks, WritesLaterMark)
	}
	if ctx.later && len(p.Runs) > 0 {
		// A runner left running (a dev server, a watcher) runs what the
		// agent writes after it, with no decision in between: its own
		// decision, not the foreground run's (docs/SECURITY.md).
		marks = append(marks, "runs-later")
	}

	l := ladder{"Bash"}
	head := prog
	if priv != "" {
		l.add("Bash:" + priv)
		head = priv + " " + prog
	}
	if priv == "" || sub == "" {
		l.add("Bash:" + head)
	}
	if sub != "" {
		head += " " + sub
		l.add("Bash:" + head)
	}
	systemAt := !w.runsElsewhere() && w.systemDir(w.here())
	if systemAt {
		marks = append(marks, "cwd-system")
	}
	if len(marks) > 0 {
		l.add("Bash:" + head + " [" + joinSorted(marks) + "]")
	}
	exact := joinWords(words)
	for _, t := range ctx.redirs {
		exact += " " + t
	}
	if ctx.later {
		exact += " &" // left running: not the command a person approved in the foreground
	}
	if systemAt {
		// rm -rf bin with the runtime's cwd at / (after a cd / in an
		// earlier call) is not the rm -rf bin approved in the project
		// (the fourteenth pass).
		exact += " @" + w.here()
	}
	if w.runsElsewhere() && !w.dir.named {
		// The same words run elsewhere are another action: `make` after
		// `cd /tmp/evil` must not be the exact key a person approved in
		// the project (the tenth red-team pass), nor a session grant's.
		at := w.here()
		if at == "" {
			at = "?"
		}
		exact += " @" + at
	}
	l.exact("Bash:" + ctx.prefix + exact)
	p.Keys = l.done()
	w.out.add(p)
}

// opaque adds a part limen cannot read: subject is its text as written,
// for rules, and its exact key is the whole command line.
func (w walker) opaque(subject, why string, marks []string) {
	l := ladder{"Bash"}
	l.add("Bash:<opaque>")
	if len(marks) > 0 {
		l.add("Bash:<opaque> [" + joinSorted(marks) + "]")
	}
	l.add("Bash:<opaque> " + w.top)
	// What limen cannot read can run any file where it runs: the exact
	// python3 -c 'import report' a person approved imports the
	// report.py an agent writes after it.
	w.out.add(Part{Tool: "Bash", Subject: subject, Keys: l.done(), Opaque: true, Why: why, Runs: w.under(w.here(), anyCode)})
}

func joinWords(ws []word) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0].text
	}
	n := len(ws) - 1
	for _, x := range ws {
		n += len(x.text)
	}
	var b strings.Builder
	b.Grow(n)
	for i, x := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x.text)
	}
	return b.String()
}

func joinSpace(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// joinSorted sorts and de-duplicates marks and joins them with spaces.
func joinSorted(marks []string) string {
	if len(marks) == 1 {
		return marks[0]
	}
	s := append([]string(nil), marks...)
	sort.Strings(s)
	out := s[:0]
	for i, m := range s {
		if i == 0 || m != s[i-1] {
			out = append(out, m)
		}
	}
	return strings.Join(out, " ")
}
