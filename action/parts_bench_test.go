package action_test

import (
	"encoding/json"
	"testing"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/loadgen"
)

// BenchmarkParts splits each fixture action (300 realistic actions of 5
// users) into its keyed parts, as limend does for an action its plan cache
// has not seen: the shell parse, static expansion and the exec table.
func BenchmarkParts(b *testing.B) {
	acts, err := loadgen.ReadActionsFile("", 0)
	if err != nil {
		b.Fatal(err)
	}
	in := make([]action.Action, len(acts))
	for i, a := range acts {
		input := map[string]any{}
		if err := json.Unmarshal([]byte(a.Action.GetInputJson()), &input); err != nil {
			b.Fatal(err)
		}
		in[i] = action.Action{User: a.Action.GetUser(), Tool: a.Action.GetTool(), Input: input, Cwd: a.Action.GetCwd()}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		action.Parts(in[i%len(in)])
		i++
	}
}
