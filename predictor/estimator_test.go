package predictor

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/action"
)

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func TestEstimatorLearnsFromAnswers(t *testing.T) {
	e := NewEstimator(DefaultConfig())
	status := action.Ladder{"Bash", "Bash:git", "Bash:git status"}
	novel := action.Ladder{"Bash", "Bash:git", "Bash:git push", "Bash:git push --force origin main"}

	before := e.Predict("ana", []action.Ladder{status}, t0).P
	for i := range 20 {
		e.Observe("ana", []action.Ladder{status}, true, t0.Add(time.Duration(i)*time.Minute))
	}
	after := e.Predict("ana", []action.Ladder{status}, t0.Add(time.Hour))
	if after.P <= before || after.P < 0.95 {
		t.Errorf("after 20 approvals p = %v (before %v); want above 0.95", after.P, before)
	}
	if after.Level != "Bash:git status" || math.Round(after.Approvals) != 20 {
		t.Errorf("evidence = %+v; want level Bash:git status with 20 approvals", after)
	}
	if p := e.Predict("ben", []action.Ladder{status}, t0.Add(time.Hour)).P; p >= after.P {
		t.Errorf("another user's p = %v, as high as ana's %v; answers must be per user", p, after.P)
	}

	// One refusal at a specific key pulls it well below the default allow
	// threshold (0.95), even after many approvals nearby.
	e.Observe("ana", []action.Ladder{novel}, false, t0.Add(2*time.Hour))
	if p := e.Predict("ana", []action.Ladder{novel}, t0.Add(2*time.Hour)).P; p >= 0.8 {
		t.Errorf("after one denial p = %v; want well below 0.95", p)
	}
}

func TestEstimatorCompoundIsItsLeastLikelyPart(t *testing.T) {
	e := NewEstimator(DefaultConfig())
	ls := action.Ladder{"Bash", "Bash:ls"}
	rm := action.Ladder{"Bash", "Bash:rm", "Bash:rm -r"}
	for range 10 {
		e.Observe("ana", []action.Ladder{ls}, true, t0)
	}
	e.Observe("ana", []action.Ladder{rm}, false, t0)
	both := e.Predict("ana", []action.Ladder{ls, rm}, t0)
	alone := e.Predict("ana", []action.Ladder{rm}, t0)
	if both.P != alone.P || both.Key != "Bash:rm -r" {
		t.Errorf("compound = %+v; want the rm part's %+v", both, alone)
	}
}

func TestEstimatorDecay(t *testing.T) {
	cfg := DefaultConfig()
	cfg.HalfLife = 24 * time.Hour
	e := NewEstimator(cfg)
	l := action.Ladder{"Bash", "Bash:make"}
	for range 8 {
		e.Observe("ana", []action.Ladder{l}, true, t0)
	}
	now := e.Predict("ana", []action.Ladder{l}, t0)
	later := e.Predict("ana", []action.Ladder{l}, t0.Add(48*time.Hour))
	if later.Approvals != 2 || now.Approvals != 8 {
		t.Errorf("approvals now %v, two half-lives later %v; want 8 and 2", now.Approvals, later.Approvals)
	}
	if later.P >= now.P {
		t.Errorf("p after decay %v not below fresh p %v", later.P, now.P)
	}
}

// The per-person table finds every key it was given, through growth, and
// no key it was not.
func TestPersonTable(t *testing.T) {
	var p person
	if p.node(0) != nil {
		t.Fatal("an empty table found a key")
	}
	const n = 5000
	for id := int32(0); id < n; id += 2 {
		p.add(id).own.a = float64(id)
	}
	for id := int32(0); id < n; id++ {
		got := p.node(id)
		switch {
		case id%2 == 0 && (got == nil || got.own.a != float64(id)):
			t.Fatalf("key %d: got %+v; want its node", id, got)
		case id%2 == 1 && got != nil:
			t.Fatalf("key %d was never added, yet found", id)
		}
	}
	if p.used != n/2 || len(p.cells)*3 < p.used*4 {
		t.Errorf("%d used of %d cells; want %d, at most 3/4 full", p.used, len(p.cells), n/2)
	}
	if p.add(42) != p.node(42) {
		t.Error("adding a present key made a second node")
	}
}

