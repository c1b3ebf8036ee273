package policy

import (
	"strings"
	"testing"
	"time"
)

func TestDefaultDocumentParses(t *testing.T) {
	p, err := Parse(DefaultDocument)
	if err != nil {
		t.Fatalf("Parse(DefaultDocument): %v", err)
	}
	if p.Document() != DefaultDocument {
		t.Error("Document() is not the source text")
	}
	if p.Costs != DefaultCosts || p.Exploration != 0.01 || p.HalfLife != 2160*time.Hour ||
		p.AskTimeout != 10*time.Minute || p.PredictTimeout != 20*time.Millisecond {
		t.Errorf("default settings: %+v", p)
	}
	var names []string
	for _, c := range p.Classes {
		names = append(names, c.Name)
	}
	want := "secrets destructive network-exfiltration write-outside-workspace write-workspace read-only unknown"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("classes = %s, want %s", got, want)
	}
	if u := p.Class(UnknownClass); u == nil || u.Costs != p.Costs {
		t.Errorf("unknown class = %+v, want the top-level costs", u)
	}
	if d := p.Class("destructive"); d == nil || d.Costs.Allow != 200 {
		t.Errorf("destructive class = %+v", d)
	}
	// Parsing the document a policy returns gives the same policy again.
	again, err := Parse(p.Document())
	if err != nil || again.Document() != p.Document() || len(again.Classes) != len(p.Classes) {
		t.Errorf("round trip: %v", err)
	}
	Default() // must not panic
}

func mustParse(t *testing.T, doc string) *Policy {
	t.Helper()
	p, err := Parse(doc)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}
