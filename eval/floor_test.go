package eval

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/policy"
)

// verdicts records a strategy's verdicts in stream order; embedding the
// Floor keeps it an Oracle.
type verdicts struct {
	*Floor
	got []policy.Verdict
}

func (v *verdicts) Decide(a Action) Decision {
	d := v.Floor.Decide(a)
	v.got = append(v.got, d.Verdict)
	return d
}

// stream writes one user's shell commands with their answers as a stream.
func stream(cmds ...string) string {
	var b strings.Builder
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	for i, c := range cmds {
		cmd, truth, _ := strings.Cut(c, " => ")
		fmt.Fprintf(&b, `{"t":%q,"user":"u1","tool":"Bash","input":{"command":%q},"cwd":"/home/u1/p","truth":%q}`+"\n",
			t0.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), cmd, truth)
	}
	return b.String()
}

// The floor asks at the first meeting of each key and is right after it:
// a repeat or a sibling under the same key is decided by the truth, an
// opaque command only by its exact text, a secret read (with ExactRisky)
// only by its exact read, and a refusal blocks only after BlockAfter of
// them when that is set.
func TestFloorAsksOncePerKey(t *testing.T) {
	const (
		A = policy.Allow
		Q = policy.Ask
		B = policy.Block
	)
	in := stream(
		"git status -s => approve",  // new key Bash:git status
		"git status -v => approve",  // same key
		"git status --long => deny", // same key: the truth decides
		"git log -3 => approve",     // new key Bash:git log
		"rm -rf build => deny",      // new key Bash:rm [-f -r]
		"rm -rf dist => deny",       // same marks level: refused once
		"rm -rf out => deny",        // refused twice
		"$X -rf a => approve",       // opaque: its own text
		"$X -rf b => approve",       // another text
		"$X -rf a => approve",       // the same text again
		"cat .env => approve",       // Bash:cat [secret-file]
		"cat .env.local => approve",
	)
	tests := []struct {
		name  string
		rules FloorRules
		want  []policy.Verdict
	}{
		{"keys", FloorRules{}, []policy.Verdict{Q, A, B, Q, Q, B, B, Q, Q, A, Q, A}},
		{"exact risky", FloorRules{ExactRisky: true}, []policy.Verdict{Q, A, B, Q, Q, B, B, Q, Q, A, Q, Q}},
		{"two refusals", FloorRules{ExactRisky: true, BlockAfter: 2}, []policy.Verdict{Q, A, Q, Q, Q, Q, B, Q, Q, A, Q, Q}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &verdicts{Floor: NewFloor("floor", policy.Default(), tt.rules)}
			if _, err := Replay(strings.NewReader(in), []Strategy{v}, Options{}); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(v.got) != fmt.Sprint(tt.want) {
				t.Errorf("verdicts %v\n        want %v", v.got, tt.want)
			}
		})
	}
}

// The floor lets the policy's rules and limen's controls decide first, as
// limen does: an answer of limen's own is blocked whatever the truth.
func TestFloorKeepsControls(t *testing.T) {
	in := stream("limenctl answer 3 --approve => approve", "limenctl answer 3 --approve => approve")
	v := &verdicts{Floor: NewFloor("floor", policy.Default(), FloorRules{})}
	rep, err := Replay(strings.NewReader(in), []Strategy{v}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(v.got) != fmt.Sprint([]policy.Verdict{policy.Block, policy.Block}) {
		t.Errorf("verdicts %v; want two blocks", v.got)
	}
	if n := rep.Result("floor").Overall.WrongBlocks; n != 2 {
		t.Errorf("wrong blocks %d; want 2 (the truth was approve)", n)
	}
}

// On the smoke stream the floor asks less than remember-exact and never
// lets a refusal through: it knows every answer once it has asked.
func TestFloorOnSmoke(t *testing.T) {
	pol := policy.Default()
	rep := replayFile(t, smoke, []Strategy{NewFloor("floor", pol, FloorRules{ExactRisky: true}), NewRememberExact()}, Options{})
	fl, ex := rep.Result("floor").Overall, rep.Result("remember-exact").Overall
	if fl.WrongAllows != 0 {
		t.Errorf("floor: %d wrong allows; want 0", fl.WrongAllows)
	}
	if fl.Asks == 0 || fl.Asks >= ex.Asks {
		t.Errorf("floor asked %d, remember-exact %d; want 0 < floor < remember-exact", fl.Asks, ex.Asks)
	}
}
