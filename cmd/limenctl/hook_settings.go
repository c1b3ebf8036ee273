package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// Editing Claude Code's settings.json by hand-placed bytes: people keep
// other hooks, permissions and their own formatting in it, so install adds
// one array element (and the "hooks"/"PreToolUse" containers if missing)
// where a person would, and uninstall removes exactly those bytes. Nothing
// else in the file is re-encoded, so key order, spacing and line endings
// survive, and uninstall after install gives back the original file byte for
// byte.

// jnode is a JSON value with its byte offsets in the document.
type jnode struct {
	kind       byte // '{', '[' or 's' for any scalar
	start, end int  // value bytes are doc[start:end]
	members    []jmember
	elems      []*jnode
}

type jmember struct {
	key      string
	keyStart int
	value    *jnode
}

// parseJSON returns the offsets tree of a settings document. hujson parses
// it into a syntax tree that keeps every byte's offset; the edits below
// splice text at those offsets. Comments and trailing commas are refused
// although hujson reads them: Claude Code discards a settings file that
// has any, so a hook put into one would never run.
func parseJSON(doc []byte) (*jnode, error) {
	v, err := hujson.Parse(doc)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if !v.IsStandard() {
		return nil, errors.New("not valid JSON: it has comments or trailing commas, which limenctl does not edit (Claude Code ignores a settings file that has any: a hook in it would never run); remove them")
	}
	return newJnode(&v), nil
}

// newJnode is the offsets tree of a parsed value.
func newJnode(v *hujson.Value) *jnode {
	n := &jnode{kind: 's', start: v.StartOffset, end: v.EndOffset}
	switch t := v.Value.(type) {
	case *hujson.Object:
		n.kind = '{'
		for i := range t.Members {
			m := &t.Members[i]
			key, _ := m.Name.Value.(hujson.Literal) // names are strings: hujson checks
			n.members = append(n.members, jmember{key: key.String(), keyStart: m.Name.StartOffset, value: newJnode(&m.Value)})
		}
	case *hujson.Array:
		n.kind = '['
		for i := range t.Elements {
			n.elems = append(n.elems, newJnode(&t.Elements[i]))
		}
	}
	return n
}

