// Package storetest is the conformance suite every store.Backend must
// pass: the bbolt file (store) and the etcd store (store/etcdstore) run the
// same tests, which hold the promises of store's doc — the first answer
// wins and a replay fails, an answer removes its pending ask and records
// its outcome at once, ids are never reused, policy versions are compared
// and set in one transaction, the decision log keeps an ask's outcome, and
// everything acknowledged survives Close and a new open.
//
// A store's own test calls Run with a function that makes an empty store
// for one test and returns how to open it: every call of Open must open
// the same state (the same file, the same etcd prefix), so that a test can
// close a store and open it again. Run closes what it opens.
package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/store"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// Open opens the store under test; each call opens the same state.
type Open func() (store.Backend, error)

// Run runs the suite. fresh makes a new, empty store for one (sub)test and
// returns how to open it; it may register cleanups on t.
func Run(t *testing.T, fresh func(t *testing.T) Open) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h *harness)
	}{
		{"NextIDUniqueAndIncreasing", testNextID},
		{"NextIDNeverReusedAfterReopen", testNextIDReopen},
		{"AddPendingAndPendingOldestFirst", testPending},
		{"AddPendingRefusesBadInput", testAddPendingRefuses},
		{"AddPendingRefusesResolved", testAddPendingResolved},
		{"AnswerStoresAllThree", testAnswer},
		{"AnswerRefusals", testAnswerRefusals},
		{"FirstAnswerWins", testFirstAnswerWins},
		{"Expire", testExpire},
		{"AnswersInOrderAndViewsAgree", testAnswersOrder},
		{"AnswersStopsOnCallbackError", testAnswersStop},
		{"ForgetMarksAndKeeps", testForget},
		{"ForgetRefusesUnknownAnswers", testForgetUnknown},
		{"LogDecisionAndHistory", testHistory},
		{"LogDecisionKeepsAskOutcome", testLogKeepsOutcome},
		{"DecisionsNewestFirst", testDecisions},
		{"FlushReportsBadRecords", testFlushBadRecords},
		{"FlushAfterClose", testFlushAfterClose},
		{"PolicyCompareAndSet", testPolicy},
		{"PolicyConcurrentSetOneWins", testPolicyRace},
		{"ReopenKeepsEverything", testReopen},
		{"Devices", testDevices}, // devices.go
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &harness{t: t, open: fresh(t)}
			h.s = h.reopen()
			t.Cleanup(h.close)
			tt.fn(t, h)
		})
	}
}

// harness is one test's store, reopened as the test asks.
type harness struct {
	t    *testing.T
	open Open
	s    store.Backend
}

// reopen closes the current store (if open) and opens the state again.
func (h *harness) reopen() store.Backend {
	h.t.Helper()
	h.close()
	s, err := h.open()
	if err != nil {
		h.t.Fatalf("open store: %v", err)
	}
	h.s = s
	return s
}

func (h *harness) close() {
	h.t.Helper()
	if h.s == nil {
		return
	}
	if err := h.s.Close(); err != nil {
		h.t.Errorf("Close: %v", err)
	}
	h.s = nil
}

func (h *harness) newID() uint64 {
	h.t.Helper()
	id, err := h.s.NextID()
	if err != nil {
		h.t.Fatalf("NextID: %v", err)
	}
	if id == 0 {
		h.t.Fatal("NextID returned 0, which means unset")
	}
	return id
}

// Decision makes a decision record with id for user.
func Decision(id uint64, user string, verdict storev1.Verdict) *storev1.Decision {
	d := &storev1.Decision{
		DecisionId: store.FormatID(id),
		Time:       timestamppb.New(time.Unix(1700000000+int64(id), 0)),
		Action:     &storev1.Action{User: user, Agent: "claude-code", Tool: "Bash", InputJson: `{"command":"git push"}`},
		Verdict:    verdict,
		P:          0.5,
		Key:        "git push",
		DecidedBy:  storev1.Decider_DECIDER_PREDICTION,
	}
	if verdict == storev1.Verdict_VERDICT_ASK {
		d.AskId = d.DecisionId
	}
	return d
}

