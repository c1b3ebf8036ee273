package policy

// Editing the policy document as text, so that the comments and layout
// people wrote survive a change made by a tool (the TUI's "make a rule",
// limenctl policy import-claude). Each edit is parsed again and checked.

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
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
	lines := strings.SplitAfter(doc, "\n")
	out, err := insertRule(lines, list, tomlString(pattern))
	if err != nil {
		return "", fmt.Errorf("add rule: %w", err)
	}
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

var (
	tableRE = regexp.MustCompile(`^\s*\[`)
	rulesRE = regexp.MustCompile(`^\s*\[\s*rules\s*\]\s*(#.*)?$`)
)

// insertRule puts item into the list key of the [rules] table, adding the
// key or the table when they are missing.
func insertRule(lines []string, list, item string) (string, error) {
	keyRE := regexp.MustCompile(`^\s*` + list + `\s*=\s*\[`)
	start := slices.IndexFunc(lines, func(l string) bool { return rulesRE.MatchString(strings.TrimRight(l, "\r\n")) })
	if start < 0 {
		doc := strings.Join(lines, "")
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		return doc + "\n[rules]\n" + list + " = [" + item + "]\n", nil
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if tableRE.MatchString(lines[i]) {
			end = i
			break
		}
	}
	for i := start + 1; i < end; i++ {
		if !keyRE.MatchString(lines[i]) {
			continue
		}
		// Find the array's closing bracket, outside strings and comments.
		open := strings.Index(lines[i], "[")
		for j := i; j < end; j++ {
			from := 0
			if j == i {
				from = open + 1
			}
			if k := closingBracket(lines[j], from); k >= 0 {
				return spliceRule(lines, i, j, k, item), nil
			}
		}
		return "", fmt.Errorf("the [rules] %s list has no closing ]", list)
	}
	// The table has no such key: add it right after the header.
	out := slices.Clone(lines[:start+1])
	if !strings.HasSuffix(out[start], "\n") {
		out[start] += "\n"
	}
	out = append(out, list+" = ["+item+"]\n")
	out = append(out, lines[start+1:]...)
	return strings.Join(out, ""), nil
}

// closingBracket returns the index of the first "]" in line at or after
// from that is not inside a string or a comment, or -1.
func closingBracket(line string, from int) int {
	var quote byte
	for i := from; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return -1
		case c == ']':
			return i
		}
	}
	return -1
}

// spliceRule inserts item before the "]" at lines[j][k], the end of an
// array that starts on line i.
func spliceRule(lines []string, i, j, k int, item string) string {
	out := slices.Clone(lines)
	before := strings.TrimSpace(out[j][:k])
	if i == j {
		inner := strings.TrimSpace(out[j][strings.Index(out[j], "[")+1 : k])
		sep := ", "
		if inner == "" {
			sep = ""
		} else if strings.HasSuffix(inner, ",") {
			sep = " "
		}
		out[j] = out[j][:k] + sep + item + out[j][k:]
		return strings.Join(out, "")
	}
	if before == "" {
		// The "]" stands on a line of its own: add a line above it, with
		// the indentation of the line before (or two spaces).
		indent := "  "
		if prev := out[j-1]; j-1 > i {
			indent = prev[:len(prev)-len(strings.TrimLeft(prev, " \t"))]
		}
		// Make sure the item before ends with a comma.
		for p := j - 1; p > i; p-- {
			t := strings.TrimRight(stripComment(out[p]), " \t\r\n")
			if t == "" {
				continue
			}
			if !strings.HasSuffix(t, ",") {
				out[p] = t + "," + out[p][len(t):]
			}
			break
		}
		out[j] = indent + item + ",\n" + out[j]
		return strings.Join(out, "")
	}
	sep := ", "
	if strings.HasSuffix(before, ",") {
		sep = " "
	}
	out[j] = out[j][:k] + sep + item + out[j][k:]
	return strings.Join(out, "")
}