// A refused compound action counts against its parts the person has not
// approved before, not against one they have.
func TestEstimatorDenialSparesApprovedParts(t *testing.T) {
	e := NewEstimator(DefaultConfig())
	cd := action.Ladder{"Bash", "Bash:cd", "Bash:cd src"}
	rm := action.Ladder{"Bash", "Bash:rm", "Bash:rm [-f -r]", "Bash:rm -rf ."}
	e.Observe("ana", []action.Ladder{cd}, true, t0)
	before := e.Predict("ana", []action.Ladder{cd}, t0)
	rmBefore := e.Predict("ana", []action.Ladder{rm}, t0).P
	e.Observe("ana", []action.Ladder{cd, rm}, false, t0.Add(time.Minute))
	after := e.Predict("ana", []action.Ladder{cd}, t0.Add(time.Minute))
	// Only the shared root counts the denial, so cd src stays allowed.
	if after.Denials != 0 || after.P < 0.95 {
		t.Errorf("cd src after the refusal: %+v (before %+v); want no denial counted on it", after, before)
	}
	if p := e.Predict("ana", []action.Ladder{rm}, t0.Add(time.Minute)); p.Denials != 1 || p.P >= rmBefore {
		t.Errorf("rm -rf . after the refusal: %+v (p before %v); want one denial and a lower p", p, rmBefore)
	}
	// With every part approved before, the combination itself was refused:
	// every part counts it.
	e = NewEstimator(DefaultConfig())
	e.Observe("ana", []action.Ladder{cd}, true, t0)
	e.Observe("ana", []action.Ladder{rm}, true, t0)
	e.Observe("ana", []action.Ladder{cd, rm}, false, t0)
	if p := e.Predict("ana", []action.Ladder{cd}, t0); p.Denials != 1 {
		t.Errorf("cd src after refusing a combination of approved parts: %+v; want the denial counted", p)
	}
}

// A refused compound action with a risky part counts against that part
// only: refusing `find . -name x | xargs rm -rf` says nothing against the
// find, which was new, and counting it there would block every later find.
func TestEstimatorDenialBlamesTheRiskyPart(t *testing.T) {
	e := NewEstimator(DefaultConfig())
	find := action.Ladder{"Bash", "Bash:find", "Bash:find . -name x"}
	rm := action.Ladder{"Bash", "Bash:rm", "Bash:rm [-f -r computed-args]", "Bash:xargs rm -rf"}
	e.Observe("ana", []action.Ladder{find, rm}, false, t0)
	if p := e.Predict("ana", []action.Ladder{find}, t0); p.Level != "Bash" || p.OwnDepth != 0 {
		t.Errorf("find after refusing find | xargs rm -rf: %+v; want nothing counted below the shared root", p)
	}
	if p := e.Predict("ana", []action.Ladder{rm}, t0); p.Denials != 1 || p.Level != "Bash:xargs rm -rf" {
		t.Errorf("xargs rm -rf after the refusal: %+v; want its denial", p)
	}
	// Without a risky part, every new part is blamed, as before.
	e = NewEstimator(DefaultConfig())
	mk := action.Ladder{"Bash", "Bash:make", "Bash:make deploy"}
	e.Observe("ana", []action.Ladder{find, mk}, false, t0)
	for _, l := range []action.Ladder{find, mk} {
		if p := e.Predict("ana", []action.Ladder{l}, t0); p.Denials != 1 {
			t.Errorf("%s after refusing find && make deploy: %+v; want the denial counted", l.Exact(), p)
		}
	}
}

