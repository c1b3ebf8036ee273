package action

// The glob automata behind the secret check: a path pattern is compiled to
// an automaton over runes (nfa), two automata meet when their product
// reaches a pair of final states, and the credential patterns are also
// walked as a subset automaton (dfa) built as literal paths need it.

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// isLiteral reports whether p holds no glob syntax.
func isLiteral(p string) bool { return !strings.ContainsAny(p, `*?[\`) && !hasExtglob(p) }

func hasExtglob(p string) bool {
	for i := 0; i+1 < len(p); i++ {
		if p[i+1] == '(' && strings.IndexByte("?*+@!", p[i]) >= 0 {
			return true
		}
	}
	return false
}

// expandBraces returns the alternatives of p's brace groups ({a,b} and
// nested ones), at most max; ok is false past that. A group that is a
// sequence ({1..9}) or a lone brace is left to read as a wildcard.
func expandBraces(p string, max int) (alts []string, ok bool) {
	open := -1
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth > 0 {
				continue
			}
			inner := p[open+1 : i]
			parts := splitTop(inner)
			if len(parts) < 2 {
				if strings.Contains(inner, "..") {
					// {1..9}, {a..z}: any text, more broadly than it is.
					return expandBraces(p[:open]+"*"+p[i+1:], max)
				}
				continue
			}
			var out []string
			for _, part := range parts {
				sub, ok := expandBraces(p[:open]+part+p[i+1:], max-len(out))
				if !ok {
					return nil, false
				}
				out = append(out, sub...)
				if len(out) > max {
					return nil, false
				}
			}
			return out, true
		}
	}
	return []string{p}, true
}

// splitTop splits s at the commas outside nested braces.
func splitTop(s string) []string {
	var parts []string
	depth, last := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[last:i])
				last = i + 1
			}
		}
	}
	return append(parts, s[last:])
}

// runeRange is an inclusive range of runes.
type runeRange struct{ lo, hi rune }

// runeSet is a set of runes as sorted, disjoint ranges.
type runeSet []runeRange

var (
	anyRune  = runeSet{{0, unicode.MaxRune}}
	notSlash = runeSet{{0, '/' - 1}, {'/' + 1, unicode.MaxRune}}
)

func (a runeSet) meets(b runeSet) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i].hi < b[j].lo {
			i++
		} else if b[j].hi < a[i].lo {
			j++
		} else {
			return true
		}
	}
	return false
}

// normalise sorts and merges ranges.
func (a runeSet) normalise() runeSet {
	for i := 1; i < len(a); i++ { // insertion sort: classes are short
		for j := i; j > 0 && a[j].lo < a[j-1].lo; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
	var out runeSet
	for _, r := range a {
		if r.lo > r.hi {
			continue
		}
		if n := len(out); n > 0 && r.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// complement returns the runes not in a (a normalised).
func (a runeSet) complement() runeSet {
	var out runeSet
	next := rune(0)
	for _, r := range a {
		if r.lo > next {
			out = append(out, runeRange{next, r.lo - 1})
		}
		next = r.hi + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, runeRange{next, unicode.MaxRune})
	}
	return out
}

// foldWithoutSlash adds the lower case of each ASCII capital in a and
// takes out the slash, which no glob character matches.
func (a runeSet) foldWithoutSlash() runeSet {
	out := append(runeSet(nil), a...)
	for _, r := range a {
		lo, hi := max(r.lo, 'A'), min(r.hi, 'Z')
		if lo <= hi {
			out = append(out, runeRange{lo + 'a' - 'A', hi + 'a' - 'A'})
		}
	}
	out = out.normalise()
	var cut runeSet
	for _, r := range out {
		if r.lo <= '/' && '/' <= r.hi {
			cut = append(cut, runeRange{r.lo, '/' - 1}, runeRange{'/' + 1, r.hi})
		} else {
			cut = append(cut, r)
		}
	}
	return cut.normalise()
}

// nfa is a nondeterministic automaton over runes. A state with row >= 0 is
// final (row tells the credential row of a union).
type nfa struct {
	states []nstate
	spare  []nedge // room for the edges of states to come, so a glob compiles in few allocations
}

type nstate struct {
	edges []nedge
	eps   []int32
	row   int32
}

type nedge struct {
	set runeSet
	to  int32
}

func (n *nfa) add() int32 {
	if len(n.spare) < 2 {
		n.spare = make([]nedge, 2*max(8, cap(n.states)-len(n.states)))
	}
	edges := n.spare[:0:2] // most states have one or two edges; more reallocate
	n.spare = n.spare[2:]
	n.states = append(n.states, nstate{edges: edges, row: -1})
	return int32(len(n.states) - 1)
}

func (n *nfa) edge(from int32, set runeSet, to int32) {
	n.states[from].edges = append(n.states[from].edges, nedge{set, to})
}

// compile adds the glob p from state cur and returns its end state. The
// syntax is read as broadly as the tools that take it: * and ? and classes
// stop at "/", ** as a whole component spans directories (and elsewhere
// is any text), extglob groups are any text within a component, a
// backslash quotes the next character, and letters match either case.
// Unless dotglob is set, a wildcard does not match the dot that starts a
// hidden name, as in the shell, fnmatch, the glob libraries and ripgrep,
// which skips hidden files: `*` does not read .env, `.*` does.
func (n *nfa) compile(cur int32, p string, dotglob bool) int32 {
	first := notSlash // what a wildcard may match at the start of a name
	if !dotglob {
		first = runeSet{{0, '.' - 1}, {'/' + 1, unicode.MaxRune}}
	}
	for i := 0; i < len(p); {
		start := i == 0 || p[i-1] == '/'
		r, size := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == '\\' && i+1 < len(p):
			r, size = utf8.DecodeRuneInString(p[i+1:])
			i++
			cur = n.char(cur, literalSet(r))
		case i+1 < len(p) && p[i+1] == '(' && strings.IndexByte("?*+@!", p[i]) >= 0 && strings.IndexByte(p[i:], ')') > 0:
			cur = n.star(cur, start, first)
			i += strings.IndexByte(p[i:], ')') + 1
			continue
		case r == '*':
			j := i
			for j < len(p) && p[j] == '*' {
				j++
			}
			if j-i == 1 {
				cur = n.star(cur, start, first)
				break
			}
			if start && (j == len(p) || p[j] == '/') {
				// ** as a component: any number of names, each followed
				// by "/" unless ** ends the pattern. Empty names let it
				// take the "/" an absolute path starts with.
				next, name := n.add(), n.add()
				n.states[cur].eps = append(n.states[cur].eps, next)
				n.edge(next, runeSet{{'/', '/'}}, next)
				n.edge(next, first, name)
				n.edge(name, notSlash, name)
				n.edge(name, runeSet{{'/', '/'}}, next)
				if j == len(p) {
					end := n.add()
					n.states[next].eps = append(n.states[next].eps, end)
					n.states[name].eps = append(n.states[name].eps, end)
					return end
				}
				cur = next
				i = j + 1
				continue
			}
			// ** inside a name: any text, slashes too.
			next := n.add()
			n.states[cur].eps = append(n.states[cur].eps, next)
			n.edge(next, anyRune, next)
			cur = next
			i = j
			continue
		case r == '?':
			if start {
				cur = n.char(cur, first)
			} else {
				cur = n.char(cur, notSlash)
			}
		case r == '[':
			if set, end, ok := parseClass(p, i); ok {
				if start && !dotglob {
					set = set.without('.')
				}
				cur = n.char(cur, set)
				i = end
				continue
			}
			cur = n.char(cur, literalSet(r))
		default:
			cur = n.char(cur, literalSet(r))
		}
		i += size
	}
	return cur
}

// char adds a move on one rune of set and returns its state.
func (n *nfa) char(cur int32, set runeSet) int32 {
	next := n.add()
	n.edge(cur, set, next)
	return next
}

// star adds a * (any text within a name; at a name's start, text that
// starts with a rune of first) and returns the state after it. It loops on
// a state of its own, so no earlier state gains a loop.
func (n *nfa) star(cur int32, start bool, first runeSet) int32 {
	body, next := n.add(), n.add()
	n.states[cur].eps = append(n.states[cur].eps, next)
	if start {
		n.edge(cur, first, body)
	} else {
		n.edge(cur, notSlash, body)
	}
	n.edge(body, notSlash, body)
	n.states[body].eps = append(n.states[body].eps, next)
	return next
}

// without returns a less the rune r.
func (a runeSet) without(r rune) runeSet {
	var out runeSet
	for _, x := range a {
		if x.lo <= r && r <= x.hi {
			out = append(out, runeRange{x.lo, r - 1}, runeRange{r + 1, x.hi})
		} else {
			out = append(out, x)
		}
	}
	return out.normalise()
}

// literalSet matches r in either case.
func literalSet(r rune) runeSet {
	if r < utf8.RuneSelf {
		return asciiSets[r]
	}
	return foldedSet(r)
}

// asciiSets are literalSet's answers for ASCII, made once: a glob has one
// per character.
var asciiSets = func() (sets [utf8.RuneSelf]runeSet) {
	for r := range rune(utf8.RuneSelf) {
		sets[r] = foldedSet(r)
	}
	return sets
}()

func foldedSet(r rune) runeSet {
	l := unicode.ToLower(r)
	if l == r {
		return runeSet{{r, r}}
	}
	return runeSet{{r, r}, {l, l}}.normalise()
}

// parseClass reads the class starting at p[i] == '[' and returns its set
// and the index after "]"; ok is false when it is not closed.
func parseClass(p string, i int) (set runeSet, end int, ok bool) {
	j := i + 1
	negate := j < len(p) && (p[j] == '!' || p[j] == '^')
	if negate {
		j++
	}
	first := true
	for j < len(p) {
		r, size := utf8.DecodeRuneInString(p[j:])
		if r == ']' && !first {
			if negate {
				set = set.normalise().complement()
			}
			return set.foldWithoutSlash(), j + 1, true
		}
		first = false
		if r == '\\' && j+size < len(p) {
			j += size
			r, size = utf8.DecodeRuneInString(p[j:])
		} else if r == '[' && j+1 < len(p) && p[j+1] == ':' {
			// [:alpha:] and friends: any character, more broadly.
			if k := strings.Index(p[j:], ":]"); k > 0 {
				set = append(set, anyRune...)
				j += k + 2
				continue
			}
		}
		lo := r
		j += size
		if j+1 < len(p) && p[j] == '-' && p[j+1] != ']' {
			hi, hsize := utf8.DecodeRuneInString(p[j+1:])
			set = append(set, runeRange{lo, hi})
			j += 1 + hsize
			continue
		}
		set = append(set, runeRange{lo, lo})
	}
	return nil, 0, false
}

// dfa is the subset automaton of an nfa, built as it is walked and kept:
// the credential automata are fixed, so after a few decisions every walk
// only looks transitions up. It is safe for concurrent use.
type dfa struct {
	mu     sync.Mutex
	n      *nfa
	states []*dstate
	index  map[string]int32
}

// dstate is a set of nfa states, closed under empty moves.
type dstate struct {
	set   []int32
	rows  []int32 // rows of the final states in set
	trans []dtrans
	built bool
}

type dtrans struct {
	set runeSet
	to  int32
}

// maxDFAStates bounds the cache (about a kilobyte a state); past it the
// cache starts again.
const maxDFAStates = 1 << 12

func newDFA(n *nfa) *dfa {
	d := &dfa{n: n}
	d.reset()
	return d
}

func (d *dfa) reset() {
	d.states, d.index = nil, map[string]int32{}
	d.state([]int32{0})
}

// state returns the dstate of the closure of set, adding it if new.
func (d *dfa) state(set []int32) int32 {
	seen := map[int32]bool{}
	var closed []int32
	var walk func(s int32)
	walk = func(s int32) {
		if seen[s] {
			return
		}
		seen[s] = true
		closed = append(closed, s)
		for _, e := range d.n.states[s].eps {
			walk(e)
		}
	}
	for _, s := range set {
		walk(s)
	}
	slices.Sort(closed)
	var key strings.Builder
	for _, s := range closed {
		key.WriteString(strconv.Itoa(int(s)))
		key.WriteByte(',')
	}
	if i, ok := d.index[key.String()]; ok {
		return i
	}
	ds := &dstate{set: closed}
	for _, s := range closed {
		if r := d.n.states[s].row; r >= 0 && !slices.Contains(ds.rows, r) {
			ds.rows = append(ds.rows, r)
		}
	}
	d.states = append(d.states, ds)
	i := int32(len(d.states) - 1)
	d.index[key.String()] = i
	return i
}

// transitions returns the moves out of state i: the alphabet cut into
// sets of runes that lead to the same state. Runes that lead nowhere are
// left out.
func (d *dfa) transitions(i int32) []dtrans {
	ds := d.states[i]
	if ds.built {
		return ds.trans
	}
	var cuts []rune
	for _, s := range ds.set {
		for _, e := range d.n.states[s].edges {
			for _, r := range e.set {
				cuts = append(cuts, r.lo, r.hi+1)
			}
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var trans []dtrans
	for k := 0; k+1 < len(cuts); k++ {
		lo, hi := cuts[k], cuts[k+1]-1
		var to []int32
		for _, s := range ds.set {
			for _, e := range d.n.states[s].edges {
				if e.set.meets(runeSet{{lo, lo}}) {
					to = append(to, e.to)
				}
			}
		}
		if len(to) == 0 {
			continue
		}
		j := d.state(to)
		if n := len(trans); n > 0 && trans[n-1].to == j && trans[n-1].set[len(trans[n-1].set)-1].hi+1 == lo {
			trans[n-1].set[len(trans[n-1].set)-1].hi = hi
			continue
		}
		trans = append(trans, dtrans{runeSet{{lo, hi}}, j})
	}
	ds = d.states[i] // d.state may have grown the slice
	ds.trans, ds.built = trans, true
	return trans
}

// walk returns the rows of the credential patterns that the literal path
// s matches.
func (d *dfa) walk(s string) []int32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.states) > maxDFAStates {
		d.reset()
	}
	st := int32(0)
	for _, r := range s {
		r = unicode.ToLower(r)
		trans := d.transitions(st)
		i := sort.Search(len(trans), func(i int) bool { return trans[i].set[0].hi >= r })
		if i == len(trans) || trans[i].set[0].lo > r {
			return nil
		}
		st = trans[i].to
	}
	return d.states[st].rows // never changed once the state is made
}

// accepts reports whether n matches the literal path s.
func (n *nfa) accepts(s string) bool {
	in := &nfa{}
	end := in.compile(in.add(), strings.ReplaceAll(s, `\`, `\\`), false)
	in.states[end].row = 0
	return meet(in, n)
}

// meet reports whether a and b accept a common string.
func meet(a, b *nfa) bool {
	type pair struct{ x, y int32 }
	nb := int32(len(b.states))
	seen := make([]bool, len(a.states)*len(b.states))
	seen[0] = true
	stack := []pair{{0, 0}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		sa, sb := &a.states[p.x], &b.states[p.y]
		if sa.row >= 0 && sb.row >= 0 {
			return true
		}
		push := func(q pair) {
			if i := q.x*nb + q.y; !seen[i] {
				seen[i] = true
				stack = append(stack, q)
			}
		}
		for _, e := range sa.eps {
			push(pair{e, p.y})
		}
		for _, e := range sb.eps {
			push(pair{p.x, e})
		}
		for _, ea := range sa.edges {
			for _, eb := range sb.edges {
				if ea.set.meets(eb.set) {
					push(pair{ea.to, eb.to})
				}
			}
		}
	}
	return false
}
