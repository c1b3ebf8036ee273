package policy

import (
	"slices"
	"strings"
	"testing"
)

func TestAddRule(t *testing.T) {
	tests := []struct {
		name, doc, list, pattern, want string
	}{
		{"into an empty list", "[rules]\nallow = []\n", "allow", "Bash(git push:*)", "[rules]\nallow = [\"Bash(git push:*)\"]\n"},
		{"after items on one line", "[rules]\nallow = [\"Read\"] # reads\n", "allow", "Bash(ls *)", "[rules]\nallow = [\"Read\", \"Bash(ls *)\"] # reads\n"},
		{"into a list over several lines", "[rules]\nblock = [\n  \"Bash(rm -rf /)\",\n  \"Bash(rm -rf ~)\"\n]\n", "block", "Bash(dd *)",
			"[rules]\nblock = [\n  \"Bash(rm -rf /)\",\n  \"Bash(rm -rf ~)\",\n  \"Bash(dd *)\",\n]\n"},
		{"a key the table lacks", "[rules]\nask = []\n", "block", "Bash(dd *)", "[rules]\nblock = [\"Bash(dd *)\"]\nask = []\n"},
		{"a table the document lacks", "[costs]\nallow = 20.0\n", "allow", "Read", "[costs]\nallow = 20.0\n\n[rules]\nallow = [\"Read\"]\n"},
		{"not the allow key of another table", "[costs]\nallow = 20.0\n[rules]\nallow = []\n", "allow", "Read", "[costs]\nallow = 20.0\n[rules]\nallow = [\"Read\"]\n"},
		{"quotes and backslashes escaped", "[rules]\nallow = []\n", "allow", `Bash(echo \(hi\))`, "[rules]\nallow = [\"Bash(echo \\\\(hi\\\\))\"]\n"},
		{"a ] inside a string is not the end", "[rules]\nallow = [\"Bash(echo ])\"]\n", "allow", "Read", "[rules]\nallow = [\"Bash(echo ])\", \"Read\"]\n"},
		// The old line scanner added no comma here and refused the result.
		{"the last rule has no comma before a ] of its own", "[rules]\nallow = [\"Read\"\n]\n", "allow", "Grep", "[rules]\nallow = [\"Read\",\n  \"Grep\",\n]\n"},
		{"a comma on the next line counts", "[rules]\nallow = [\n  \"Read\" # reads\n  , \"Glob\" # globs\n]\n", "allow", "Grep",
			"[rules]\nallow = [\n  \"Read\" # reads\n  , \"Glob\", # globs\n  \"Grep\",\n]\n"},
		// The old line scanner did not know a quoted key and added a second one.
		{"a quoted key", "[rules]\n\"allow\" = []\n", "allow", "Read", "[rules]\n\"allow\" = [\"Read\"]\n"},
		{"a header with a comment and no final newline", "[rules] # hard rules", "block", "Bash(dd *)", "[rules] # hard rules\nblock = [\"Bash(dd *)\"]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AddRule(tt.doc, tt.list, tt.pattern)
			if err != nil {
				t.Fatalf("addRule: %v", err)
			}
			if got != tt.want {
				t.Errorf("addRule =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	t.Run("the default policy keeps its comments", func(t *testing.T) {
		got, err := AddRule(DefaultDocument, "block", "Bash(dd *)")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(got, "#") != strings.Count(DefaultDocument, "#") || !strings.Contains(got, "\"Bash(rm -fr ~)\",\n  \"Bash(dd *)\",\n]") {
			t.Errorf("edited default policy lost its layout:\n%s", got)
		}
	})
	refused := []struct{ name, list, pattern string }{
		{"a pattern that does not parse", "allow", "Bash(git push"},
		{"a list that is not allow or block", "deny", "Read"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := AddRule("[rules]\nallow = []\n", tt.list, tt.pattern); err == nil {
				t.Error("addRule accepted it")
			}
		})
	}
	t.Run("a document that is not TOML", func(t *testing.T) {
		if _, err := AddRule("[rules]\nallow = [\"Read\"\n", "allow", "Grep"); err == nil || !strings.Contains(err.Error(), "not valid TOML") {
			t.Errorf("AddRule = %v; want a not valid TOML error", err)
		}
	})
}

func TestSetRules(t *testing.T) {
	want := map[string][]string{
		"allow": {"Bash(gh:*)", `Bash(echo "hi")`},
		"ask":   {},
		"block": {"Bash(rm -rf /)", `Bash(printf \t)`},
	}
	tests := []struct {
		name, doc string
		keep      []string // text that must survive
	}{
		{"the default document", DefaultDocument, []string{"# Hard rules, in Claude Code's permission syntax", "[[class]]\nname = \"secrets\""}},
		{"no rules table", "[costs]\nallow = 20.0 # wrong allow\n", []string{"allow = 20.0 # wrong allow"}},
		{"no rules table, no final newline", "[costs]\nallow = 20.0", []string{"allow = 20.0"}},
		{"some lists missing", "[rules]\nallow = [\"Read\"] # reads are fine\n\n[[class]]\nname = \"x\"\nmatch = [\"Grep\"]\n",
			[]string{"# reads are fine", "[[class]]\nname = \"x\""}},
		{"lists spanning lines with comments and brackets in strings", "[rules]\nblock = [\n  \"Bash(echo ])\", # a ] in a string\n  'Bash(x [y])',\n] # end\nask = []\n[learning]\nexploration = 0.0\n",
			[]string{"] # end", "[learning]\nexploration = 0.0"}},
		{"empty table last", "[asks]\ntimeout = \"5m\"\n[rules]\n", []string{"timeout = \"5m\""}},
		{"a quoted key", "[rules]\n\"allow\" = [\"Read\"] # quoted\n", []string{"# quoted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetRules(tt.doc, want)
			if err != nil {
				t.Fatalf("setRules: %v", err)
			}
			p, err := Parse(got)
			if err != nil {
				t.Fatalf("result does not parse: %v\n%s", err, got)
			}
			if a := rulePatterns(p.Allow); len(a) != 2 || a[1] != `Bash(echo "hi")` || len(p.Ask) != 0 || len(p.Block) != 2 {
				t.Errorf("rules = %q %q %q\n%s", a, rulePatterns(p.Ask), rulePatterns(p.Block), got)
			}
			for _, k := range tt.keep {
				if !strings.Contains(got, k) {
					t.Errorf("lost %q:\n%s", k, got)
				}
			}
		})
	}

	// Rules written where a line editor cannot safely go are refused, not
	// mangled.
	for _, doc := range []string{"rules.allow = [\"Read\"]\n", "rules = { allow = [\"Read\"] }\n"} {
		if _, err := SetRules(doc, want); err == nil || !strings.Contains(err.Error(), "add the rules by hand with limenctl policy edit") {
			t.Errorf("SetRules(%q) = %v; want a refusal with a hint", doc, err)
		}
	}
}

// Rules added to a list keep the list as written, comments included; a
// list that does not change is not touched; a list that loses rules is
// written out afresh.
func TestSetRulesKeepsWhatItCan(t *testing.T) {
	shipped := Default()
	block := append(rulePatterns(shipped.Block), "Bash(curl:*)")
	out, err := SetRules(DefaultDocument, map[string][]string{"allow": {}, "ask": {}, "block": block})
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(DefaultDocument, "\n]", "\n  \"Bash(curl:*)\",\n]", 1); !strings.Contains(out, "\"Bash(curl:*)\",\n]") {
		t.Errorf("the new rule is not at the end of the block list:\n%s", out)
	} else if len(out) != len(want) {
		t.Errorf("more than the new rule changed: %d bytes, want %d", len(out), len(want))
	}
	for _, line := range strings.Split(DefaultDocument, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") && !strings.Contains(out, line) {
			t.Errorf("comment %q was lost", line)
			break
		}
	}
	dropped, err := SetRules(DefaultDocument, map[string][]string{"allow": {}, "ask": {}, "block": {"Bash(curl:*)"}})
	if err != nil {
		t.Fatal(err)
	}
	if pol, err := Parse(dropped); err != nil || !slices.Equal(rulePatterns(pol.Block), []string{"Bash(curl:*)"}) {
		t.Errorf("a shrunk list came out as %v, %v", pol, err)
	}
}