func (n *jnode) member(key string) *jnode {
	for _, m := range n.members {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

// layout is how a document is formatted: its newline and indent unit
// (both empty for a one-line document).
type layout struct{ nl, unit string }

func detectLayout(doc []byte, root *jnode) layout {
	l := layout{nl: "\n", unit: "  "}
	if bytes.Contains(doc, []byte("\r\n")) {
		l.nl = "\r\n"
	}
	if len(root.members) > 0 {
		ind, ok := indentBefore(doc, root.members[0].keyStart)
		if !ok {
			return layout{} // "{"a":1}" on one line: stay on one line
		}
		if ind != "" {
			l.unit = ind
		}
	}
	return l
}

// indentBefore returns the whitespace between the line start and off, and
// whether off starts a line.
func indentBefore(doc []byte, off int) (string, bool) {
	i := off
	for i > 0 && (doc[i-1] == ' ' || doc[i-1] == '\t') {
		i--
	}
	if i > 0 && doc[i-1] != '\n' {
		return "", false
	}
	return string(doc[i:off]), true
}

// childIndent is the indentation for the items of container c, whose own
// line is indented by depth units.
func (l layout) indent(depth int) string { return strings.Repeat(l.unit, depth) }

// insertItem returns doc with item (already formatted for depth) added as
// the last item of container c, which sits at depth. Into an empty
// container that was already there the item goes right after the bracket,
// with the container's own inner whitespace left after it: uninstall knows
// such a container by that (see tight) and leaves it, emptied, as it was.
func (l layout) insertItem(doc []byte, c *jnode, depth int, item string) []byte {
	var at int
	var text string
	if len(c.members)+len(c.elems) == 0 {
		at, text = c.start+1, item
	} else {
		at = lastEnd(c)
		text = "," + l.nl + l.indent(depth+1) + item
	}
	out := make([]byte, 0, len(doc)+len(text))
	out = append(out, doc[:at]...)
	out = append(out, text...)
	return append(out, doc[at:]...)
}

// space is what separates a bracket from the items of a container that
// install creates at depth: a new line in an indented document, a space in
// a one-line one. It is never empty, which is how uninstall tells a
// container install created from one it found empty.
func (l layout) space(depth int) string {
	if l.nl == "" {
		return " "
	}
	return l.nl + l.indent(depth)
}

// container is a new array or object holding one item, laid out at depth.
func (l layout) container(open, close byte, item string, depth int) string {
	return string(open) + l.space(depth+1) + item + l.space(depth) + string(close)
}

func lastEnd(c *jnode) int {
	if c.kind == '{' {
		return c.members[len(c.members)-1].value.end
	}
	return c.elems[len(c.elems)-1].end
}

// removeItem returns doc without item i of container c, with the comma and
// whitespace insertItem put around it.
func removeItem(doc []byte, c *jnode, i int) []byte {
	starts, ends := itemBounds(c)
	var from, to int
	switch {
	case len(starts) == 1 && tight(c):
		from, to = c.start+1, ends[0] // back to the empty container it was
	case len(starts) == 1:
		from, to = c.start+1, c.end-1 // the container becomes {} or []
	case i > 0:
		from, to = ends[i-1], ends[i]
	default:
		from, to = starts[0], starts[1]
	}
	return append(append([]byte{}, doc[:from]...), doc[to:]...)
}

// tight reports whether c's first item starts right after its bracket:
// the mark of an item install put into a container it found empty.
func tight(c *jnode) bool {
	starts, _ := itemBounds(c)
	return len(starts) > 0 && starts[0] == c.start+1
}

func itemBounds(c *jnode) (starts, ends []int) {
	for _, m := range c.members {
		starts, ends = append(starts, m.keyStart), append(ends, m.value.end)
	}
	for _, e := range c.elems {
		starts, ends = append(starts, e.start), append(ends, e.end)
	}
	return starts, ends
}

// format encodes v for a place at depth in a document of layout l.
func (l layout) format(v any, depth int) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if l.unit != "" {
		enc.SetIndent(l.indent(depth), l.unit)
	}
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	s := strings.TrimSuffix(b.String(), "\n")
	if l.nl != "\n" {
		s = strings.ReplaceAll(s, "\n", l.nl)
	}
	return s, nil
}

// claudeHookEntry is one matcher group of Claude Code's hooks settings.
type claudeHookEntry struct {
	Matcher string             `json:"matcher"`
	Hooks   []claudeHookConfig `json:"hooks"`
}

type claudeHookConfig struct {
	Type      string `json:"type"`
	Command   string `json:"command"`
	Timeout   int    `json:"timeout,omitempty"`
	OnFailure string `json:"onFailure,omitempty"`
}

// hookMarker identifies limen's entry: its command runs limen-hook.
const hookMarker = "limen-hook"

var errNotObject = errors.New("the settings file is not a JSON object")

// findLimenEntry returns the index of limen's entry in hooks.PreToolUse.
func findLimenEntry(doc []byte, pre *jnode) int {
	for i, e := range pre.elems {
		var entry claudeHookEntry
		if json.Unmarshal(doc[e.start:e.end], &entry) != nil {
			continue
		}
		for _, h := range entry.Hooks {
			if strings.Contains(h.Command, hookMarker) {
				return i
			}
		}
	}
	return -1
}

// installEntry adds entry to doc's hooks.<event> (PreToolUse, …). It
// reports false (and returns doc unchanged) when a limen entry is already
// there.
func installEntry(doc []byte, event string, entry claudeHookEntry) ([]byte, bool, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		// A new file: lay it out as Claude Code would.
		l := layout{nl: "\n", unit: "  "}
		item, err := l.format(entry, 3)
		if err != nil {
			return nil, false, err
		}
		pre := l.container('[', ']', item, 2)
		hooks := l.container('{', '}', `"`+event+`": `+pre, 1)
		return []byte(l.container('{', '}', `"hooks": `+hooks, 0) + "\n"), true, nil
	}
	root, err := parseJSON(doc)
	if err != nil {
		return nil, false, err
	}
	if root.kind != '{' {
		return nil, false, errNotObject
	}
	l := detectLayout(doc, root)
	hooks := root.member("hooks")
	pre := (*jnode)(nil)
	switch {
	case hooks == nil:
	case hooks.kind != '{':
		return nil, false, errors.New(`the settings file's "hooks" is not an object`)
	default:
		pre = hooks.member(event)
	}
	switch {
	case pre == nil:
	case pre.kind != '[':
		return nil, false, fmt.Errorf(`the settings file's "hooks.%s" is not an array`, event)
	case findLimenEntry(doc, pre) >= 0:
		return doc, false, nil
	}
	if pre != nil {
		for i, e := range pre.elems {
			if e.kind != '{' {
				// Claude Code would not read this file either; adding to it
				// would hide the problem behind a working-looking install.
				return nil, false, fmt.Errorf(`the settings file's "hooks.%s"[%d] is not a hook entry (an object with "matcher" and "hooks"): fix the file first`, event, i)
			}
		}
	}
	// Into a container found empty the item goes on one line (see
	// insertItem); anywhere else it is indented like its neighbours.
	item := func(depth int, c *jnode) (string, error) {
		if c != nil && len(c.members)+len(c.elems) == 0 {
			return layout{}.format(entry, 0)
		}
		return l.format(entry, depth)
	}
	switch {
	case hooks == nil:
		v, err := item(3, nil)
		if err != nil {
			return nil, false, err
		}
		h := l.container('{', '}', `"`+event+`": `+l.container('[', ']', v, 2), 1)
		return l.insertItem(doc, root, 0, `"hooks": `+h), true, nil
	case pre == nil:
		v, err := item(3, nil)
		if err != nil {
			return nil, false, err
		}
		return l.insertItem(doc, hooks, 1, `"`+event+`": `+l.container('[', ']', v, 2)), true, nil
	}
	v, err := item(3, pre)
	if err != nil {
		return nil, false, err
	}
	return l.insertItem(doc, pre, 2, v), true, nil
}

