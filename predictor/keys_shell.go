package predictor

import (
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
	out := &shellParts{lim: lim}
	w := walker{out: out, cwd: cleanAbs(a.Cwd), home: HomeDir(a)}
	if !w.parse(cmd, shellCtx{}) || len(out.parts) == 0 {
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
}

func (s *shellParts) add(p Part) {
	if len(s.parts) >= s.lim.parts {
		s.overflow = true
		return
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
}

// shellCtx is what a statement inherits from the statements around it.
type shellCtx struct {
	piped  bool     // stdin comes from a pipe
	priv   string   // privilege wrapper of an enclosing `sudo bash -c`
	prefix string   // exact-key prefix of an enclosing `bash -c`
	redirs []string // key text of enclosing redirections
	marks  []string // risk marks of enclosing redirections
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
	inner := ctx.with(w.redirects(s.Redirs))
	switch c := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		w.stmt(c.X, inner)
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			inner.piped = true
		}
		w.stmt(c.Y, inner)
	case *syntax.Block:
		w.stmts(c.Stmts, inner)
	case *syntax.Subshell:
		w.stmts(c.Stmts, inner)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			w.stmts(c.Cond, inner)
			w.stmts(c.Then, inner)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond, inner)
		w.stmts(c.Do, inner)
	case *syntax.ForClause:
		w.scanNode(c.Loop)
		w.stmts(c.Do, inner)
	case *syntax.CaseClause:
		w.scanWord(c.Word)
		for _, item := range c.Items {
			for _, pat := range item.Patterns {
				w.scanWord(pat)
			}
			w.stmts(item.Stmts, inner)
		}
	case *syntax.FuncDecl:
		w.stmt(c.Body, inner)
	case *syntax.TimeClause:
		w.stmt(c.Stmt, inner)
	case *syntax.CoprocClause:
		w.stmt(c.Stmt, inner)
	case *syntax.TestDecl:
		w.stmt(c.Body, inner)
	case *syntax.DeclClause:
		w.scanNode(c)
		w.pseudo(c.Variant.Value, w.source(c), s.Redirs, ctx)
	case *syntax.TestClause:
		w.scanNode(c)
		w.pseudo("[[", w.source(c), s.Redirs, ctx)
	case *syntax.ArithmCmd:
		w.scanNode(c)
		w.pseudo("((", w.source(c), s.Redirs, ctx)
	case *syntax.LetClause:
		w.scanNode(c)
		w.pseudo("let", w.source(c), s.Redirs, ctx)
	default:
		w.scanNode(c)
	}
}

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
			w.stmts(n.Stmts, shellCtx{})
			return false
		case *syntax.ProcSubst:
			w.stmts(n.Stmts, shellCtx{})
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

// word is one shell word: its text with quotes removed when lit, else as
// written.
type word struct {
	text string
	lit  bool
}

