package predictor

import ("testing";"fmt";"os";"strings")

func TestDebugKeys(t *testing.T) {
	if os.Getenv("KEYDEBUG") == "" { t.Skip() }
	for _, c := range strings.Split(os.Getenv("KEYDEBUG"), "\n") {
		fmt.Printf("== %s\n", c)
		for _, p := range Parts(Action{Tool: "Bash", User: "u1", Cwd: "/home/u1/proj", Input: map[string]any{"command": c}}) {
			fmt.Printf("   subj=%q opaque=%v\n", p.Subject, p.Opaque)
			for _, k := range p.Keys { fmt.Printf("      %q\n", k) }
		}
	}
}
