package server_test

import (
	"github.com/limenhq/limen/internal/limentest"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

// startLimend runs a real limend on a temporary socket and database;
// seed, if given, prepares the database first.
func startLimend(t *testing.T, seed ...func(db string)) *client.Client {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t) }) // first registered, so it runs last
	return limentest.Start(t, func(cfg *daemon.Config) {
		for _, f := range seed {
			f(cfg.DB)
		}
	}).Client
}

// policyDoc is the default policy without exploration (so that every
// verdict is reproducible) and with the given allow and ask rules.
func policyDoc(allow, ask string) string {
	doc := strings.Replace(policy.DefaultDocument, "exploration = 0.01", "exploration = 0.0", 1)
	return strings.Replace(doc, "allow = []\nask = []", "allow = ["+allow+"]\nask = ["+ask+"]", 1)
}

func currentPolicy(t *testing.T, c *client.Client) *limenv1.Policy {
	t.Helper()
	resp, err := c.API.GetPolicy(t.Context(), &limenv1.GetPolicyRequest{})
	if err != nil {
		t.Fatalf("GetPolicy: %v", err)
	}
	return resp.GetPolicy()
}

func setPolicy(t *testing.T, c *client.Client, doc string) *limenv1.Policy {
	t.Helper()
	resp, err := c.API.SetPolicy(t.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: currentPolicy(t, c).GetVersion(), Document: doc})
	if err != nil {
		t.Fatalf("SetPolicy: %v", err)
	}
	return resp.GetPolicy()
}

func act(user, tool, input string) *limenv1.Action {
	return &limenv1.Action{User: user, Agent: "test", Session: "s-" + user, Tool: tool, InputJson: input, Cwd: "/home/" + user + "/shop"}
}

func sh(user, cmd string) *limenv1.Action {
	return act(user, "Bash", `{"command":"`+strings.ReplaceAll(cmd, `"`, `\"`)+`"}`)
}

func decideOnce(t *testing.T, c *client.Client, a *limenv1.Action, dryRun bool) *limenv1.Decision {
	t.Helper()
	resp, err := c.API.Decide(t.Context(), &limenv1.DecideRequest{Action: a, DryRun: dryRun})
	if err != nil {
		t.Fatalf("Decide(%s %s): %v", a.GetTool(), a.GetInputJson(), err)
	}
	return resp.GetDecision()
}

func answer(t *testing.T, c *client.Client, d *limenv1.Decision, choice limenv1.Choice, scope limenv1.Scope) {
	t.Helper()
	if d.GetAskId() == "" {
		t.Fatalf("answer: %s was %v, not an ask", d.GetAction().GetInputJson(), d.GetVerdict())
	}
	if _, err := c.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: d.GetAskId(), Choice: choice, Scope: scope}); err != nil {
		t.Fatalf("Answer(%s): %v", d.GetAskId(), err)
	}
}

type counts struct{ allows, asks, blocks int64 }

func (n *counts) add(v limenv1.Verdict) {
	switch v {
	case limenv1.Verdict_VERDICT_ALLOW:
		n.allows++
	case limenv1.Verdict_VERDICT_BLOCK:
		n.blocks++
	default:
		n.asks++
	}
}

func countsOf(s *limenv1.SimulationSummary) counts {
	return counts{s.GetAllows(), s.GetAsks(), s.GetBlocks()}
}

func recordedCounts(t *testing.T, c *client.Client) (counts, []*limenv1.Decision) {
	t.Helper()
	resp, err := c.API.History(t.Context(), &limenv1.HistoryRequest{Limit: 1000})
	if err != nil {
		t.Fatalf("History: %v", err)
	}
	var n counts
	for _, d := range resp.GetDecisions() {
		n.add(d.GetVerdict())
	}
	return n, resp.GetDecisions()
}

