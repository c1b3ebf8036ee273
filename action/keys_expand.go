package action

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Static expansion: a command is keyed by the words the shell would run,
// not by how they are spelled. `{rm,-rf,~}`, `'r'm -rf ~`, `$'\x72m' -rf ~`
// and `a=rm; $a -rf ~` are all `rm -rf ~`. What cannot be known without
// running something (a command substitution, a variable set outside the
// script or under a condition, ${IFS}) stays non-literal, and a command word
// that is not literal makes its part opaque.

// maxFields bounds how many words brace expansion may make of one word;
// more is not taken as literal (the word stays as written).
const maxFields = 64

// shellVars is what one shell process has set literally so far: the
// variables a later $name can be expanded from. It is shared by the walker
// of a script and of the eval strings it runs (one process), never by a
// `bash -c` child, which starts with nothing known.
type shellVars struct {
	known map[string]string
	// ifs is set once the script assigns IFS: field splitting is then no
	// longer known, so no unquoted expansion is.
	ifs bool
	// funcs are the functions the script declared: calling one may set
	// anything.
	funcs map[string]bool
	// frozen marks noVars, which knows nothing and learns nothing.
	frozen bool
}

// noVars stands for the variables of a subshell of a shell that knows
// none: what it assigns stays unknown (it dies with the subshell anyway),
// and a pipeline costs no allocation.
var noVars = &shellVars{frozen: true}

func (v *shellVars) get(name string) (string, bool) {
	if v == nil || name == "IFS" {
		return "", false
	}
	s, ok := v.known[name]
	return s, ok
}

func (v *shellVars) set(name, value string) {
	if v == nil || v.frozen {
		return
	}
	if name == "IFS" {
		v.ifs = true
		return
	}
	if v.known == nil {
		v.known = make(map[string]string)
	}
	v.known[name] = value
}

func (v *shellVars) forget(name string) {
	if v == nil || v.frozen {
		return
	}
	if name == "IFS" {
		v.ifs = true
	}
	delete(v.known, name)
}

// clear forgets every variable, after anything that may have set any.
func (v *shellVars) clear() {
	if v != nil && !v.frozen {
		clear(v.known)
	}
}

// fields appends the words sw expands to. A word that cannot be expanded
// statically is one non-literal word: its text as written.
func (w walker) fields(sw *syntax.Word, out []word) []word {
	if len(sw.Parts) == 1 {
		if l, ok := sw.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(l.Value, "\\{*?[") {
			return append(out, word{text: l.Value, lit: true})
		}
	}
	raw := w.source(sw)
	if hasBrace(sw) {
		if fs, ok := w.braceFields(sw, raw, out); ok {
			return fs
		}
	}
	n := len(out)
	out, ok := w.expandParts(sw.Parts, true, out)
	if !ok {
		return append(out[:n], word{text: raw})
	}
	return out
}

// braceFields expands the braces of sw and each word they make; false
// when sw has no brace expansion after all. (A function of its own: the
// range over BracesSeq makes its variables escape, and most words have no
// braces.)
func (w walker) braceFields(sw *syntax.Word, raw string, out []word) ([]word, bool) {
	// SplitBraces rewrites the word's parts: give it a copy, so the tree
	// keeps the text positions source relies on.
	cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), sw.Parts...)}
	if !syntax.SplitBraces(cp) {
		return out, false
	}
	var words []*syntax.Word
	for bw, err := range expand.BracesSeq(nil, cp) {
		if err != nil || len(words) >= maxFields {
			return append(out, word{text: raw}), true
		}
		words = append(words, bw)
	}
	n := len(out)
	for _, bw := range words {
		var ok bool
		if out, ok = w.expandParts(bw.Parts, true, out); !ok {
			return append(out[:n], word{text: raw}), true
		}
	}
	return out, true
}

// word expands sw to exactly one word, as an assignment's value or a
// redirection's target: anything else is non-literal.
func (w walker) word(sw *syntax.Word) word {
	fs, ok := w.expandParts(sw.Parts, false, nil)
	if !ok || len(fs) != 1 {
		return word{text: w.source(sw)}
	}
	return fs[0]
}

