package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
)

const smoke = "testdata/smoke.jsonl"

func replayFile(t *testing.T, path string, strategies []Strategy, opt Options) *Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := Replay(f, strategies, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// rawLine is a stream line as the test reads it, independently of the
// package's reader.
type rawLine struct {
	User  string         `json:"user"`
	Tool  string         `json:"tool"`
	Input map[string]any `json:"input"`
	Truth string         `json:"truth"`
}

func readRaw(t *testing.T, path string) []rawLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []rawLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l rawLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

// handCounts are a baseline's outcomes, counted by a plain loop.
type handCounts struct{ asks, allows, wrongAllows, denied int }

// The baselines' counts on the smoke stream, computed here by a plain loop
// over the raw lines that shares no code with the strategies, must equal
// what the replay reports.
func TestSmokeBaselinesMatchHandCounts(t *testing.T) {
	lines := readRaw(t, smoke)
	if len(lines) != 300 {
		t.Fatalf("smoke stream has %d lines; want 300 (a copy of the generator's smoke stream)", len(lines))
	}

	exactKey := func(l rawLine) string {
		b, _ := json.Marshal(l.Input)
		return l.User + "|" + l.Tool + "|" + string(b)
	}
	// remember-exact: allowed once the same user approved the same tool
	// with the same input.
	var exact handCounts
	approved := map[string]bool{}
	for _, l := range lines {
		if l.Truth == "deny" {
			exact.denied++
		}
		k := exactKey(l)
		if approved[k] {
			exact.allows++
			if l.Truth == "deny" {
				exact.wrongAllows++
			}
			continue
		}
		exact.asks++
		if l.Truth == "approve" {
			approved[k] = true
		}
	}

	// remember-prefix: a shell command is allowed once every segment's
	// program (and subcommand word) was approved before.
	sep := regexp.MustCompile(`&&|\|\||[;|\n]`)
	// Separators inside quotes or escaped (`\;`) do not split; a quoted
	// word is replaced by '' so it still counts as a quoted word.
	quoted := regexp.MustCompile(`'[^']*'|"(?:[^"\\]|\\.)*"`)
	escaped := regexp.MustCompile(`\\.`)
	prefixKeys := func(l rawLine) []string {
		cmd, ok := l.Input["command"].(string)
		if l.Tool != "Bash" || !ok {
			return []string{exactKey(l)}
		}
		var keys []string
		for _, seg := range sep.Split(quoted.ReplaceAllString(escaped.ReplaceAllString(cmd, "_"), "''"), -1) {
			f := strings.Fields(seg)
			switch {
			case len(f) == 0:
				continue
			case len(f) == 1 || strings.HasPrefix(f[1], "-") || strings.ContainsAny(f[1], "/.'\"$=<>"):
				keys = append(keys, l.User+"|"+f[0])
			default:
				keys = append(keys, l.User+"|"+f[0]+" "+f[1])
			}
		}
		return keys
	}
	var prefix handCounts
	granted := map[string]bool{}
	for _, l := range lines {
		if l.Truth == "deny" {
			prefix.denied++
		}
		keys := prefixKeys(l)
		all := true
		for _, k := range keys {
			all = all && granted[k]
		}
		if all {
			prefix.allows++
			if l.Truth == "deny" {
				prefix.wrongAllows++
			}
			continue
		}
		prefix.asks++
		if l.Truth == "approve" {
			for _, k := range keys {
				granted[k] = true
			}
		}
	}

	rep := replayFile(t, smoke, []Strategy{AlwaysAsk{}, NewRememberExact(), NewRememberPrefix()}, Options{})
	if rep.Actions != 300 || rep.Users != 5 {
		t.Fatalf("report covers %d actions of %d users; want 300 of 5", rep.Actions, rep.Users)
	}
	for _, tt := range []struct {
		name string
		want handCounts
	}{
		{"always-ask", handCounts{asks: 300, denied: exact.denied}},
		{"remember-exact", exact},
		{"remember-prefix", prefix},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := rep.Result(tt.name).Overall
			if got.Asks != tt.want.asks || got.Allows != tt.want.allows || got.WrongAllows != tt.want.wrongAllows ||
				got.TrulyDenied != tt.want.denied || got.Blocks != 0 {
				t.Errorf("replay counted asks %d, allows %d, wrong allows %d, denied %d, blocks %d; by hand %+v",
					got.Asks, got.Allows, got.WrongAllows, got.TrulyDenied, got.Blocks, tt.want)
			}
			// At the default costs only asks and wrong allows cost anything.
			wantCost := float64(tt.want.asks+20*tt.want.wrongAllows) / 300
			if d := got.CostPerAction - wantCost; d > 1e-12 || d < -1e-12 {
				t.Errorf("cost/action = %v; by hand %v", got.CostPerAction, wantCost)
			}
		})
	}
	// The smoke stream has repeats and denials, so the baselines differ.
	if exact.asks >= 300 || prefix.asks >= exact.asks || exact.denied == 0 {
		t.Errorf("smoke stream no longer separates the baselines: exact %+v, prefix %+v", exact, prefix)
	}
}