func simulate(t *testing.T, c *client.Client, doc string, limit int32) *limenv1.SimulatePolicyResponse {
	t.Helper()
	resp, err := c.API.SimulatePolicy(t.Context(), &limenv1.SimulatePolicyRequest{Document: doc, Limit: limit})
	if err != nil {
		t.Fatalf("SimulatePolicy: %v", err)
	}
	return resp
}

// recordMix makes decisions of every kind through the daemon: allowed,
// asked and blocked by rules, asked and then answered (so that later
// decisions are allowed or blocked by prediction), a session grant,
// compound commands, file edits and an MCP call.
func recordMix(t *testing.T, c *client.Client) {
	t.Helper()
	approve, deny := limenv1.Choice_CHOICE_APPROVE, limenv1.Choice_CHOICE_DENY
	once, session := limenv1.Scope_SCOPE_ONCE, limenv1.Scope_SCOPE_SESSION
	// Each answer moves the user's whole ladder, so answer whatever is
	// still asked; the test checks that the mix came out whole.
	// Answer the same way while limen still asks (at most five times), so
	// that the prediction then decides on its own.
	answerIfAsked := func(a *limenv1.Action, choice limenv1.Choice, scope limenv1.Scope) {
		for range 5 {
			d := decideOnce(t, c, a, false)
			if d.GetAskId() == "" {
				return
			}
			answer(t, c, d, choice, scope)
		}
	}
	for _, user := range []string{"ana", "bob"} {
		decideOnce(t, c, sh(user, "npm run test -- --watch=false"), false) // allow rule
		decideOnce(t, c, sh(user, "rm -rf /"), false)                      // block rule
		decideOnce(t, c, sh(user, "git push origin main"), false)          // ask rule

		answerIfAsked(sh(user, "npm run build"), approve, session)
		answerIfAsked(sh(user, "git status"), approve, once)
		for range 3 {
			decideOnce(t, c, sh(user, "git status"), false)    // allowed by prediction
			decideOnce(t, c, sh(user, "npm run build"), false) // the session grant
		}
		answerIfAsked(sh(user, "make clean"), deny, once)
		for range 3 {
			decideOnce(t, c, sh(user, "make clean"), false) // blocked by prediction
		}
	}
	// After the last answer, so that the parts that did not decide have the
	// same p now as when they were decided.
	for _, a := range []*limenv1.Action{
		sh("ana", "ls -la && rm -rf build"),
		sh("ana", "git status; make clean"),
		sh("carol", "cat README.md | grep limen"),
		act("ana", "Edit", `{"file_path":"/home/ana/shop/main.go","old_string":"a","new_string":"b"}`),
		act("carol", "Read", `{"file_path":"/home/carol/shop/.env"}`),
		act("carol", "mcp__github__create_issue", `{"owner":"acme","repo":"shop","title":"bug"}`),
		act("carol", "WebFetch", `{"url":"https://github.com/limenhq/limen"}`),
	} {
		decideOnce(t, c, a, false)
	}
}

