package policy

// Editing the policy document as text, so that the comments and layout
// people wrote survive a change made by a tool (the TUI's "make a rule",
// limenctl policy import-claude). go-toml's parser finds where the [rules]
// table and its lists sit, so strings and comments are read as TOML reads
// them; the edit itself splices text at those offsets. Each edit is parsed
// again and checked.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// AddRule returns the policy document with pattern appended to the
// [rules] list named list ("allow" or "block"). It edits the text, so the
// comments and layout people wrote stay as they were, then checks that the
// result parses and holds the rule.
func AddRule(doc, list, pattern string) (string, error) {
	if list != "allow" && list != "block" {
		return "", fmt.Errorf("add rule: list %q: use allow or block", list)
	}
	if _, err := ParseRule(Allow, pattern); err != nil {
		return "", fmt.Errorf("add rule: %w", err)
	}
	table, err := findRules(doc)
	if err != nil {
		return "", fmt.Errorf("add rule: the policy is not valid TOML (%v); fix it with limenctl policy edit", err)
	}
	out := insertRule(doc, table, list, tomlString(pattern))
	var check struct {
		Rules map[string][]string `toml:"rules"`
	}
	if err := toml.Unmarshal([]byte(out), &check); err != nil {
		return "", fmt.Errorf("add rule: the edited policy is not valid TOML (%v); edit it with limenctl policy instead", err)
	}
	if !slices.Contains(check.Rules[list], pattern) {
		return "", errors.New("add rule: could not find where to put the rule in this policy; add it with limenctl policy instead")
	}
	if _, err := Parse(out); err != nil {
		return "", fmt.Errorf("add rule: %w", err)
	}
	return out, nil
}

// rulesTable is where the [rules] table and its lists sit in a policy
// document, as byte offsets.
type rulesTable struct {
	header int                 // just past the [rules] header's line; -1 when there is no such table
	last   int                 // just past the table's last key/value, or header when it has none
	lists  map[string]ruleList // the allow, ask and block keys written in the table
}

// ruleList is one "list = [...]" of the [rules] table.
type ruleList struct {
	start, end  int // from the key to just past the value
	open, close int // the array's "[" and "]"; -1 when the value is not an array
	lastItem    int // just past the array's last element; -1 when it has none
}

// findRules locates the [rules] table of doc and the rule lists written in
// it as simple keys. Lists written elsewhere (dotted keys, an inline table)
// are not found; the edits then add a second definition, which the check
// after each edit refuses.
func findRules(doc string) (rulesTable, error) {
	t := rulesTable{header: -1, last: -1, lists: map[string]ruleList{}}
	var p unstable.Parser
	p.Reset([]byte(doc))
	inRules := false
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			name, end := keyName(e.Key())
			inRules = e.Kind == unstable.Table && name == "rules" && t.header < 0
			if inRules {
				// A header is one line: the table starts on the next.
				if nl := strings.IndexByte(doc[end:], '\n'); nl >= 0 {
					t.header = end + nl + 1
				} else {
					t.header = len(doc)
				}
				t.last = t.header
			}
		case unstable.KeyValue:
			if !inRules {
				continue
			}
			l := ruleList{start: int(e.Raw.Offset), end: int(e.Raw.Offset + e.Raw.Length), open: -1, close: -1, lastItem: -1}
			t.last = l.end
			name, keyEnd := keyName(e.Key())
			if !slices.Contains(ruleListNames, name) {
				continue
			}
			if v := e.Value(); v.Kind == unstable.Array {
				// Only blanks and "=" lie between the key and the value, and
				// the key/value ends with the array's "]".
				l.open = keyEnd + strings.IndexByte(doc[keyEnd:], '[')
				l.close = l.end - 1
				for it := v.Children(); it.Next(); {
					if r := it.Node().Raw; r.Length > 0 {
						l.lastItem = int(r.Offset + r.Length)
					}
				}
			}
			t.lists[name] = l
		}
	}
	if err := p.Error(); err != nil {
		return rulesTable{}, err
	}
	return t, nil
}

// keyName returns a key as one dotted name, and the offset just past its
// last part.
func keyName(it unstable.Iterator) (string, int) {
	var parts []string
	end := 0
	for it.Next() {
		n := it.Node()
		parts = append(parts, string(n.Data))
		end = int(n.Raw.Offset + n.Raw.Length)
	}
	return strings.Join(parts, "."), end
}

// insertRule puts item at the end of the list of the [rules] table, adding
// the key or the table when they are missing.
func insertRule(doc string, t rulesTable, list, item string) string {
	if t.header < 0 {
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		return doc + "\n[rules]\n" + list + " = [" + item + "]\n"
	}
	l, ok := t.lists[list]
	if !ok {
		// The table has no such key: add it right after the header.
		head := doc[:t.header]
		if !strings.HasSuffix(head, "\n") {
			head += "\n"
		}
		return head + list + " = [" + item + "]\n" + doc[t.header:]
	}
	if l.open < 0 {
		return doc // not an array: the check after the edit says so
	}
	inner := doc[l.open+1 : l.close]
	if nl := strings.LastIndexByte(inner, '\n'); nl >= 0 && strings.TrimSpace(inner[nl+1:]) == "" {
		// The "]" stands on a line of its own: add a line above it, with
		// the indentation of the line before (or two spaces) ...
		at := l.open + 1 + nl + 1
		indent := "  "
		if prev := strings.LastIndexByte(inner[:nl], '\n'); prev >= 0 {
			line := inner[prev+1 : nl]
			indent = line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		}
		out := doc[:at] + indent + item + ",\n" + doc[at:]
		// ... and make sure the element before ends with a comma. Between
		// the last element and the "]" there are only blanks, comments
		// and maybe that comma.
		if l.lastItem >= 0 && !hasComma(doc[l.lastItem:at]) {
			out = out[:l.lastItem] + "," + out[l.lastItem:]
		}
		return out
	}
	sep := ", "
	switch before := strings.TrimSpace(inner); {
	case before == "":
		sep = ""
	case strings.HasSuffix(before, ","):
		sep = " "
	}
	return doc[:l.close] + sep + item + doc[l.close:]
}