// stripComment cuts a trailing # comment that is outside any string.
func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return line[:i]
		}
	}
	return line
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
	type span struct{ start, end int }
	found := map[string]span{}
	header, tableEnd, lastValue := -1, len(doc), -1
	for pos := 0; pos < len(doc); {
		lineEnd := strings.IndexByte(doc[pos:], '\n')
		if lineEnd < 0 {
			lineEnd = len(doc)
		} else {
			lineEnd += pos
		}
		line := strings.TrimSpace(doc[pos:lineEnd])
		if strings.HasPrefix(line, "[") {
			if header >= 0 && tableEnd == len(doc) {
				tableEnd = pos
			}
			name := strings.Trim(strings.TrimSpace(strings.SplitN(line, "#", 2)[0]), "[] \t")
			if name == "rules" && header < 0 && !strings.HasPrefix(line, "[[") {
				header = min(lineEnd+1, len(doc))
				lastValue = header
			}
			pos = lineEnd + 1
			continue
		}
		key, _, isKey := strings.Cut(line, "=")
		if !isKey || strings.HasPrefix(line, "#") {
			pos = lineEnd + 1
			continue
		}
		eq := pos + strings.IndexByte(doc[pos:], '=')
		end, err := valueEnd(doc, eq+1)
		if err != nil {
			return "", fmt.Errorf("import: cannot find where %s ends in the policy: %w", strings.TrimSpace(key), err)
		}
		if header >= 0 && tableEnd == len(doc) {
			k := strings.TrimSpace(key)
			if slices.Contains(ruleListNames, k) {
				found[k] = span{pos + strings.Index(doc[pos:], k), end}
			}
			lastValue = end
		}
		// Go on from the line after the value, which may span lines.
		if nl := strings.IndexByte(doc[end:], '\n'); nl >= 0 {
			pos = end + nl + 1
		} else {
			pos = len(doc)
		}
	}

	out := doc
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
		if sp, ok := found[list]; ok {
			old, want := had[list], lists[list]
			switch {
			case keep && old != nil && slices.Equal(old, want):
				// unchanged: leave it as written
			case keep && len(old) > 0 && len(want) > len(old) && slices.Equal(old, want[:len(old)]) && closesOnOwnLine(doc[sp.start:sp.end]):
				at := sp.start + strings.LastIndexByte(doc[sp.start:sp.end], '\n') + 1
				var add strings.Builder
				for _, r := range want[len(old):] {
					add.WriteString("  " + tomlString(r) + ",\n")
				}
				edits = append(edits, edit{at, at, add.String()})
			default:
				edits = append(edits, edit{sp.start, sp.end, list + " = " + tomlArray(want)})
			}
		} else {
			missing = append(missing, list+" = "+tomlArray(lists[list]))
		}
	}
	if len(missing) > 0 {
		if header < 0 {
			sep := "\n"
			if !strings.HasSuffix(doc, "\n") {
				sep = "\n\n"
			}
			edits = append(edits, edit{len(doc), len(doc), sep + "[rules]\n" + strings.Join(missing, "\n") + "\n"})
		} else {
			// After the last value of the table, on a line of its own.
			at := lastValue
			if at > header {
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

// valueEnd returns the offset just past the TOML value that starts at or
// after i: a string, an array or inline table (which may span lines), or a
// bare value up to a comment or the end of the line.
func valueEnd(doc string, i int) (int, error) {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t') {
		i++
	}
	depth := 0
	for i < len(doc) {
		switch c := doc[i]; {
		case strings.HasPrefix(doc[i:], `"""`) || strings.HasPrefix(doc[i:], `'''`):
			q := doc[i : i+3]
			j := strings.Index(doc[i+3:], q)
			if j < 0 {
				return 0, errors.New("a multi-line string is not closed")
			}
			i += 3 + j + 3
		case c == '"':
			j := i + 1
			for j < len(doc) && doc[j] != '"' && doc[j] != '\n' {
				if doc[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(doc) || doc[j] != '"' {
				return 0, errors.New("a string is not closed")
			}
			i = j + 1
		case c == '\'':
			j := strings.IndexAny(doc[i+1:], "'\n")
			if j < 0 || doc[i+1+j] != '\'' {
				return 0, errors.New("a string is not closed")
			}
			i += j + 2
		case c == '[' || c == '{':
			depth++
			i++
		case c == ']' || c == '}':
			depth--
			i++
			if depth == 0 {
				return i, nil
			}
		case c == '#':
			if depth == 0 {
				return i, nil
			}
			for i < len(doc) && doc[i] != '\n' {
				i++
			}
		case c == '\n' && depth == 0:
			return i, nil
		default:
			i++
		}
		if depth == 0 && i < len(doc) && (doc[i] == '\n' || doc[i] == '#') {
			return i, nil
		}
	}
	if depth != 0 {
		return 0, errors.New("an array or inline table is not closed")
	}
	return i, nil
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