// AnswerRecord makes an answer to ask id.
func AnswerRecord(id uint64, choice storev1.Choice) *storev1.AnswerRecord {
	return &storev1.AnswerRecord{
		AskId:      store.FormatID(id),
		Action:     &storev1.Action{User: "ana", Tool: "Bash", InputJson: `{"command":"git push"}`},
		Choice:     choice,
		AnsweredBy: "ana",
		Time:       timestamppb.New(time.Unix(1700000500, 0)),
		KeyScheme:  1,
		Ladders:    []*storev1.Ladder{{Keys: []string{"Bash", "git", "git push"}}},
	}
}

// addAsk stores a new pending ask for user and returns its id.
func (h *harness) addAsk(user string) uint64 {
	h.t.Helper()
	id := h.newID()
	d := Decision(id, user, storev1.Verdict_VERDICT_ASK)
	if err := h.s.AddPending(d, &storev1.PendingAsk{AskId: d.AskId, ExpiresAt: timestamppb.New(time.Unix(1700009999, 0))}); err != nil {
		h.t.Fatalf("AddPending: %v", err)
	}
	return id
}

// logged logs a decision that did not ask and flushes it.
func (h *harness) logged(user string, verdict storev1.Verdict) uint64 {
	h.t.Helper()
	id := h.newID()
	h.s.LogDecision(Decision(id, user, verdict))
	h.flush()
	return id
}

func (h *harness) flush() {
	h.t.Helper()
	if err := h.s.Flush(h.t.Context()); err != nil {
		h.t.Fatalf("Flush: %v", err)
	}
}

func (h *harness) answers() []*storev1.AnswerRecord {
	h.t.Helper()
	var out []*storev1.AnswerRecord
	if err := h.s.Answers(func(r *storev1.AnswerRecord) error {
		out = append(out, proto.CloneOf(r))
		return nil
	}); err != nil {
		h.t.Fatalf("Answers: %v", err)
	}
	return out
}

func (h *harness) pendingIDs() []string {
	h.t.Helper()
	ps, err := h.s.Pending()
	if err != nil {
		h.t.Fatalf("Pending: %v", err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.GetAskId())
	}
	return out
}