// hasComma reports whether s, text holding no strings, has a comma outside
// its comments.
func hasComma(s string) bool {
	for line := range strings.Lines(s) {
		code, _, _ := strings.Cut(line, "#")
		if strings.Contains(code, ",") {
			return true
		}
	}
	return false
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// SetRules returns doc with the allow, ask and block arrays of its [rules]
// table set to lists, keeping every other line, comments included, as it
// was. A list missing from the table is added after its last key; a
// document without a [rules] table gets one at the end. The result is
// parsed again and checked, so a document this cannot edit in place (rules
// written as dotted keys or an inline table) is an error, not a surprise.
func SetRules(doc string, lists map[string][]string) (string, error) {
	// First try to keep each list as written, comments included, adding
	// new rules at its end; if the result does not read back right (an
	// array without a trailing comma, say), write the lists out afresh.
	if out, err := setRules(doc, lists, true); err == nil {
		return out, nil
	}
	return setRules(doc, lists, false)
}

// setRules is SetRules; with keep, a list whose rules only grow keeps its
// text and gets the new rules before its closing bracket, and a list that
// does not change is not touched.
func setRules(doc string, lists map[string][]string, keep bool) (string, error) {
	table, err := findRules(doc)
	if err != nil {
		return "", fmt.Errorf("import: the policy is not valid TOML (%v); nothing was set: fix it with limenctl policy edit", err)
	}
	type edit struct {
		at, end int
		text    string
	}
	var edits []edit
	var missing []string
	var had map[string][]string // the lists as the document has them
	if keep {
		if pol, err := Parse(doc); err == nil {
			had = map[string][]string{"allow": rulePatterns(pol.Allow), "ask": rulePatterns(pol.Ask), "block": rulePatterns(pol.Block)}
		}
	}
	for _, list := range []string{"allow", "ask", "block"} { // the default document's order
		if l, ok := table.lists[list]; ok {
			old, want := had[list], lists[list]
			switch {
			case keep && old != nil && slices.Equal(old, want):
				// unchanged: leave it as written
			case keep && len(old) > 0 && len(want) > len(old) && slices.Equal(old, want[:len(old)]) && closesOnOwnLine(doc[l.start:l.end]):
				at := l.start + strings.LastIndexByte(doc[l.start:l.end], '\n') + 1
				var add strings.Builder
				for _, r := range want[len(old):] {
					add.WriteString("  " + tomlString(r) + ",\n")
				}
				edits = append(edits, edit{at, at, add.String()})
			default:
				edits = append(edits, edit{l.start, l.end, list + " = " + tomlArray(want)})
			}
		} else {
			missing = append(missing, list+" = "+tomlArray(lists[list]))
		}
	}
	if len(missing) > 0 {
		if table.header < 0 {
			sep := "\n"
			if !strings.HasSuffix(doc, "\n") {
				sep = "\n\n"
			}
			edits = append(edits, edit{len(doc), len(doc), sep + "[rules]\n" + strings.Join(missing, "\n") + "\n"})
		} else {
			// After the last value of the table, on a line of its own.
			at := table.last
			if at > table.header {
				if nl := strings.IndexByte(doc[at:], '\n'); nl >= 0 {
					at += nl + 1
				} else {
					at = len(doc)
					missing[0] = "\n" + missing[0]
				}
			}
			edits = append(edits, edit{at, at, strings.Join(missing, "\n") + "\n"})
		}
	}
	slices.SortFunc(edits, func(x, y edit) int { return y.at - x.at })
	out := doc
	for _, e := range edits {
		out = out[:e.at] + e.text + out[e.end:]
	}

	pol, err := Parse(out)
	if err == nil {
		for list, got := range map[string][]Rule{"allow": pol.Allow, "ask": pol.Ask, "block": pol.Block} {
			if !slices.Equal(rulePatterns(got), lists[list]) {
				err = fmt.Errorf("rules.%s came out as %q", list, rulePatterns(got))
				break
			}
		}
	}
	if err != nil {
		return "", fmt.Errorf("import: limenctl could not edit the [rules] table of this policy in place (%v); "+
			"nothing was set: add the rules by hand with limenctl policy edit", err)
	}
	return out, nil
}

// closesOnOwnLine reports whether an array's closing bracket starts a line
// of its own, where new elements can go just before it.
func closesOnOwnLine(value string) bool {
	nl := strings.LastIndexByte(value, '\n')
	return nl >= 0 && strings.TrimSpace(value[nl+1:]) == "]"
}

// tomlArray formats rules as a TOML array, one per line.
func tomlArray(rules []string) string {
	if len(rules) == 0 {
		return "[]"
	}
	var b strings.Builder
	b.WriteString("[\n")
	for _, r := range rules {
		b.WriteString("  " + tomlString(r) + ",\n")
	}
	b.WriteString("]")
	return b.String()
}

// ruleListNames are the lists of the [rules] table.
var ruleListNames = []string{"block", "ask", "allow"}

func rulePatterns(rules []Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.Pattern
	}
	return out
}
