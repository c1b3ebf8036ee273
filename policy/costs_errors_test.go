package policy

import (
	"strings"
	"testing"
)

// TestCostErrorsInDocuments: a cost a document cannot use is named by the
// key written, explained (too large, NaN, infinity), and said once: the
// classes that inherit it from [costs] do not repeat it.
func TestCostErrorsInDocuments(t *testing.T) {
	for _, tt := range []struct {
		doc, want string
	}{
		{"[costs]\nallow = 1e400\n", "line 2 column 9: costs.allow: the number is too large for limen to compute with (the largest is about 1.8e308)"},
		{"[costs]\nblock = -1e400\n", "costs.block: the number is too large"},
		{"[costs]\nallow = nan\n", "costs.allow must be a positive finite number (got NaN): a wrong allow must cost something; NaN is not a number"},
		{"[costs]\nask = inf\n", "costs.ask must be a non-negative finite number (got +Inf): interrupting a person cannot earn anything; infinity is not a cost"},
		{"[[class]]\nname = \"mine\"\ncosts = { allow = nan }\nmatch = [\"Bash(x)\"]\n\n[[class]]\nname = \"unknown\"\n", `class[0] "mine": costs.allow must be a positive finite number (got NaN)`},
	} {
		_, err := Parse(tt.doc)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v; want %q", tt.doc, err, tt.want)
			continue
		}
		if n := strings.Count(err.Error(), "costs."); n != 1 {
			t.Errorf("Parse(%q) names a cost %d times; want once:\n%v", tt.doc, n, err)
		}
	}
}