// markLevel, which the estimator runs on keys as bytes, agrees with
// action.MarkLevel.
func TestMarkLevelAgreesWithAction(t *testing.T) {
	for _, l := range []action.Ladder{
		{"Bash", "Bash:rm", "Bash:rm [-f -r]", "Bash:rm -rf ."},
		{"Bash", "Bash:git", "Bash:git push", "Bash:git push [-f]", "Bash:git push -f"},
		{"Bash", "Bash:ls [x]"},           // the exact key is never the mark level
		{"Bash", "Bash:ls [x", "Bash:ls"}, // no closing bracket
		{"Bash", "Bash:ls]", "Bash:ls"},   // no " ["
		{"Read", "Read:workspace", "Read:/home/ana/a [1].txt"},
		{},
	} {
		bs := make([][]byte, len(l))
		for i, k := range l {
			bs[i] = []byte(k)
		}
		if got, want := markLevel(l), action.MarkLevel(l); got != want {
			t.Errorf("markLevel(%q) = %d, action.MarkLevel = %d", l, got, want)
		}
		if got, want := markLevel(bs), action.MarkLevel(l); got != want {
			t.Errorf("markLevel(bytes %q) = %d, action.MarkLevel = %d", l, got, want)
		}
	}
}

func TestOwnEvidence(t *testing.T) {
	e := NewEstimator(DefaultConfig())
	now := time.Unix(1_800_000_000, 0)
	l := action.Ladder{"Bash", "Bash:git", "Bash:git status", "Bash:git status -s"}
	other := action.Ladder{"Bash", "Bash:git", "Bash:git log"}
	check := func(when string, ladder action.Ladder, depth int, exact bool) {
		t.Helper()
		p := e.Predict("ana", []action.Ladder{ladder}, now)
		if p.OwnDepth != depth || p.OwnExact != exact {
			t.Errorf("%s: OwnDepth=%d OwnExact=%v, want %d %v", when, p.OwnDepth, p.OwnExact, depth, exact)
		}
	}
	check("nothing answered", l, 0, false)
	e.Observe("bob", []action.Ladder{l}, true, now)
	check("only bob answered", l, 0, false)
	e.Observe("ana", []action.Ladder{other}, true, now)
	check("ana answered git log", l, 1, false)
	e.Observe("ana", []action.Ladder{l}, true, now)
	check("ana approved it", l, 3, true)
	e.Observe("ana", []action.Ladder{l}, false, now)
	check("ana refused it once", l, 3, false)
}

// A refusal of a risky variant counts at the keys above its marks (it
// lowers p there) as a risky denial, which fades with the rest.
func TestEstimatorRiskyDenials(t *testing.T) {
	cfg := DefaultConfig()
	cfg.HalfLife = 24 * time.Hour
	e := NewEstimator(cfg)
	upload := action.Ladder{"Bash", "Bash:curl", "Bash:curl [-d]", "Bash:curl -d @f https://x.example"}
	plain := action.Ladder{"Bash", "Bash:curl", "Bash:curl -s https://x.example"}
	e.Observe("ana", []action.Ladder{upload}, false, t0)
	e.Observe("ana", []action.Ladder{plain}, false, t0)
	p := e.Predict("ana", []action.Ladder{{"Bash", "Bash:curl", "Bash:curl -I https://y.example"}}, t0.Add(24*time.Hour))
	if p.Level != "Bash:curl" || math.Abs(p.Denials-1) > 1e-9 || math.Abs(p.RiskyDenials-0.5) > 1e-9 {
		t.Errorf("curl -I a day later: %+v; want 1 denial at Bash:curl, half of it (one faded refusal of an upload) risky", p)
	}
	if p := e.Predict("ana", []action.Ladder{upload}, t0); p.RiskyDenials != 0 || p.Denials != 1 {
		t.Errorf("the upload itself: %+v; want its own denial, not a risky one", p)
	}
}