// spy records what a strategy is told, and asks or allows by a fixed rule
// that has nothing to do with the labels.
type spy struct {
	asked   map[int]bool
	learned map[int]int
	verdict func(Action) policy.Verdict
}

func (*spy) Name() string { return "spy" }

func (s *spy) Decide(a Action) Decision {
	v := s.verdict(a)
	if v == policy.Ask {
		s.asked[a.Seq] = true
	}
	return Decision{Verdict: v}
}

func (s *spy) Learn(a Action, _ bool) { s.learned[a.Seq]++ }

// A strategy is told the answer to exactly the actions it asked about,
// once each, and never to one it allowed or blocked.
func TestStrategyLearnsOnlyWhatItAsked(t *testing.T) {
	verdicts := []policy.Verdict{policy.Allow, policy.Ask, policy.Block}
	s := &spy{asked: map[int]bool{}, learned: map[int]int{}, verdict: func(a Action) policy.Verdict { return verdicts[a.Seq%3] }}
	rep := replayFile(t, smoke, []Strategy{s, AlwaysAsk{}}, Options{})
	for seq, n := range s.learned {
		if !s.asked[seq] {
			t.Errorf("action %d was not asked, yet the strategy learned its label", seq)
		}
		if n != 1 {
			t.Errorf("action %d: learned %d times; want once", seq, n)
		}
	}
	if len(s.learned) != len(s.asked) || len(s.asked) != 100 {
		t.Errorf("asked %d actions, learned %d; want 100 and 100", len(s.asked), len(s.learned))
	}
	m := rep.Result("spy").Overall
	if m.Asks != 100 || m.Allows != 100 || m.Blocks != 100 {
		t.Errorf("spy counted %d asks, %d allows, %d blocks; want 100 each", m.Asks, m.Allows, m.Blocks)
	}
}

// An Action carries nothing a strategy could read the label from.
func TestActionHasNoLabel(t *testing.T) {
	in := `{"t":"2026-03-02T10:04:11Z","user":"u07","session":"s3","tool":"Bash","input":{"command":"ls"},"cwd":"/w","truth":"deny","risk":"secrets"}`
	s := &spy{asked: map[int]bool{}, learned: map[int]int{}, verdict: func(Action) policy.Verdict { return policy.Allow }}
	var seen Action
	rec := recorder{spy: s, seen: &seen}
	if _, err := Replay(strings.NewReader(in), []Strategy{rec}, Options{}); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(seen)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"deny", "secrets", "truth", "risk"} {
		if bytes.Contains(b, []byte(leak)) {
			t.Errorf("the action handed to the strategy contains %q: %s", leak, b)
		}
	}
	if len(s.learned) != 0 {
		t.Errorf("an allowed action taught the strategy its label")
	}
}

type recorder struct {
	*spy
	seen *Action
}

func (r recorder) Decide(a Action) Decision { *r.seen = a; return r.spy.Decide(a) }