func testNextID(t *testing.T, h *harness) {
	const workers, each = 8, 300
	var mu sync.Mutex
	seen := make(map[uint64]bool)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var last uint64
			for range each {
				id, err := h.s.NextID()
				if err != nil {
					t.Errorf("NextID: %v", err)
					return
				}
				if id <= last {
					t.Errorf("NextID went from %d to %d on one goroutine", last, id)
				}
				last = id
				mu.Lock()
				if seen[id] {
					t.Errorf("NextID handed out %d twice", id)
				}
				seen[id] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != workers*each {
		t.Errorf("got %d distinct ids, want %d", len(seen), workers*each)
	}
	if seen[0] {
		t.Error("NextID returned 0")
	}
}

func testNextIDReopen(t *testing.T, h *harness) {
	var last uint64
	for range 3 {
		for range 10 {
			id := h.newID()
			if id <= last {
				t.Fatalf("NextID = %d after %d (ids must increase across reopens)", id, last)
			}
			last = id
		}
		h.reopen()
	}
}

func testPending(t *testing.T, h *harness) {
	var want []string
	for range 5 {
		want = append(want, store.FormatID(h.addAsk("ana")))
	}
	if got := h.pendingIDs(); !slices.Equal(got, want) {
		t.Errorf("Pending ids = %v, want %v", got, want)
	}
	ps, _ := h.s.Pending()
	first := ps[0]
	id, _ := store.ParseID(first.GetAskId())
	if !proto.Equal(first.GetDecision(), Decision(id, "ana", storev1.Verdict_VERDICT_ASK)) {
		t.Errorf("pending ask without its decision: %v", first)
	}
	if first.GetExpiresAt().GetSeconds() != 1700009999 {
		t.Errorf("pending ask lost its expiry: %v", first.GetExpiresAt())
	}
	d, err := h.s.Decision(id)
	if err != nil || d.GetVerdict() != storev1.Verdict_VERDICT_ASK || d.GetOutcome() != nil {
		t.Errorf("Decision of a pending ask = %v, %v; want the ask with no outcome", d, err)
	}
}

func testAddPendingRefuses(t *testing.T, h *harness) {
	id := h.newID()
	d := Decision(id, "ana", storev1.Verdict_VERDICT_ASK)
	if err := h.s.AddPending(d, &storev1.PendingAsk{AskId: store.FormatID(id + 1)}); err == nil {
		t.Error("AddPending with an ask id unlike the decision id succeeded")
	}
	bad := Decision(id, "ana", storev1.Verdict_VERDICT_ASK)
	bad.DecisionId, bad.AskId = "x1", "x1"
	if err := h.s.AddPending(bad, &storev1.PendingAsk{AskId: "x1"}); err == nil {
		t.Error("AddPending with a decision id that is not a number succeeded")
	}
	if got := h.pendingIDs(); len(got) != 0 {
		t.Errorf("refused AddPending left pending asks %v", got)
	}
}

func testAddPendingResolved(t *testing.T, h *harness) {
	for _, answer := range []bool{false, true} {
		id := h.addAsk("ana")
		var err error
		if answer {
			_, err = h.s.Answer(id, AnswerRecord(id, storev1.Choice_CHOICE_APPROVE))
		} else {
			_, err = h.s.Expire(id, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		d := Decision(id, "ana", storev1.Verdict_VERDICT_ASK)
		if err := h.s.AddPending(d, &storev1.PendingAsk{AskId: d.AskId}); !errors.Is(err, store.ErrResolved) {
			t.Errorf("AddPending of a resolved ask (answered %v) = %v, want ErrResolved", answer, err)
		}
	}
	if got := h.pendingIDs(); len(got) != 0 {
		t.Errorf("resolved asks pending again: %v", got)
	}
}

func testAnswer(t *testing.T, h *harness) {
	id := h.addAsk("ana")
	rec := AnswerRecord(id, storev1.Choice_CHOICE_DENY)
	rec.AskId = "" // Answer fills it in
	d, err := h.s.Answer(id, rec)
	if err != nil {
		t.Fatal(err)
	}
	if rec.GetSeq() == 0 {
		t.Error("Answer left rec.Seq unset")
	}
	if rec.GetAskId() != store.FormatID(id) {
		t.Errorf("rec.AskId = %q, want %q", rec.GetAskId(), store.FormatID(id))
	}
	o := d.GetOutcome()
	want := &storev1.AskOutcome{State: storev1.AskState_ASK_STATE_ANSWERED, Choice: storev1.Choice_CHOICE_DENY,
		AnsweredBy: "ana", Time: rec.GetTime()}
	if !proto.Equal(o, want) {
		t.Errorf("returned outcome = %v, want %v", o, want)
	}
	stored, err := h.s.Decision(id)
	if err != nil || !proto.Equal(stored, d) {
		t.Errorf("stored decision = %v, %v; want %v", stored, err, d)
	}
	hist, err := h.s.History(store.HistoryQuery{AsksOnly: true})
	if err != nil || len(hist) != 1 || !proto.Equal(hist[0], d) {
		t.Errorf("History = %v, %v; want [%v]", hist, err, d)
	}
	if p := h.pendingIDs(); len(p) != 0 {
		t.Errorf("answered ask still pending: %v", p)
	}
	if got := h.answers(); len(got) != 1 || !proto.Equal(got[0], rec) {
		t.Errorf("Answers = %v, want [%v]", got, rec)
	}
}

func testAnswerRefusals(t *testing.T, h *harness) {
	tests := []struct {
		name    string
		prepare func() uint64 // returns the id to answer
		want    error
	}{
		{"unknown id", func() uint64 { return 999999 }, store.ErrNotFound},
		{"decision that did not ask", func() uint64 { return h.logged("ana", storev1.Verdict_VERDICT_ALLOW) }, store.ErrNotFound},
		{"answered twice", func() uint64 {
			id := h.addAsk("ana")
			if _, err := h.s.Answer(id, AnswerRecord(id, storev1.Choice_CHOICE_APPROVE)); err != nil {
				t.Fatal(err)
			}
			return id
		}, store.ErrResolved},
		{"expired then answered", func() uint64 {
			id := h.addAsk("ana")
			if _, err := h.s.Expire(id, nil); err != nil {
				t.Fatal(err)
			}
			return id
		}, store.ErrResolved},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := tt.prepare()
			before := len(h.answers())
			decisionBefore, _ := h.s.Decision(id)

			rec := AnswerRecord(id, storev1.Choice_CHOICE_DENY)
			if _, err := h.s.Answer(id, rec); !errors.Is(err, tt.want) {
				t.Fatalf("Answer = %v, want %v", err, tt.want)
			}
			if rec.GetSeq() != 0 {
				t.Errorf("refused Answer left rec.Seq = %d", rec.GetSeq())
			}
			if after := len(h.answers()); after != before {
				t.Errorf("refused Answer changed the answer count from %d to %d", before, after)
			}
			decisionAfter, _ := h.s.Decision(id)
			if !proto.Equal(decisionBefore, decisionAfter) {
				t.Errorf("refused Answer changed the decision:\nbefore %v\nafter  %v", decisionBefore, decisionAfter)
			}
			if _, err := h.s.Expire(id, nil); !errors.Is(err, tt.want) {
				t.Errorf("Expire = %v, want %v", err, tt.want)
			}
		})
	}
}

// testFirstAnswerWins races answers and an expiry on the same asks: for
// each ask exactly one succeeds, the others fail with ErrResolved, and the
// log holds exactly one answer per ask answered.
func testFirstAnswerWins(t *testing.T, h *harness) {
	const asks, racers = 5, 4
	for range asks {
		id := h.addAsk("ana")
		var wg sync.WaitGroup
		wins := make(chan string, racers+1)
		for r := range racers {
			wg.Go(func() {
				choice := storev1.Choice_CHOICE_APPROVE
				if r%2 == 1 {
					choice = storev1.Choice_CHOICE_DENY
				}
				if _, err := h.s.Answer(id, AnswerRecord(id, choice)); err == nil {
					wins <- "answer"
				} else if !errors.Is(err, store.ErrResolved) {
					t.Errorf("losing Answer = %v, want ErrResolved", err)
				}
			})
		}
		wg.Go(func() {
			if _, err := h.s.Expire(id, nil); err == nil {
				wins <- "expire"
			} else if !errors.Is(err, store.ErrResolved) {
				t.Errorf("losing Expire = %v, want ErrResolved", err)
			}
		})
		wg.Wait()
		close(wins)
		var won []string
		for w := range wins {
			won = append(won, w)
		}
		if len(won) != 1 {
			t.Fatalf("ask %d: %d winners %v, want exactly one", id, len(won), won)
		}
		d, err := h.s.Decision(id)
		if err != nil || d.GetOutcome() == nil {
			t.Fatalf("ask %d after the race: %v, %v; want an outcome", id, d, err)
		}
	}
	perAsk := make(map[string]int)
	for _, r := range h.answers() {
		perAsk[r.GetAskId()]++
	}
	for id, n := range perAsk {
		if n != 1 {
			t.Errorf("ask %s has %d answers in the log, want 1", id, n)
		}
	}
	if p := h.pendingIDs(); len(p) != 0 {
		t.Errorf("asks still pending after the race: %v", p)
	}
}

func testExpire(t *testing.T, h *harness) {
	id := h.addAsk("ana")
	d, err := h.s.Expire(id, &storev1.AskOutcome{Time: timestamppb.New(time.Unix(1700000600, 0))})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.GetOutcome().GetState(); got != storev1.AskState_ASK_STATE_EXPIRED {
		t.Errorf("state = %v, want expired", got)
	}
	stored, err := h.s.Decision(id)
	if err != nil || !proto.Equal(stored, d) {
		t.Errorf("stored decision = %v, %v; want %v", stored, err, d)
	}
	if n := len(h.answers()); n != 0 {
		t.Errorf("Expire stored an answer (count %d)", n)
	}
	if p := h.pendingIDs(); len(p) != 0 {
		t.Errorf("expired ask still pending: %v", p)
	}
	// The outcome given is kept as it is (limend notes why an ask ended).
	id = h.addAsk("ana")
	want := &storev1.AskOutcome{State: storev1.AskState_ASK_STATE_EXPIRED, Note: "agent gone"}
	d, err = h.s.Expire(id, want)
	if err != nil || !proto.Equal(d.GetOutcome(), want) {
		t.Errorf("Expire with an outcome = %v, %v; want outcome %v", d, err, want)
	}
}

func testAnswersOrder(t *testing.T, h *harness) {
	var want []*storev1.AnswerRecord
	for i := range 7 {
		id := h.addAsk("ana")
		rec := AnswerRecord(id, storev1.Choice(1+i%2))
		if _, err := h.s.Answer(id, rec); err != nil {
			t.Fatal(err)
		}
		if len(want) > 0 && rec.GetSeq() <= want[len(want)-1].GetSeq() {
			t.Errorf("answer seq %d after %d: seqs must increase", rec.GetSeq(), want[len(want)-1].GetSeq())
		}
		want = append(want, rec)
	}
	got := h.answers()
	if len(got) != len(want) {
		t.Fatalf("Answers returned %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !proto.Equal(got[i], want[i]) {
			t.Errorf("answer %d = %v, want %v", i, got[i], want[i])
		}
	}
	i := 0
	err := h.s.AnswerViews(func(v *store.AnswerView) error {
		w := want[i]
		i++
		if v.Seq != w.GetSeq() || string(v.User) != w.GetAction().GetUser() || string(v.AnsweredBy) != w.GetAnsweredBy() ||
			v.Choice != w.GetChoice() || !v.Time.Equal(w.GetTime().AsTime()) || v.KeyScheme != w.GetKeyScheme() ||
			len(v.Ladders) != 1 || len(v.Ladders[0]) != 3 || string(v.Ladders[0][2]) != "git push" {
			return fmt.Errorf("view %d = %+v, want the fields of %v", i-1, v, w)
		}
		var full storev1.AnswerRecord
		if err := proto.Unmarshal(v.Record, &full); err != nil {
			return err
		}
		full.Seq = w.GetSeq() // the key holds it, the record need not
		if !proto.Equal(&full, w) {
			return fmt.Errorf("view %d record = %v, want %v", i-1, &full, w)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	if i != len(want) {
		t.Errorf("AnswerViews saw %d records, want %d", i, len(want))
	}
}

func testAnswersStop(t *testing.T, h *harness) {
	for range 3 {
		id := h.addAsk("ana")
		if _, err := h.s.Answer(id, AnswerRecord(id, storev1.Choice_CHOICE_APPROVE)); err != nil {
			t.Fatal(err)
		}
	}
	stop := errors.New("stop")
	n := 0
	if err := h.s.Answers(func(*storev1.AnswerRecord) error { n++; return stop }); err != stop {
		t.Errorf("Answers = %v, want the callback's error as is", err)
	}
	if n != 1 {
		t.Errorf("Answers called back %d times after an error, want 1", n)
	}
	n = 0
	if err := h.s.AnswerViews(func(*store.AnswerView) error { n++; return stop }); err != stop {
		t.Errorf("AnswerViews = %v, want the callback's error as is", err)
	}
	if n != 1 {
		t.Errorf("AnswerViews called back %d times after an error, want 1", n)
	}
}

func testHistory(t *testing.T, h *harness) {
	var ids []uint64
	for i := range 12 {
		user := "ana"
		if i%3 == 0 {
			user = "bo"
		}
		id := h.newID()
		h.s.LogDecision(Decision(id, user, storev1.Verdict_VERDICT_ALLOW))
		ids = append(ids, id)
	}
	ask := h.addAsk("ana")
	h.flush()
	idsOf := func(ds []*storev1.Decision) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.GetDecisionId())
		}
		return out
	}
	fmtIDs := func(ids ...uint64) []string {
		var out []string
		for _, id := range ids {
			out = append(out, store.FormatID(id))
		}
		return out
	}
	all, err := h.s.History(store.HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmtIDs(append([]uint64{ask}, reversed(ids)...)...)
	if got := idsOf(all); !slices.Equal(got, want) {
		t.Errorf("History = %v, want %v (newest first)", got, want)
	}
	page, _ := h.s.History(store.HistoryQuery{Limit: 4})
	if got := idsOf(page); !slices.Equal(got, want[:4]) {
		t.Errorf("History limit 4 = %v, want %v", got, want[:4])
	}
	next, _ := h.s.History(store.HistoryQuery{Limit: 4, BeforeID: ids[8]})
	if got := idsOf(next); !slices.Equal(got, fmtIDs(ids[7], ids[6], ids[5], ids[4])) {
		t.Errorf("History before %d = %v", ids[8], got)
	}
	bo, _ := h.s.History(store.HistoryQuery{User: "bo"})
	if got := idsOf(bo); !slices.Equal(got, fmtIDs(ids[9], ids[6], ids[3], ids[0])) {
		t.Errorf("History of bo = %v", got)
	}
	asks, _ := h.s.History(store.HistoryQuery{AsksOnly: true})
	if got := idsOf(asks); !slices.Equal(got, fmtIDs(ask)) {
		t.Errorf("History asks only = %v, want [%d]", got, ask)
	}
	d, err := h.s.Decision(ids[2])
	if err != nil || !proto.Equal(d, Decision(ids[2], "ana", storev1.Verdict_VERDICT_ALLOW)) {
		t.Errorf("Decision(%d) = %v, %v", ids[2], d, err)
	}
	if _, err := h.s.Decision(999999); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Decision of an unknown id = %v, want ErrNotFound", err)
	}
	if err := h.s.LogErr(); err != nil {
		t.Errorf("LogErr of a healthy store = %v", err)
	}
}

func reversed(ids []uint64) []uint64 {
	out := slices.Clone(ids)
	slices.Reverse(out)
	return out
}

// testLogKeepsOutcome: a record logged under an ask's id (limend logs
// every decision) must not overwrite the ask or its outcome.
func testLogKeepsOutcome(t *testing.T, h *harness) {
	id := h.addAsk("ana")
	answered, err := h.s.Answer(id, AnswerRecord(id, storev1.Choice_CHOICE_APPROVE))
	if err != nil {
		t.Fatal(err)
	}
	h.s.LogDecision(Decision(id, "ana", storev1.Verdict_VERDICT_ASK))
	pending := h.addAsk("bo")
	h.s.LogDecision(Decision(pending, "mallory", storev1.Verdict_VERDICT_ALLOW))
	h.flush()
	if d, err := h.s.Decision(id); err != nil || !proto.Equal(d, answered) {
		t.Errorf("after LogDecision of an answered ask: %v, %v; want %v", d, err, answered)
	}
	if d, err := h.s.Decision(pending); err != nil || d.GetAction().GetUser() != "bo" {
		t.Errorf("after LogDecision over a pending ask: %v, %v; want bo's ask", d, err)
	}
}

func testDecisions(t *testing.T, h *harness) {
	var want []string
	for range 5 {
		want = append(want, store.FormatID(h.logged("ana", storev1.Verdict_VERDICT_BLOCK)))
	}
	want = append(want, store.FormatID(h.addAsk("ana")))
	slices.Reverse(want)
	var got []*storev1.Decision
	if err := h.s.Decisions(func(d *storev1.Decision) error { got = append(got, d); return nil }); err != nil {
		t.Fatal(err)
	}
	var gotIDs []string
	for _, d := range got {
		gotIDs = append(gotIDs, d.GetDecisionId())
	}
	if !slices.Equal(gotIDs, want) {
		t.Errorf("Decisions = %v, want %v (newest first)", gotIDs, want)
	}
	if len(got) > 1 && got[0] == got[1] {
		t.Error("Decisions reused a message; fn may keep them")
	}
	stop := errors.New("stop")
	n := 0
	if err := h.s.Decisions(func(*storev1.Decision) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("Decisions with a stopping callback = %v after %d calls, want the error after 1", err, n)
	}
}

func testFlushBadRecords(t *testing.T, h *harness) {
	bad := Decision(h.newID(), "ana", storev1.Verdict_VERDICT_ALLOW)
	bad.DecisionId = "not-a-number"
	h.s.LogDecision(bad)
	good := h.newID()
	h.s.LogDecision(Decision(good, "ana", storev1.Verdict_VERDICT_ALLOW))
	if err := h.s.Flush(t.Context()); err == nil {
		t.Error("Flush after a record with a bad id = nil, want its error")
	}
	if err := h.s.Flush(t.Context()); err != nil {
		t.Errorf("the next Flush = %v, want nil (the error was reported once)", err)
	}
	if _, err := h.s.Decision(good); err != nil {
		t.Errorf("the good record beside the bad one: %v", err)
	}
}

func testFlushAfterClose(t *testing.T, h *harness) {
	s := h.s
	h.close()
	if err := s.Flush(t.Context()); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Flush after Close = %v, want ErrClosed", err)
	}
	s.LogDecision(Decision(1, "ana", storev1.Verdict_VERDICT_ALLOW)) // dropped, not a panic
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
}