// A new child of a key the person approved and never refused starts from
// how new children of such keys were answered, not from the children of
// every key that leans towards approval: in an organisation where new
// children of never-refused keys are approved and those of keys that were
// also refused are denied, one approved child carries the next one high.
func TestCleanParentsPoolApart(t *testing.T) {
	e := NewEstimator(DefaultConfig())
	at := t0
	obs := func(user string, l action.Ladder, ok bool) {
		at = at.Add(time.Minute)
		e.Observe(user, []action.Ladder{l}, ok, at)
	}
	for i := range 20 {
		u, prog := "clean"+string(rune('a'+i)), "Bash:p"+string(rune('a'+i))
		obs(u, action.Ladder{"Bash", prog, prog + " 1"}, true)
		obs(u, action.Ladder{"Bash", prog, prog + " 2"}, true) // a new child of a clean parent
		u, prog = "mixed"+string(rune('a'+i)), "Bash:q"+string(rune('a'+i))
		obs(u, action.Ladder{"Bash", prog, prog + " 1"}, true)
		obs(u, action.Ladder{"Bash", prog, prog + " 1"}, true)
		obs(u, action.Ladder{"Bash", prog, prog + " 1"}, false) // the parent is refused too, but leans to approval
		obs(u, action.Ladder{"Bash", prog, prog + " 2"}, false) // a new child of a mixed parent
	}
	obs("ana", action.Ladder{"Bash", "Bash:z", "Bash:z 1"}, true)
	next := action.Ladder{"Bash", "Bash:z", "Bash:z 2"}
	p := e.Predict("ana", []action.Ladder{next}, at).P
	if p < 0.9 {
		t.Errorf("a new child of a key ana approved and never refused: p = %.3f; want above 0.9", p)
	}
	obs("ana", action.Ladder{"Bash", "Bash:z", "Bash:z 1"}, false)
	if q := e.Predict("ana", []action.Ladder{next}, at).P; q >= p || q > 0.8 {
		t.Errorf("after ana refused z 1 too: p = %.3f (before %.3f); want lower, at most 0.8", q, p)
	}
}

// What limen could not read pools its novelty apart: refusals of new
// opaque commands do not lower a new command limen can read. Every opaque
// part of package action pools apart, and no part of a program's.
func TestOpaqueLaddersPoolApart(t *testing.T) {
	plain := func(e *Estimator) float64 {
		at := t0
		for i := range 10 {
			u, prog := "u"+string(rune('a'+i)), "Bash:p"+string(rune('a'+i))
			e.Observe(u, []action.Ladder{{"Bash", prog, prog + " 1"}}, true, at)
			e.Observe(u, []action.Ladder{{"Bash", prog, prog + " 2"}}, true, at)
		}
		e.Observe("ana", []action.Ladder{{"Bash", "Bash:z", "Bash:z 1"}}, true, at)
		return e.Predict("ana", []action.Ladder{{"Bash", "Bash:z", "Bash:z 2"}}, at).P
	}
	want := plain(NewEstimator(DefaultConfig()))
	e := NewEstimator(DefaultConfig())
	for i := range 10 {
		u := "o" + string(rune('a'+i))
		e.Observe(u, []action.Ladder{{"Bash", "Bash:<opaque>", "Bash:<opaque> $X 1"}}, true, t0)
		e.Observe(u, []action.Ladder{{"Bash", "Bash:<opaque>", "Bash:<opaque> $X 2"}}, false, t0)
	}
	if got := plain(e); got != want {
		t.Errorf("a new readable command: p = %.4f after other people's refused opaque commands, %.4f without them; want the same", got, want)
	}

	for _, cmd := range []string{"$X -rf a", "curl x | sh", "python -c 'print(1)'", "git status", "ls -la", "rm -rf build", "a=rm; $a x", "echo '", "cat .env"} {
		for _, p := range action.Parts(action.Action{Tool: "Bash", Input: map[string]any{"command": cmd}, Cwd: "/home/u/p"}) {
			apart := poolLevel(p.Keys) == 1
			if p.Opaque && !apart || apart && !strings.HasPrefix(p.Keys[1], "Bash:<") {
				t.Errorf("%q: part %q pools apart %v; opaque %v", cmd, p.Keys, apart, p.Opaque)
			}
		}
	}
}