// TestSimulateCurrentPolicyReproducesTheLog: replaying the log under the
// policy that made it gives back the verdicts it recorded.
func TestSimulateCurrentPolicyReproducesTheLog(t *testing.T) {
	c := startLimend(t)
	doc := policyDoc(`"Bash(npm run test *)"`, `"Bash(git push:*)"`)
	pol := setPolicy(t, c, doc)
	recordMix(t, c)

	want, ds := recordedCounts(t, c)
	kinds := map[string]bool{}
	for _, d := range ds {
		kinds[d.GetVerdict().String()+" by "+d.GetDecidedBy().String()] = true
	}
	for _, k := range []string{"VERDICT_ALLOW by DECIDER_RULE", "VERDICT_ASK by DECIDER_RULE", "VERDICT_BLOCK by DECIDER_RULE",
		"VERDICT_ALLOW by DECIDER_PREDICTION", "VERDICT_ASK by DECIDER_PREDICTION", "VERDICT_BLOCK by DECIDER_PREDICTION",
		"VERDICT_ALLOW by DECIDER_HUMAN"} {
		if !kinds[k] {
			t.Errorf("the recorded mix has no %s; it has %v", k, kinds)
		}
	}
	got := simulate(t, c, doc, 0)
	if got.GetCurrent().GetDecisions() != int64(len(ds)) || got.GetCurrent().GetPolicyVersion() != pol.GetVersion() {
		t.Errorf("replayed %d decisions under v%d; want %d under v%d", got.GetCurrent().GetDecisions(), got.GetCurrent().GetPolicyVersion(), len(ds), pol.GetVersion())
	}
	if c := countsOf(got.GetCurrent()); c != want {
		t.Errorf("current policy replayed: %+v; recorded %+v", c, want)
	}
	if c := countsOf(got.GetCandidate()); c != want {
		t.Errorf("the same document as candidate: %+v; recorded %+v", c, want)
	}
	if got.GetCurrent().GetExpectedCost() != got.GetCandidate().GetExpectedCost() {
		t.Errorf("expected cost %v (current) != %v (same document as candidate)", got.GetCurrent().GetExpectedCost(), got.GetCandidate().GetExpectedCost())
	}
	if v := currentPolicy(t, c).GetVersion(); v != pol.GetVersion() {
		t.Errorf("policy version after simulate = %d; want %d: simulate changes nothing", v, pol.GetVersion())
	}
}

// TestSimulateAgreesWithAFreshReplay: what simulate says a candidate would
// have done is what limend does once the candidate is in force.
func TestSimulateAgreesWithAFreshReplay(t *testing.T) {
	c := startLimend(t)
	setPolicy(t, c, policyDoc("", ""))
	var actions []*limenv1.Action
	for _, user := range []string{"ana", "bob"} {
		for _, cmd := range []string{"git status", "make build", "git push origin main", "rm -rf build", "ls && git push --force", "cat .env", "curl -d @x https://x.io", "npm run test"} {
			actions = append(actions, sh(user, cmd))
		}
		actions = append(actions,
			act(user, "Read", `{"file_path":"/home/`+user+`/shop/main.go"}`),
			act(user, "Edit", `{"file_path":"/etc/hosts"}`),
			act(user, "mcp__github__create_issue", `{"owner":"acme","title":"x"}`))
	}
	for _, a := range actions {
		decideOnce(t, c, a, false)
	}

	// Cheaper wrong allows for unknown actions (allow above 0.5), a
	// blocked push, allowed reads and the tests.
	candidate := strings.Replace(policyDoc(`"Read", "Bash(npm run test)"`, ""), "allow = 20.0", "allow = 2.0", 1)
	candidate = strings.Replace(candidate, `block = [`, `block = ["Bash(git push:*)", `, 1)
	sim := simulate(t, c, candidate, 0)

	setPolicy(t, c, candidate)
	var fresh counts
	for _, a := range actions {
		fresh.add(decideOnce(t, c, a, true).GetVerdict())
	}
	if got := countsOf(sim.GetCandidate()); got != fresh {
		t.Errorf("simulated candidate %+v; deciding again under it gives %+v", got, fresh)
	}
	if countsOf(sim.GetCandidate()) == countsOf(sim.GetCurrent()) {
		t.Errorf("candidate %+v = current %+v; the test's candidate must change something", sim.GetCandidate(), sim.GetCurrent())
	}
}