func TestReplayRejectsBadStreams(t *testing.T) {
	const ok = `{"t":"2026-03-02T10:00:00Z","user":"u1","tool":"Bash","input":{"command":"ls"},"truth":"approve"}`
	tests := []struct {
		name, stream, want string
	}{
		{"not JSON", "{", "line 1: not a JSON object"},
		{"no truth", `{"t":"2026-03-02T10:00:00Z","user":"u1","tool":"Bash"}`, `line 1: "truth" is ""`},
		{"bad truth", `{"t":"2026-03-02T10:00:00Z","user":"u1","tool":"Bash","truth":"yes"}`, `"truth" is "yes": it must be "approve" or "deny"`},
		{"no user", `{"t":"2026-03-02T10:00:00Z","tool":"Bash","truth":"deny"}`, `line 1: "user" is missing`},
		{"no tool", `{"t":"2026-03-02T10:00:00Z","user":"u1","truth":"deny"}`, `line 1: "tool" is missing`},
		{"no time", `{"user":"u1","tool":"Bash","truth":"deny"}`, `line 1: "t" is missing`},
		{"out of order", ok + "\n\n" + strings.Replace(ok, "10:00", "09:00", 1), `line 3: "t" 2026-03-02T09:00:00Z is before`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Replay(strings.NewReader(tt.stream), []Strategy{AlwaysAsk{}}, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v; want it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := Replay(strings.NewReader(ok), nil, Options{}); err == nil {
		t.Error("a replay without strategies succeeded")
	}
}

// Unknown tools are replayed like any other (limen's keys fail closed for
// them), and an empty stream is an empty report.
func TestReplayUnknownToolsAndEmptyStream(t *testing.T) {
	pol := policy.Default()
	in := `{"t":"2026-03-02T10:00:00Z","user":"u1","tool":"Frobnicate","input":{"x":1},"truth":"approve"}
{"t":"2026-03-02T10:00:01Z","user":"u1","tool":"Frobnicate","input":{"x":1},"truth":"approve"}`
	rep, err := Replay(strings.NewReader(in), []Strategy{NewLimen(pol, predictor.DefaultConfig(), 1)}, Options{Costs: CostsUnder(pol)})
	if err != nil {
		t.Fatal(err)
	}
	if m := rep.Result("limen").Overall; m.Actions != 2 || m.Asks < 1 {
		t.Errorf("unknown tool: %+v; want 2 actions, the first asked", m)
	}
	rep, err = Replay(strings.NewReader(""), []Strategy{AlwaysAsk{}}, Options{})
	if err != nil || rep.Actions != 0 || rep.Result("always-ask").Overall.AsksPer100 != 0 {
		t.Errorf("empty stream: %+v, %v", rep, err)
	}
}

// limen on the smoke stream: the counts add up, the cost is what the
// formula says under each action's class, and the same seed replays the
// same decisions.
func TestLimenOnSmoke(t *testing.T) {
	pol := policy.Default()
	run := func() Result {
		rep := replayFile(t, smoke, []Strategy{NewLimen(pol, predictor.DefaultConfig(), 7)}, Options{Costs: CostsUnder(pol), PerUser: true})
		return *rep.Result("limen")
	}
	r := run()
	m := r.Overall
	if m.Asks+m.Allows+m.Blocks != 300 || m.TrulyApproved+m.TrulyDenied != 300 {
		t.Fatalf("counts do not add up: %+v", m.Counts)
	}
	if m.Asks == 300 || m.Allows == 0 {
		t.Errorf("limen asked %d of 300 and allowed %d: it learned nothing", m.Asks, m.Allows)
	}
	var perUser Counts
	for _, u := range r.PerUser {
		perUser.Actions += u.Actions
		perUser.Asks += u.Asks
		perUser.WrongAllows += u.WrongAllows
	}
	if perUser.Actions != 300 || perUser.Asks != m.Asks || perUser.WrongAllows != m.WrongAllows || len(r.PerUser) != 5 {
		t.Errorf("per-user metrics do not sum to the overall ones: %+v vs %+v", perUser, m.Counts)
	}
	if r.Calibration == nil || r.Calibration.Scored == 0 || r.Calibration.Brier <= 0 || r.Calibration.Brier >= 1 {
		t.Errorf("calibration = %+v; want a Brier score over the asked actions", r.Calibration)
	}
	if again := run(); again.Overall.Counts != m.Counts && again.Overall.Failsafes == 0 && m.Failsafes == 0 {
		t.Errorf("the same seed gave different outcomes: %+v then %+v", m.Counts, again.Overall.Counts)
	}
}

// Each action is scored at its riskiest part's class: a wrong allow of a
// secret read costs the secrets class's C_allow.
func TestCostsUnderUsesTheRiskiestClass(t *testing.T) {
	pol := policy.Default()
	costs := CostsUnder(pol)
	act := func(tool string, in map[string]any) Action {
		return Action{User: "u1", Tool: tool, Input: in, Cwd: "/home/u1/shop"}
	}
	tests := []struct {
		name  string
		a     Action
		class string
	}{
		{"secret read", act("Read", map[string]any{"file_path": "/home/u1/shop/.env"}), "secrets"},
		{"compound takes its riskiest part", act("Bash", map[string]any{"command": "ls && rm -rf /home/u1/shop/src"}), "destructive"},
		{"plain command", act("Bash", map[string]any{"command": "make"}), "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := costs(tt.a), pol.Class(tt.class).Costs; got != want {
				t.Errorf("costs = %+v; want the %s class's %+v", got, tt.class, want)
			}
		})
	}
}

// With per-user metrics each result carries their spread over users, as
// a plain sort of the users' own figures gives it.
func TestUserSpreads(t *testing.T) {
	rep := replayFile(t, smoke, []Strategy{NewRememberExact()}, Options{PerUser: true})
	r := rep.Result("remember-exact")
	if r.Spreads == nil || len(r.PerUser) != 5 {
		t.Fatalf("spreads %v over %d users; want spreads over 5", r.Spreads, len(r.PerUser))
	}
	var costs []float64
	for _, u := range r.PerUser {
		costs = append(costs, u.CostPerAction)
	}
	sort.Float64s(costs)
	want := Spread{Min: costs[0], Median: costs[2], Max: costs[4]}
	if r.Spreads.CostPerAction != want {
		t.Errorf("cost spread %+v; want %+v", r.Spreads.CostPerAction, want)
	}
	if want.Min == want.Max {
		t.Errorf("every user costs %v: the smoke stream no longer tells users apart", want.Min)
	}
	if s := spreadOf(r.PerUser[:4], func(m Metrics) float64 { return m.CostPerAction }); s.Median <= s.Min || s.Median >= s.Max {
		t.Errorf("median of four users %+v; want between the least and the greatest", s)
	}
	if rep := replayFile(t, smoke, []Strategy{NewRememberExact()}, Options{}); rep.Results[0].Spreads != nil {
		t.Errorf("spreads without PerUser: %+v", rep.Results[0].Spreads)
	}
}
