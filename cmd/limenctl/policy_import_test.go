package main

import (
	"strings"
	"testing"

	"github.com/limenhq/limen/policy"
)

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
		{"the default document", policy.DefaultDocument, []string{"# Hard rules, in Claude Code's permission syntax", "[[class]]\nname = \"secrets\""}},
		{"no rules table", "[costs]\nallow = 20.0 # wrong allow\n", []string{"allow = 20.0 # wrong allow"}},
		{"no rules table, no final newline", "[costs]\nallow = 20.0", []string{"allow = 20.0"}},
		{"some lists missing", "[rules]\nallow = [\"Read\"] # reads are fine\n\n[[class]]\nname = \"x\"\nmatch = [\"Grep\"]\n",
			[]string{"# reads are fine", "[[class]]\nname = \"x\""}},
		{"lists spanning lines with comments and brackets in strings", "[rules]\nblock = [\n  \"Bash(echo ])\", # a ] in a string\n  'Bash(x [y])',\n] # end\nask = []\n[learning]\nexploration = 0.0\n",
			[]string{"] # end", "[learning]\nexploration = 0.0"}},
		{"empty table last", "[asks]\ntimeout = \"5m\"\n[rules]\n", []string{"timeout = \"5m\""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := setRules(tt.doc, want)
			if err != nil {
				t.Fatalf("setRules: %v", err)
			}
			p, err := policy.Parse(got)
			if err != nil {
				t.Fatalf("result does not parse: %v\n%s", err, got)
			}
			if a := patterns(p.Allow); len(a) != 2 || a[1] != `Bash(echo "hi")` || len(p.Ask) != 0 || len(p.Block) != 2 {
				t.Errorf("rules = %q %q %q\n%s", a, patterns(p.Ask), patterns(p.Block), got)
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
		if _, err := setRules(doc, want); err == nil || !strings.Contains(err.Error(), "add the rules by hand with limenctl policy edit") {
			t.Errorf("setRules(%q) = %v; want a refusal with a hint", doc, err)
		}
	}
}
