package policy

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestLiteralFilterNeverHidesAMatch: the filter in front of each glob's
// regexp may only rule out subjects the regexp would refuse too, for every
// command rule and key glob of the default policy and for random globs.
func TestLiteralFilterNeverHidesAMatch(t *testing.T) {
	p := Default()
	var rules []Rule
	var globs []keyGlob
	for _, c := range p.Classes {
		rules = append(append(rules, c.Rules...), c.Except...)
		globs = append(append(globs, c.keys...), c.exceptKeys...)
	}
	rules = append(append(append(rules, p.Block...), p.Ask...), p.Allow...)
	// Words drawn from the rules themselves, so that matches are common.
	words := []string{"rm", "-rf", "-r", "/", "~", "git", "push", "--force", "-f", "+main", "origin", "psql", "DROP", "drop",
		"TABLE", ".env", ".env.local", "x.pem", "id_rsa", "curl", "-d", "@f", "sh", "bash", "ls", "-la", ">", "out", "find",
		"-delete", "Bash:rm", "[-f", "-r]", "Bash:git push", "Read:secret", "Edit:outside", "*", "\\", "a b", ""}
	rapid.Check(t, func(t *rapid.T) {
		subject := strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 0, 6).Draw(t, "words"), rapid.SampledFrom([]string{" ", "", "  "}).Draw(t, "sep"))
		for _, r := range rules {
			if r.kind == kindCommand && r.re.MatchString(subject) && !r.filter.may(subject) {
				t.Fatalf("rule %s matches %q but its filter %+v rules it out", r.Pattern, subject, r.filter)
			}
		}
		for _, g := range globs {
			if g.re.MatchString(subject) && !g.filter.may(subject) {
				t.Fatalf("key glob %s matches %q but its filter %+v rules it out", g.re, subject, g.filter)
			}
		}
		glob := strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 1, 4).Draw(t, "glob"), rapid.SampledFrom([]string{"*", " ", " * ", "\\*"}).Draw(t, "joiner"))
		if g, err := compileKeyGlob(glob); err == nil && g.re.MatchString(subject) && !g.filter.may(subject) {
			t.Fatalf("glob %q matches %q but its filter %+v rules it out", glob, subject, g.filter)
		}
	})
}

func TestLiteralFilterReadsTheLiterals(t *testing.T) {
	tests := []struct {
		rule    string
		prefix  string
		needles []string
	}{
		{"Bash(rm -*r*)", "rm -", []string{"r"}},
		{"Bash(* .env*)", "", []string{" .env"}},
		{"Bash(git push:*)", "git push", nil},
		{"Bash(git status)", "git status", nil},
		{"Bash(*)", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			r, err := ParseRule(Block, tt.rule)
			if err != nil {
				t.Fatal(err)
			}
			if r.filter.prefix != tt.prefix || strings.Join(r.filter.needles, "|") != strings.Join(tt.needles, "|") {
				t.Errorf("filter = %+v; want prefix %q, needles %q", r.filter, tt.prefix, tt.needles)
			}
		})
	}
}