// TestSimulateTakesAnswersAsTheTruth: where a person answered, the
// estimated mistakes and the expected cost use the answer, elsewhere p.
func TestSimulateTakesAnswersAsTheTruth(t *testing.T) {
	c := startLimend(t)
	setPolicy(t, c, policyDoc("", ""))
	// Three users, because one answer moves every key of its user's ladder.
	denied := decideOnce(t, c, sh("ana", "make deploy"), false)
	answer(t, c, denied, limenv1.Choice_CHOICE_DENY, limenv1.Scope_SCOPE_ONCE)
	approved := decideOnce(t, c, sh("bob", "npm run lint"), false)
	answer(t, c, approved, limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_ONCE)
	open := decideOnce(t, c, sh("carol", "cargo build"), false) // never answered
	if open.GetDecidedBy() != limenv1.Decider_DECIDER_PREDICTION {
		t.Fatalf("cargo build decided by %v; want the prediction", open.GetDecidedBy())
	}

	candidate := policyDoc(`"Bash(make deploy)", "Bash(cargo build)"`, "")
	candidate = strings.Replace(candidate, `block = [`, `block = ["Bash(npm run lint)", `, 1)
	sim := simulate(t, c, candidate, 0)

	const cAllow, cBlock, cAsk = 20.0, 2.0, 1.0 // the unknown class's costs
	p := open.GetP()
	want := &limenv1.SimulationSummary{Decisions: 3, Allows: 2, Blocks: 1,
		EstimatedWrongAllows: 1 + (1 - p), EstimatedWrongBlocks: 1,
		ExpectedCost: cAllow*1 + cAllow*(1-p) + cBlock*1}
	got := sim.GetCandidate()
	if countsOf(got) != countsOf(want) || got.GetDecisions() != 3 ||
		!near(got.GetEstimatedWrongAllows(), want.GetEstimatedWrongAllows()) ||
		!near(got.GetEstimatedWrongBlocks(), want.GetEstimatedWrongBlocks()) ||
		!near(got.GetExpectedCost(), want.GetExpectedCost()) {
		t.Errorf("candidate = %v\nwant %v", got, want)
	}
	// Under the policy in force the two answered decisions were asks; the
	// open one is whatever the prior made it.
	wantCur := &limenv1.SimulationSummary{Decisions: 3, Asks: 2, ExpectedCost: 2 * cAsk}
	switch open.GetVerdict() {
	case limenv1.Verdict_VERDICT_ASK:
		wantCur.Asks++
		wantCur.ExpectedCost += cAsk
	case limenv1.Verdict_VERDICT_ALLOW:
		wantCur.Allows++
		wantCur.EstimatedWrongAllows = 1 - p
		wantCur.ExpectedCost += (1 - p) * cAllow
	case limenv1.Verdict_VERDICT_BLOCK:
		wantCur.Blocks++
		wantCur.EstimatedWrongBlocks = p
		wantCur.ExpectedCost += p * cBlock
	}
	cur := sim.GetCurrent()
	if countsOf(cur) != countsOf(wantCur) || !near(cur.GetEstimatedWrongAllows(), wantCur.GetEstimatedWrongAllows()) ||
		!near(cur.GetEstimatedWrongBlocks(), wantCur.GetEstimatedWrongBlocks()) || !near(cur.GetExpectedCost(), wantCur.GetExpectedCost()) {
		t.Errorf("current = %v\nwant %v", cur, wantCur)
	}

	if got := simulate(t, c, candidate, 2).GetCandidate().GetDecisions(); got != 2 {
		t.Errorf("limit 2 replayed %d decisions", got)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestSimulateRefusesBadInput: a candidate that does not validate, or a
// negative limit, is refused with the field named.
func TestSimulateRefusesBadInput(t *testing.T) {
	c := startLimend(t)
	tests := []struct {
		name  string
		req   *limenv1.SimulatePolicyRequest
		field string
	}{
		{"bad costs", &limenv1.SimulatePolicyRequest{Document: "[costs]\nallow = -1.0\n"}, "costs.allow"},
		{"bad rule", &limenv1.SimulatePolicyRequest{Document: "[rules]\nblock = [\"Bash(ls\"]\n"}, "rules.block[0]"},
		{"negative limit", &limenv1.SimulatePolicyRequest{Document: policy.DefaultDocument, Limit: -1}, "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.API.SimulatePolicy(t.Context(), tt.req)
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), tt.field) {
				t.Errorf("SimulatePolicy = %v; want InvalidArgument naming %s", err, tt.field)
			}
		})
	}
}

