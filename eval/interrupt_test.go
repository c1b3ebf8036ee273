package eval

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
)

// deniedStream is one person refusing the same command n times, a minute
// apart, and then asking for its sibling once.
func deniedStream(n int) string {
	var b strings.Builder
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	line := func(i int, cmd, truth string) {
		fmt.Fprintf(&b, `{"t":%q,"user":"ana","session":"s1","tool":"Bash","input":{"command":%q},"cwd":"/home/ana/p","truth":%q}`+"\n",
			t0.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), cmd, truth)
	}
	for i := range n {
		line(i, "make deploy", "deny")
	}
	line(n, "make test", "approve")
	return b.String()
}

func replayInterrupted(t *testing.T, stream string, share Interruptions) map[string]Metrics {
	t.Helper()
	pol := policy.Default()
	var ss []Strategy
	for _, teach := range Teachings {
		ss = append(ss, NewInterrupted(NewLimen(pol, predictor.DefaultConfig(), 1), share, teach, 1))
	}
	ss = append(ss, NewLimen(pol, predictor.DefaultConfig(), 1))
	rep, err := Replay(strings.NewReader(stream), ss, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]Metrics)
	for _, r := range rep.Results {
		out[r.Strategy] = r.Overall
	}
	return out
}

// TestInterruptionsTeachAsNamed: when every denial arrives as an
// interruption, teaching nothing asks every time, teaching a deny learns
// the refusals as a No would, and a weak deny learns them at the exact
// command only.
func TestInterruptionsTeachAsNamed(t *testing.T) {
	m := replayInterrupted(t, deniedStream(8), Interruptions{OfDenials: 1})
	nothing := m["limen, interruptions teach nothing"]
	if nothing.Asks != nothing.Actions || nothing.Blocks != 0 {
		t.Errorf("taught nothing: %d asks, %d blocks of %d actions; want every action asked", nothing.Asks, nothing.Blocks, nothing.Actions)
	}
	deny, plain := m["limen, interruptions teach deny"], m["limen"]
	if deny.Counts != plain.Counts {
		t.Errorf("taught as denials: %+v; want the plain replay's %+v", deny.Counts, plain.Counts)
	}
	if deny.Blocks == 0 {
		t.Errorf("taught as denials: no block after 8 refusals of the same command: %+v", deny.Counts)
	}
	weak := m["limen, interruptions teach weak deny"]
	if weak.Blocks == 0 {
		t.Errorf("taught as weak denials: no block after 8 refusals of the same command: %+v", weak.Counts)
	}
}

// TestNoInterruptionsIsPlainLimen: with no interruptions every way of
// teaching one replays exactly as limen does.
func TestNoInterruptionsIsPlainLimen(t *testing.T) {
	pol := policy.Default()
	ss := []Strategy{NewLimen(pol, predictor.DefaultConfig(), 3)}
	for _, teach := range Teachings {
		ss = append(ss, NewInterrupted(NewLimen(pol, predictor.DefaultConfig(), 3), Interruptions{}, teach, 9))
	}
	rep := replayFile(t, smoke, ss, Options{})
	for _, r := range rep.Results[1:] {
		if r.Overall.Counts != rep.Results[0].Overall.Counts {
			t.Errorf("%s: %+v; want limen's %+v", r.Strategy, r.Overall.Counts, rep.Results[0].Overall.Counts)
		}
	}
}

// TestWeakDenyStaysAtTheExactAction: refusals taught as weak denials
// leave the program's broader keys as they were, so a sibling command is
// predicted as if they had not happened; full denials pull it down.
func TestWeakDenyStaysAtTheExactAction(t *testing.T) {
	pol := policy.Default()
	p := map[Teaching]float64{}
	for _, teach := range Teachings {
		s := NewInterrupted(NewLimen(pol, predictor.DefaultConfig(), 1), Interruptions{OfDenials: 1}, teach, 1)
		if _, err := Replay(strings.NewReader(deniedStream(4)), []Strategy{s}, Options{}); err != nil {
			t.Fatal(err)
		}
		sibling := Action{User: "ana", Tool: "Bash", Input: map[string]any{"command": "make test"}, Cwd: "/home/ana/p", Time: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
		d := s.Decide(sibling)
		p[teach] = d.P
	}
	if p[TeachWeakDeny] != p[TeachNothing] {
		t.Errorf("make test after weak denials of make deploy: p=%.3f; want %.3f, as if they had not been taught", p[TeachWeakDeny], p[TeachNothing])
	}
	if p[TeachDeny] >= p[TeachNothing] {
		t.Errorf("make test after denials of make deploy: p=%.3f; want below %.3f", p[TeachDeny], p[TeachNothing])
	}
}