func testPolicy(t *testing.T, h *harness) {
	if _, err := h.s.Policy(); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Policy of an empty store = %v, want ErrNotFound", err)
	}
	p := &storev1.Policy{Document: "v1", Author: "ana"}
	stored, err := h.s.SetPolicy(0, p)
	if err != nil {
		t.Fatal(err)
	}
	if stored.GetVersion() != 1 || p.GetVersion() != 0 {
		t.Errorf("SetPolicy stored version %d and set the argument's to %d; want 1 and 0", stored.GetVersion(), p.GetVersion())
	}
	if _, err := h.s.SetPolicy(0, &storev1.Policy{Document: "late"}); !errors.Is(err, store.ErrVersionConflict) {
		t.Errorf("SetPolicy on a stale version = %v, want ErrVersionConflict", err)
	}
	if _, err := h.s.SetPolicy(5, &storev1.Policy{Document: "ahead"}); !errors.Is(err, store.ErrVersionConflict) {
		t.Errorf("SetPolicy on a future version = %v, want ErrVersionConflict", err)
	}
	if _, err := h.s.SetPolicy(1, nil); err == nil {
		t.Error("SetPolicy(nil) succeeded")
	}
	if _, err := h.s.SetPolicy(1, &storev1.Policy{Document: "v2"}); err != nil {
		t.Fatal(err)
	}
	cur, err := h.s.Policy()
	if err != nil || cur.GetVersion() != 2 || cur.GetDocument() != "v2" {
		t.Errorf("Policy = %v, %v; want version 2", cur, err)
	}
	v1, err := h.s.PolicyVersion(1)
	if err != nil || !proto.Equal(v1, stored) {
		t.Errorf("PolicyVersion(1) = %v, %v; want %v", v1, err, stored)
	}
	if _, err := h.s.PolicyVersion(3); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PolicyVersion(3) = %v, want ErrNotFound", err)
	}
	all, err := h.s.PolicyVersions()
	if err != nil || len(all) != 2 || all[0].GetVersion() != 1 || all[1].GetVersion() != 2 {
		t.Errorf("PolicyVersions = %v, %v; want versions 1 and 2, oldest first", all, err)
	}
}