// uninstallEntry removes limen's entry from hooks.<event>, and the <event> and hooks
// containers when that leaves them empty. It reports false when there is no
// limen entry. A file that holds exactly what install wrote into a new file
// (nothing was there before, nothing was added since) is to be removed: it
// returns a nil document for that, rather than leave "{}" behind.
func uninstallEntry(doc []byte, event string) ([]byte, bool, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return doc, false, nil
	}
	root, err := parseJSON(doc)
	if err != nil {
		return nil, false, err
	}
	if root.kind != '{' {
		return nil, false, errNotObject
	}
	hooks := root.member("hooks")
	if hooks == nil || hooks.kind != '{' {
		return doc, false, nil
	}
	pre := hooks.member(event)
	if pre == nil || pre.kind != '[' {
		return doc, false, nil
	}
	i := findLimenEntry(doc, pre)
	if i < 0 {
		return doc, false, nil
	}
	var entry claudeHookEntry
	if e := pre.elems[i]; json.Unmarshal(doc[e.start:e.end], &entry) == nil {
		// Re-rendering drops anything a person added to the entry, so only
		// an untouched file compares equal.
		if fresh, _, err := installEntry(nil, event, entry); err == nil && bytes.Equal(fresh, doc) {
			return nil, true, nil
		}
	}
	// Remove the entry, and each container around it that install created
	// for it: one it found empty is kept (tight marks those).
	switch {
	case len(pre.elems) > 1 || tight(pre):
		return removeItem(doc, pre, i), true, nil
	case len(hooks.members) > 1 || tight(hooks):
		return removeItem(doc, hooks, memberIndex(hooks, event)), true, nil
	default:
		return removeItem(doc, root, memberIndex(root, "hooks")), true, nil
	}
}

func memberIndex(n *jnode, key string) int {
	for i, m := range n.members {
		if m.key == key {
			return i
		}
	}
	return -1
}