func hasBrace(sw *syntax.Word) bool {
	for _, p := range sw.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// field is a word being built by expandParts.
type field struct {
	b      strings.Builder
	glob   bool // holds an unquoted pattern character
	quoted bool // holds a quoted part: kept even when empty
	guess  bool // holds a guessed expansion (${x:-word}, x unknown)
	any    bool // holds unquoted text
}

func (f *field) done(out []word) []word {
	if f.any || f.quoted {
		out = append(out, word{text: f.b.String(), lit: true, glob: f.glob, computed: f.guess})
	}
	*f = field{}
	return out
}

// expandParts expands the parts of one brace-free word and appends the
// resulting words; false means they cannot be known without running
// something. With split, unquoted expansions are split into words and an
// empty unquoted word disappears, as the shell does.
func (w walker) expandParts(parts []syntax.WordPart, split bool, out []word) ([]word, bool) {
	var f field
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			f.lit(p.Value)
		case *syntax.SglQuoted:
			f.quoted = true
			if p.Dollar {
				ansiC(&f.b, p.Value)
			} else {
				f.b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			f.quoted = true
			for _, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					unescape(&f.b, q.Value, true)
				case *syntax.ParamExp:
					v, ok, guess := w.param(q)
					if !ok {
						return out, false
					}
					f.guess = f.guess || guess
					f.b.WriteString(v)
				default:
					return out, false
				}
			}
		case *syntax.ParamExp:
			v, ok, guess := w.param(p)
			if !ok || split && w.vars != nil && w.vars.ifs {
				return out, false
			}
			f.guess = f.guess || guess
			if !split {
				f.b.WriteString(v)
				f.any = f.any || v != ""
				f.glob = f.glob || strings.ContainsAny(v, "*?[")
				continue
			}
			for i := 0; i < len(v); i++ {
				switch c := v[i]; c {
				case ' ', '\t', '\n':
					out = f.done(out)
				case '*', '?', '[':
					f.glob = true
					fallthrough
				default:
					f.b.WriteByte(c)
					f.any = true
				}
			}
		case *syntax.ExtGlob:
			f.glob, f.any = true, true
			f.b.WriteString(p.Op.String())
			f.b.WriteString(p.Pattern.Value)
			f.b.WriteByte(')')
		default:
			// Command, process and arithmetic substitutions, and anything
			// else: only running it would tell.
			if _, ok := p.(*syntax.ArithmExp); ok {
				w.vars.clear() // $((a=1)) assigns
			}
			return out, false
		}
	}
	if !split && !f.any && !f.quoted {
		return append(out, word{lit: true}), true // a=
	}
	return f.done(out), true
}

// lit adds unquoted literal text: backslashes quote the next character,
// and *, ? and [ … ] are pattern characters.
func (f *field) lit(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				f.b.WriteByte(s[i])
				f.any = true
			}
			continue
		case c == '*' || c == '?':
			f.glob = true
		case c == '[' && strings.IndexByte(s[i+1:], ']') >= 0:
			f.glob = true
		}
		f.b.WriteByte(c)
		f.any = true
	}
}

// param returns the value of a parameter expansion the script set
// literally earlier, or false. Only plain $name and ${name} are known;
// ${name:=x} and the like assign, so the name is forgotten.
//
// ${x:-word}, ${x-word}, ${x:+word} and ${x+word} of an x the script did
// not set read as word, a guess (guess is true): what an attacker writes
// there is what they mean to run (git push origin ${x:-+main}), so it is
// keyed and ruled on as if the shell took it, and marked as computed.
func (w walker) param(pe *syntax.ParamExp) (v string, ok, guess bool) {
	if pe.Param == nil {
		return "", false, false
	}
	if pe.Exp != nil && (pe.Exp.Op == syntax.AssignUnset || pe.Exp.Op == syntax.AssignUnsetOrNull) {
		w.vars.forget(pe.Param.Value)
		return "", false, false
	}
	if pe.Flags != nil || pe.Excl || pe.Length || pe.Width || pe.IsSet || pe.NestedParam != nil || pe.Index != nil ||
		len(pe.Modifiers) > 0 || pe.Slice != nil || pe.Repl != nil || pe.Names != 0 ||
		pe.Split != syntax.OptUnset || pe.GlobSubst != syntax.OptUnset || pe.RcExpand != syntax.OptUnset {
		return "", false, false
	}
	if pe.Exp != nil {
		switch pe.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		default:
			return "", false, false
		}
		if _, known := w.vars.get(pe.Param.Value); known || pe.Exp.Word == nil {
			return "", false, false
		}
		fs, ok := w.expandParts(pe.Exp.Word.Parts, false, nil)
		if !ok || len(fs) != 1 {
			return "", false, false
		}
		return fs[0].text, true, true
	}
	v, ok = w.vars.get(pe.Param.Value)
	return v, ok, false
}

// ansiC decodes the body of a $'…' string as bash does; a NUL ends it.
func ansiC(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		var r rune
		asByte := true // \x and octal escapes are bytes, \u and \U characters
		switch e := s[i]; e {
		case 'a':
			r = 7
		case 'b':
			r = 8
		case 'e', 'E':
			r = 27
		case 'f':
			r = 12
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'v':
			r = 11
		case '\\', '\'', '"', '?':
			r = rune(e)
		case 'c':
			if i+1 < len(s) {
				i++
				r = rune(s[i] & 0x1f)
			} else {
				b.WriteString(`\c`)
				continue
			}
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			v, k := digits(s[i+1:], n, 16)
			if k == 0 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			i += k
			r = rune(v)
			asByte = e == 'x'
		default:
			if e >= '0' && e <= '7' {
				v, k := digits(s[i:], 3, 8)
				i += k - 1
				r = rune(v & 0xff)
				break
			}
			b.WriteByte('\\')
			b.WriteByte(e)
			continue
		}
		if r == 0 {
			return
		}
		if asByte && r < 256 {
			b.WriteByte(byte(r))
		} else {
			b.WriteRune(r)
		}
	}
}

// digits reads up to n digits of base from s: their value and count.
func digits(s string, n, base int) (int, int) {
	v, k := 0, 0
	for k < n && k < len(s) {
		d := strings.IndexByte("0123456789abcdef", lower(s[k]))
		if d < 0 || d >= base {
			break
		}
		v = v*base + d
		k++
	}
	return v, k
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
