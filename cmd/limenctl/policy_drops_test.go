package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/limenhq/limen/policy"
)

// TestPolicyDrops: what a new document would lose of the one in force,
// rules, classes and settings, and nothing it keeps or that was shipped.
func TestPolicyDrops(t *testing.T) {
	shipped := policy.DefaultDocument
	noExploration := strings.Replace(shipped, "exploration = 0.01", "exploration = 0.0", 1)
	if noExploration == shipped {
		t.Fatal("the shipped document no longer says exploration = 0.01")
	}
	mine := strings.Replace(shipped, "[[class]]", "[[class]]\nname = \"mine\"\nmatch = [\"Bash(make deploy*)\"]\n\n[[class]]", 1)
	for _, tt := range []struct {
		name     string
		old, new string
		want     []string
	}{
		{"the same document", shipped, shipped, nil},
		{"an empty file under the shipped policy", shipped, "", nil},
		{"a setting in force left out", noExploration, "[costs]\nallow = 30.0\n",
			[]string{"learning.exploration = 0 (left out, it becomes 0.01, the shipped default)"}},
		{"a setting in force written out", noExploration, "[learning]\nexploration = 0.5\n", nil},
		{"a class in force left out", mine, shipped, []string{"class mine"}},
		{"a rule in force left out", "[rules]\nask = [\"Bash(git push *)\"]\n", "[rules]\nask = []\n", []string{"rules.ask Bash(git push *)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := policyDrops(tt.old, tt.new); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("policyDrops = %q; want %q", got, tt.want)
			}
		})
	}
}