func testPolicyRace(t *testing.T, h *harness) {
	if _, err := h.s.SetPolicy(0, &storev1.Policy{Document: "v1"}); err != nil {
		t.Fatal(err)
	}
	const racers = 6
	var wg sync.WaitGroup
	won := make(chan string, racers)
	for i := range racers {
		wg.Go(func() {
			doc := fmt.Sprintf("racer %d", i)
			if _, err := h.s.SetPolicy(1, &storev1.Policy{Document: doc}); err == nil {
				won <- doc
			} else if !errors.Is(err, store.ErrVersionConflict) {
				t.Errorf("losing SetPolicy = %v, want ErrVersionConflict", err)
			}
		})
	}
	wg.Wait()
	close(won)
	var winners []string
	for w := range won {
		winners = append(winners, w)
	}
	if len(winners) != 1 {
		t.Fatalf("%d SetPolicy calls on version 1 won (%v), want exactly one", len(winners), winners)
	}
	if p, err := h.s.Policy(); err != nil || p.GetVersion() != 2 || p.GetDocument() != winners[0] {
		t.Errorf("Policy = %v, %v; want version 2 by %s", p, err, winners[0])
	}
}

func testReopen(t *testing.T, h *harness) {
	if _, err := h.s.SetPolicy(0, &storev1.Policy{Document: "kept"}); err != nil {
		t.Fatal(err)
	}
	answered := h.addAsk("ana")
	rec := AnswerRecord(answered, storev1.Choice_CHOICE_APPROVE)
	ans, err := h.s.Answer(answered, rec)
	if err != nil {
		t.Fatal(err)
	}
	expired := h.addAsk("ana")
	exp, err := h.s.Expire(expired, nil)
	if err != nil {
		t.Fatal(err)
	}
	waiting := h.addAsk("bo")
	allowID := h.newID()
	h.s.LogDecision(Decision(allowID, "ana", storev1.Verdict_VERDICT_ALLOW))
	// No Flush: Close must write what was logged.
	h.reopen()

	if p, err := h.s.Policy(); err != nil || p.GetDocument() != "kept" {
		t.Errorf("policy after reopen = %v, %v", p, err)
	}
	if got := h.pendingIDs(); !slices.Equal(got, []string{store.FormatID(waiting)}) {
		t.Errorf("pending after reopen = %v, want [%d]", got, waiting)
	}
	if got := h.answers(); len(got) != 1 || !proto.Equal(got[0], rec) {
		t.Errorf("answers after reopen = %v, want [%v]", got, rec)
	}
	for _, want := range []*storev1.Decision{ans, exp, Decision(allowID, "ana", storev1.Verdict_VERDICT_ALLOW)} {
		id, _ := store.ParseID(want.GetDecisionId())
		if d, err := h.s.Decision(id); err != nil || !proto.Equal(d, want) {
			t.Errorf("decision %d after reopen = %v, %v; want %v", id, d, err, want)
		}
	}
	if _, err := h.s.Answer(answered, AnswerRecord(answered, storev1.Choice_CHOICE_DENY)); !errors.Is(err, store.ErrResolved) {
		t.Errorf("replayed answer after reopen = %v, want ErrResolved", err)
	}
	if _, err := h.s.Answer(waiting, AnswerRecord(waiting, storev1.Choice_CHOICE_DENY)); err != nil {
		t.Errorf("answer to the ask that waited across the reopen = %v", err)
	}
	if id := h.newID(); id <= allowID {
		t.Errorf("NextID after reopen = %d, not above %d", id, allowID)
	}
}