// TestSetPolicyCompareAndSet: two people edit version N; the first to send
// wins, the second is refused with ABORTED and changes nothing, and every
// version stays listed with its author.
func TestSetPolicyCompareAndSet(t *testing.T) {
	c := startLimend(t)
	base := currentPolicy(t, c)
	first := strings.Replace(base.GetDocument(), "allow = []", `allow = ["Bash(make build)"]`, 1)
	second := strings.Replace(base.GetDocument(), "allow = []", `allow = ["Bash(make deploy)"]`, 1)

	won, err := c.API.SetPolicy(t.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: base.GetVersion(), Document: first})
	if err != nil {
		t.Fatalf("first SetPolicy: %v", err)
	}
	_, err = c.API.SetPolicy(t.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: base.GetVersion(), Document: second})
	if status.Code(err) != codes.Aborted || !strings.Contains(status.Convert(err).Message(), "version") {
		t.Fatalf("second SetPolicy on the same version = %v; want ABORTED naming the version", err)
	}
	now := currentPolicy(t, c)
	if now.GetVersion() != won.GetPolicy().GetVersion() || now.GetDocument() != first {
		t.Errorf("in force: v%d; want the first writer's v%d", now.GetVersion(), won.GetPolicy().GetVersion())
	}
	// The winner is in force at once.
	if d := decideOnce(t, c, sh("ana", "make build"), false); d.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW || d.GetDecidedBy() != limenv1.Decider_DECIDER_RULE {
		t.Errorf("make build under the new rule = %v by %v; want allow by rule", d.GetVerdict(), d.GetDecidedBy())
	}

	list, err := c.API.ListPolicyVersions(t.Context(), &limenv1.ListPolicyVersionsRequest{})
	if err != nil {
		t.Fatalf("ListPolicyVersions: %v", err)
	}
	ps := list.GetPolicies()
	if len(ps) != 2 || ps[0].GetVersion() != base.GetVersion() || ps[1].GetVersion() != now.GetVersion() {
		t.Fatalf("versions = %v; want v%d then v%d", ps, base.GetVersion(), now.GetVersion())
	}
	if ps[0].GetAuthor() != "limend" || ps[1].GetAuthor() == "" || ps[1].GetTime() == nil || len(ps[1].GetClasses()) == 0 {
		t.Errorf("versions lack author, time or classes: %v", ps)
	}
}

