package policy

import (
	"strings"
	"testing"

	"github.com/limenhq/limen/action"
)

// FuzzParseRule checks that no rule text panics or hangs the parser or the
// matcher, and that an allow rule never covers an opaque part.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"Bash(git status)", "Bash(npm run test *)", "Bash(git push:*)", "Read(./.env)",
		"Edit(/etc/**)", "Read(~/.ssh/**)", "Edit(//abs/path)", "WebFetch(domain:github.com)",
		"WebFetch(domain:*.github.com)", "mcp__github", "mcp__github__*", "Read", "*",
		`Bash(python -c "a; b")`, `PowerShell(x \(y\))`, "Bash(git push", "Read(**/*.go)",
	} {
		f.Add(s, "git push origin main")
	}
	f.Fuzz(func(t *testing.T, pattern, subject string) {
		r, err := ParseRule(Allow, pattern)
		if err != nil {
			if !strings.Contains(err.Error(), "accepted forms") {
				t.Fatalf("error without the accepted forms: %v", err)
			}
			return
		}
		for _, tool := range []string{"Bash", "Read", "Edit", "WebFetch", "mcp__github__x", r.tool} {
			part := action.Part{Tool: tool, Subject: subject, Keys: action.Ladder{tool}}
			r.Matches(part, testEnv)
			part.Opaque = true
			if r.Matches(part, testEnv) {
				t.Fatalf("allow rule %q covers an opaque part", pattern)
			}
		}
	})
}

// FuzzParse checks that Parse either returns a policy whose every class has
// valid costs and whose last class is unknown, or an error and no policy.
func FuzzParse(f *testing.F) {
	f.Add(DefaultDocument)
	f.Add("")
	f.Add("[costs]\nallow = 0.0\n")
	f.Add("[rules]\nallow = [\"Bash(git push\"]\n")
	f.Add("[[class]]\nname = \"a\"\nkeys = [\"x\"]\n[[class]]\nname = \"a\"\n")
	f.Add("[learning]\nexploration = 0.7\nhalf_life = \"x\"\n")
	f.Fuzz(func(t *testing.T, doc string) {
		p, err := Parse(doc)
		if err != nil {
			if p != nil {
				t.Fatal("error with a policy")
			}
			return
		}
		if p.Document() != doc {
			t.Fatal("Document() is not the source")
		}
		if len(p.Classes) == 0 || p.Classes[len(p.Classes)-1].Name != UnknownClass {
			t.Fatalf("classes %+v do not end with unknown", p.Classes)
		}
		for _, c := range p.Classes {
			if err := c.Costs.Validate(); err != nil {
				t.Fatalf("class %q has invalid costs: %v", c.Name, err)
			}
		}
		if p.Exploration < 0 || p.Exploration > MaxExploration || p.HalfLife < 0 || p.AskTimeout <= 0 || p.PredictTimeout <= 0 {
			t.Fatalf("settings out of range: %+v", p)
		}
		p.ClassOf(action.Part{Tool: "Bash", Subject: "rm -rf /"}, testEnv)
	})
}