func (w walker) word(sw *syntax.Word) word {
	if len(sw.Parts) == 1 {
		if l, ok := sw.Parts[0].(*syntax.Lit); ok && !strings.Contains(l.Value, `\`) {
			return word{l.Value, true}
		}
	}
	var b strings.Builder
	for _, p := range sw.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			unescape(&b, p.Value, false)
		case *syntax.SglQuoted:
			if p.Dollar {
				return word{w.source(sw), false}
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return word{w.source(sw), false}
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return word{w.source(sw), false}
				}
				unescape(&b, l.Value, true)
			}
		default:
			return word{w.source(sw), false}
		}
	}
	return word{b.String(), true}
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
	return strings.HasPrefix(p, "/dev/fd/")
}

// pseudo makes a part for a statement that is not a simple command:
// an assignment, a declaration, a test, a bare redirection.
func (w walker) pseudo(prog, text string, rs []*syntax.Redirect, ctx shellCtx) {
	texts, marks := w.redirects(rs)
	ctx = ctx.with(texts, marks)
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
	w.out.add(Part{Tool: "Bash", Subject: exact, Keys: l.done()})
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
			words = append(words, word{as.Name.Value + op + v.text, v.lit})
		} else {
			words = append(words, word{w.source(as), false})
		}
	}
	for _, a := range c.Args {
		words = append(words, w.word(a))
	}
	texts, marks := w.redirects(rs)
	ctx = ctx.with(texts, marks)
	if len(c.Args) == 0 {
		w.pseudo("<assign>", joinWords(words), nil, ctx)
		return
	}
	w.command(words, len(c.Assigns), ctx, rs)
}

// command makes the part(s) of a simple command whose program is at
// words[start]; earlier words are assignments.
func (w walker) command(words []word, start int, ctx shellCtx, rs []*syntax.Redirect) {
	start, priv := unwrap(words, start)
	if priv == "" {
		priv = ctx.priv
	}
	cmd := words[start:]
	if len(cmd) == 0 { // only assignments and wrappers: key the last wrapper
		start = len(words) - 1
		cmd = words[start:]
	}
	if w.nested(words, start, priv, ctx, rs) {
		return
	}
	prog := programName(cmd[0])
	sub := subcommand(prog, cmd[1:])
	marks := riskyFlags(prog, sub, cmd[1:])
	marks = append(marks, w.argMarks(prog, cmd[1:])...)
	marks = append(marks, ctx.marks...)
	if ctx.piped && readsScriptFromStdin(prog, cmd[1:]) {
		marks = append(marks, "<pipe")
	}
	if prog == "tee" {
		marks = append(marks, teeMarks(cmd[1:])...)
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
	if len(marks) > 0 {
		l.add("Bash:" + head + " [" + joinSorted(marks) + "]")
	}
	exact := joinWords(words)
	for _, t := range ctx.redirs {
		exact += " " + t
	}
	l.add("Bash:" + ctx.prefix + exact)
	w.out.add(Part{Tool: "Bash", Subject: joinWords(cmd), Keys: l.done()})

	if prog == "find" {
		w.findExec(cmd[1:], priv, ctx)
	}
}

// nested handles commands that run a shell string: `bash -c '…'`, `eval …`
// and `watch '…'`. The string's own commands become the parts; false means
// the command is keyed as it is.
func (w walker) nested(words []word, start int, priv string, ctx shellCtx, rs []*syntax.Redirect) bool {
	cmd := words[start:]
	prog := programName(cmd[0])
	script, at := "", -1
	switch {
	case shells[prog]:
		at = shellScriptArg(cmd)
	case prog == "eval" && len(cmd) > 1:
		at = 1
		for _, x := range cmd[1:] {
			if !x.lit {
				return false
			}
		}
		parts := make([]string, 0, len(cmd)-1)
		for _, x := range cmd[1:] {
			parts = append(parts, x.text)
		}
		script = strings.Join(parts, " ")
	case prog == "watch":
		at = skipOptions(cmd, 1, wrappers["watch"])
		if at != len(cmd)-1 {
			return false
		}
	}
	if at < 0 || at >= len(cmd) || !cmd[at].lit {
		return false
	}
	if script == "" {
		script = cmd[at].text
	}
	if strings.TrimSpace(script) == "" {
		return false
	}
	inner := ctx
	inner.priv = priv
	inner.prefix = ctx.prefix + joinWords(words[:start+at]) + " "
	if w.depth >= w.out.lim.depth || len(script) > w.out.lim.length {
		what := capTooLong
		if w.depth >= w.out.lim.depth {
			what = capTooDeep
		}
		w.out.capped = true
		w.out.add(opaquePart("Bash", what, script))
		return true
	}
	sub := walker{out: w.out, depth: w.depth + 1, cwd: w.cwd, home: w.home}
	before := len(w.out.parts)
	if !sub.parse(script, inner) {
		w.out.parts = w.out.parts[:before]
		w.out.add(opaquePart("Bash", "<unparsed>", script))
		return true
	}
	return len(w.out.parts) > before || w.out.overflow
}

// findExec makes a part for the command that `find -exec … ;` runs.
func (w walker) findExec(args []word, priv string, ctx shellCtx) {
	for i := 0; i < len(args); i++ {
		switch args[i].text {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(args) && !(args[j].lit && (args[j].text == ";" || args[j].text == "+")) {
			j++
		}
		if j > i+1 {
			inner := ctx
			inner.piped = false
			inner.priv = priv
			inner.prefix = ctx.prefix + "find -exec "
			w.command(args[i+1:j], 0, inner, nil)
		}
		i = j
	}
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