// TestSetPolicyRefusesInvalidDocuments: each kind of invalid policy is
// refused with the field named, and the old policy stays in force.
func TestSetPolicyRefusesInvalidDocuments(t *testing.T) {
	c := startLimend(t)
	// A policy in force whose block rule must outlive every refused change.
	setPolicy(t, c, strings.Replace(policyDoc("", ""), "block = [\n", "block = [\n  \"Bash(rm -rf /srv)\",\n", 1))
	before := currentPolicy(t, c)
	tests := []struct {
		name, doc string
		want      []string // all in the message
	}{
		{"NaN cost", "[costs]\nallow = nan\n", []string{"costs.allow", "positive finite"}},
		{"infinite cost", "[costs]\nask = inf\n", []string{"costs.ask", "non-negative finite"}},
		{"negative cost", "[costs]\nblock = -2.0\n", []string{"costs.block"}},
		{"zero C_allow", "[costs]\nallow = 0.0\n", []string{"costs.allow", "a wrong allow must cost something"}},
		{"zero C_block", "[costs]\nblock = 0.0\n", []string{"costs.block", "a wrong block must cost something"}},
		{"negative class cost", "[[class]]\nname = \"reads\"\nmatch = [\"Read\"]\ncosts = { ask = -1.0 }\n", []string{`class[0] "reads"`, "costs.ask"}},
		{"class name misspelt", "[[class]]\nname = \"destructiv\"\ncosts = { allow = 500.0 }\n", []string{`class[0] "destructiv"`, "match rules or keys"}},
		{"class name not lower-case", "[[class]]\nname = \"Reads\"\nmatch = [\"Read\"]\n", []string{`class[0] "Reads"`, "lower-case"}},
		{"duplicate class", "[[class]]\nname = \"reads\"\nmatch = [\"Read\"]\n[[class]]\nname = \"reads\"\nmatch = [\"Grep\"]\n", []string{`class[1] "reads"`, "duplicate name"}},
		{"unknown key", "[costz]\nallow = 1.0\n", []string{`unknown key "costz"`}},
		{"rule that does not parse", "[rules]\nblock = [\"Bash(rm -rf /\"]\n", []string{"rules.block[0]", `missing ")"`}},
		{"rule joining commands", "[rules]\nallow = [\"Bash(ls && rm x)\"]\n", []string{"rules.allow[0]"}},
		{"not TOML", "[costs\n", []string{"line 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.API.SetPolicy(t.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: before.GetVersion(), Document: tt.doc})
			msg := status.Convert(err).Message()
			if status.Code(err) != codes.InvalidArgument {
				t.Fatalf("SetPolicy = %v; want InvalidArgument", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not say %q", msg, w)
				}
			}
			if now := currentPolicy(t, c); now.GetVersion() != before.GetVersion() || now.GetDocument() != before.GetDocument() {
				t.Errorf("policy in force changed to v%d after a refused SetPolicy", now.GetVersion())
			}
			if d := decideOnce(t, c, sh("ana", "rm -rf /srv"), true); d.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK {
				t.Errorf("rm -rf /srv = %v after a refused SetPolicy; the old block rule must stay in force", d.GetVerdict())
			}
		})
	}
}

// TestSimulateUnderABrokenPolicy: when the stored policy does not parse,
// limend asks about everything; a simulation shows exactly that for the
// policy in force, the broken version is still listed, and a valid policy
// set over it takes over.
func TestSimulateUnderABrokenPolicy(t *testing.T) {
	const broken = "[costs]\nallow = -5.0\n"
	c := startLimend(t, func(db string) {
		if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(db, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if _, err := st.SetPolicy(0, &storev1.Policy{Document: broken, Author: "someone"}); err != nil {
			t.Fatal(err)
		}
	})
	for _, cmd := range []string{"rm -rf /srv", "git status", "make build"} {
		if d := decideOnce(t, c, sh("ana", cmd), false); d.GetVerdict() != limenv1.Verdict_VERDICT_ASK {
			t.Fatalf("%s under a broken policy = %v; want ask", cmd, d.GetVerdict())
		}
	}
	// The candidate blocks rm -rf /srv by a rule of its own.
	valid := strings.Replace(policyDoc("", ""), "block = [\n", "block = [\n  \"Bash(rm -rf /srv)\",\n", 1)
	sim := simulate(t, c, valid, 0)
	if cur := sim.GetCurrent(); cur.GetAsks() != 3 || cur.GetAllows()+cur.GetBlocks() != 0 {
		t.Errorf("current (broken) policy replayed: %v; want 3 asks", cur)
	}
	if cand := sim.GetCandidate(); cand.GetBlocks() < 1 {
		t.Errorf("the candidate's block rule did not block rm -rf /srv: %v", cand)
	}

	list, err := c.API.ListPolicyVersions(t.Context(), &limenv1.ListPolicyVersionsRequest{})
	if err != nil || len(list.GetPolicies()) != 1 || list.GetPolicies()[0].GetDocument() != broken || len(list.GetPolicies()[0].GetClasses()) != 0 {
		t.Fatalf("ListPolicyVersions = %v, %v; want the broken version, without classes", list, err)
	}
	setPolicy(t, c, valid)
	if d := decideOnce(t, c, sh("ana", "rm -rf /srv"), true); d.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK {
		t.Errorf("rm -rf /srv after a valid policy was set = %v; want block", d.GetVerdict())
	}
}
