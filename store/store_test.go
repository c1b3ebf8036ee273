package store

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// TestMain proves that Close stops the batcher: no goroutine may outlive the
// tests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// openStore opens a store at path (a fresh file in t.TempDir() if empty)
// and, like bbolt's own tests, checks the file's consistency when the test
// ends, then closes it.
func openStore(t testing.TB, path string, opts Options) *Store {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "limen.db")
	}
	s, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { closeStore(t, s) })
	return s
}

// closeStore checks and closes s; closing twice is harmless.
func closeStore(t testing.TB, s *Store) {
	t.Helper()
	s.logMu.RLock()
	closed := s.closed
	s.logMu.RUnlock()
	if closed {
		return
	}
	if err := s.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// reopen checks and closes s and opens its file again.
func reopen(t testing.TB, s *Store) *Store {
	t.Helper()
	closeStore(t, s)
	return openStore(t, s.Path(), s.opts)
}

func newID(t testing.TB, s *Store) uint64 {
	t.Helper()
	id, err := s.NextID()
	if err != nil {
		t.Fatalf("NextID: %v", err)
	}
	return id
}

func decision(id uint64, user string, verdict storev1.Verdict) *storev1.Decision {
	d := &storev1.Decision{
		DecisionId: FormatID(id),
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

// addAsk stores a new pending ask for user and returns its id.
func addAsk(t testing.TB, s *Store, user string) uint64 {
	t.Helper()
	id := newID(t, s)
	d := decision(id, user, storev1.Verdict_VERDICT_ASK)
	if err := s.AddPending(d, &storev1.PendingAsk{AskId: d.AskId}); err != nil {
		t.Fatalf("AddPending: %v", err)
	}
	return id
}

func answerRecord(id uint64, choice storev1.Choice) *storev1.AnswerRecord {
	return &storev1.AnswerRecord{
		AskId:      FormatID(id),
		Action:     &storev1.Action{User: "ana", Tool: "Bash", InputJson: `{"command":"git push"}`},
		Choice:     choice,
		AnsweredBy: "ana",
		KeyScheme:  1,
		Ladders:    []*storev1.Ladder{{Keys: []string{"Bash", "git", "git push"}}},
	}
}

func answerCount(t testing.TB, s *Store) int {
	t.Helper()
	n, err := s.AnswerCount()
	if err != nil {
		t.Fatalf("AnswerCount: %v", err)
	}
	return n
}

func TestOpenCreatesPrivateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "limen")
	s := openStore(t, filepath.Join(dir, "limen.db"), Options{})
	for path, want := range map[string]os.FileMode{dir: 0o700, s.Path(): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", path, got, want)
		}
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	s := openStore(t, "", Options{})
	waiting := addAsk(t, s, "ana")
	done := addAsk(t, s, "ana")
	if _, err := s.Answer(done, answerRecord(done, storev1.Choice_CHOICE_APPROVE)); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	allowed := newID(t, s)
	s.LogDecision(decision(allowed, "ana", storev1.Verdict_VERDICT_ALLOW))
	if _, err := s.SetPolicy(0, &storev1.Policy{Document: "[costs]\nallow = 10\n"}); err != nil {
		t.Fatalf("SetPolicy: %v", err)
	}

	s = reopen(t, s) // Close must flush the logged decision

	pending, err := s.Pending()
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 1 || pending[0].GetAskId() != FormatID(waiting) || pending[0].GetDecision().GetDecisionId() != FormatID(waiting) {
		t.Errorf("Pending after reopen = %v, want ask %d with its decision", pending, waiting)
	}
	d, err := s.Decision(done)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.GetOutcome().GetState(); got != storev1.AskState_ASK_STATE_ANSWERED {
		t.Errorf("answered decision state = %v", got)
	}
	if _, err := s.Decision(allowed); err != nil {
		t.Errorf("logged decision lost on Close: %v", err)
	}
	if n := answerCount(t, s); n != 1 {
		t.Errorf("AnswerCount = %d, want 1", n)
	}
	p, err := s.Policy()
	if err != nil || p.GetVersion() != 1 || !strings.Contains(p.GetDocument(), "allow = 10") {
		t.Errorf("Policy after reopen = %v, %v", p, err)
	}
}

func TestOpenLockedFailsFast(t *testing.T) {
	s := openStore(t, "", Options{})
	const timeout = 100 * time.Millisecond
	start := time.Now()
	other, err := Open(s.Path(), Options{LockTimeout: timeout})
	elapsed := time.Since(start)
	if err == nil {
		other.Close()
		t.Fatal("second Open succeeded while the first holds the file")
	}
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
	for _, want := range []string{s.Path(), "is limend already running?"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if elapsed > timeout+time.Second { // generous: CI machines stall
		t.Errorf("second Open took %v with LockTimeout %v", elapsed, timeout)
	}
}

func TestParseID(t *testing.T) {
	tests := []struct {
		in      string
		want    uint64
		wantErr bool
	}{
		{"42", 42, false},
		{FormatID(1<<64 - 1), 1<<64 - 1, false},
		{"", 0, true},
		{"-1", 0, true},
		{"0x2a", 0, true},
		{" 42", 0, true},
		{"ask-42", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseID(tt.in)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "limenctl pending") {
					t.Errorf("ParseID(%q) = %d, %v; want an error naming limenctl pending", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseID(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestNextIDUniqueAndIncreasing(t *testing.T) {
	s := openStore(t, "", Options{})
	const workers, each = 8, idBlock / 2 // together they cross block boundaries
	ids := make([][]uint64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				id, err := s.NextID()
				if err != nil {
					t.Error(err)
					return
				}
				ids[w] = append(ids[w], id)
			}
		})
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for _, got := range ids {
		if !slices.IsSorted(got) {
			t.Errorf("ids of one goroutine not increasing")
		}
		for _, id := range got {
			if id == 0 || seen[id] {
				t.Fatalf("id %d handed out twice or zero", id)
			}
			seen[id] = true
		}
	}
	last := slices.Max(slices.Concat(ids...))
	if r := readReserved(t, s); r <= last {
		t.Errorf("id_reserved = %d on disk, but id %d was handed out", r, last)
	}

	s = reopen(t, s)
	if id := newID(t, s); id <= last {
		t.Errorf("after reopen NextID = %d, want > %d", id, last)
	}
}

// TestNextIDSurvivesCrash takes a copy of the file while the store is open,
// which is what a crash leaves behind, and checks that a store opened from
// it never hands out an id the crashed one did.
func TestNextIDSurvivesCrash(t *testing.T) {
	s := openStore(t, "", Options{})
	var last uint64
	for range idBlock + 10 {
		last = newID(t, s)
	}
	crashed := filepath.Join(t.TempDir(), "crashed.db")
	if err := s.db.View(func(tx *bolt.Tx) error { return tx.CopyFile(crashed, 0o600) }); err != nil {
		t.Fatal(err)
	}
	for range 10 { // ids handed out after the snapshot, still inside the reserved block
		last = newID(t, s)
	}
	after := openStore(t, crashed, Options{})
	if id := newID(t, after); id <= last {
		t.Errorf("after crash NextID = %d, want > %d (last id before the crash)", id, last)
	}
}

func readReserved(t testing.TB, s *Store) uint64 {
	t.Helper()
	var r uint64
	if err := s.db.View(func(tx *bolt.Tx) error {
		r = binary.BigEndian.Uint64(tx.Bucket(bucketMeta).Get(keyIDReserved))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestNextIDAfterClose(t *testing.T) {
	s := openStore(t, "", Options{})
	closeStore(t, s)
	if _, err := s.NextID(); err == nil {
		t.Error("NextID after Close succeeded; it cannot reserve ids on a closed file")
	}
}

func TestAnswerRefusals(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, s *Store) uint64 // returns the id to answer
		want    error
	}{
		{"unknown id", func(t *testing.T, s *Store) uint64 { return 999999 }, ErrNotFound},
		{"decision that did not ask", func(t *testing.T, s *Store) uint64 {
			id := newID(t, s)
			s.LogDecision(decision(id, "ana", storev1.Verdict_VERDICT_ALLOW))
			if err := s.Flush(t.Context()); err != nil {
				t.Fatal(err)
			}
			return id
		}, ErrNotFound},
		{"answered twice", func(t *testing.T, s *Store) uint64 {
			id := addAsk(t, s, "ana")
			if _, err := s.Answer(id, answerRecord(id, storev1.Choice_CHOICE_APPROVE)); err != nil {
				t.Fatal(err)
			}
			return id
		}, ErrResolved},
		{"expired then answered", func(t *testing.T, s *Store) uint64 {
			id := addAsk(t, s, "ana")
			if _, err := s.Expire(id, nil); err != nil {
				t.Fatal(err)
			}
			return id
		}, ErrResolved},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t, "", Options{})
			id := tt.prepare(t, s)
			before := answerCount(t, s)
			decisionBefore, _ := s.Decision(id)

			rec := answerRecord(id, storev1.Choice_CHOICE_DENY)
			_, err := s.Answer(id, rec)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Answer = %v, want %v", err, tt.want)
			}
			if rec.GetSeq() != 0 {
				t.Errorf("refused Answer left rec.Seq = %d", rec.GetSeq())
			}
			if after := answerCount(t, s); after != before {
				t.Errorf("refused Answer changed the answer count from %d to %d", before, after)
			}
			decisionAfter, _ := s.Decision(id)
			if !proto.Equal(decisionBefore, decisionAfter) {
				t.Errorf("refused Answer changed the decision:\nbefore %v\nafter  %v", decisionBefore, decisionAfter)
			}
			if _, err := s.Expire(id, nil); !errors.Is(err, tt.want) {
				t.Errorf("Expire = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestAnswerStoresAllThree(t *testing.T) {
	s := openStore(t, "", Options{})
	id := addAsk(t, s, "ana")
	rec := answerRecord(id, storev1.Choice_CHOICE_DENY)
	d, err := s.Answer(id, rec)
	if err != nil {
		t.Fatal(err)
	}
	if rec.GetSeq() != 1 {
		t.Errorf("rec.Seq = %d, want 1", rec.GetSeq())
	}
	o := d.GetOutcome()
	if o.GetState() != storev1.AskState_ASK_STATE_ANSWERED || o.GetChoice() != storev1.Choice_CHOICE_DENY {
		t.Errorf("returned outcome = %v", o)
	}
	stored, err := s.Decision(id)
	if err != nil || !proto.Equal(stored, d) {
		t.Errorf("stored decision = %v, %v; want %v", stored, err, d)
	}
	if p, _ := s.Pending(); len(p) != 0 {
		t.Errorf("answered ask still pending: %v", p)
	}
	var got []*storev1.AnswerRecord
	if err := s.Answers(func(r *storev1.AnswerRecord) error {
		got = append(got, proto.CloneOf(r))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !proto.Equal(got[0], rec) {
		t.Errorf("Answers = %v, want [%v]", got, rec)
	}
}

func TestExpire(t *testing.T) {
	s := openStore(t, "", Options{})
	id := addAsk(t, s, "ana")
	d, err := s.Expire(id, &storev1.AskOutcome{Time: timestamppb.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.GetOutcome().GetState(); got != storev1.AskState_ASK_STATE_EXPIRED {
		t.Errorf("state = %v, want expired", got)
	}
	if n := answerCount(t, s); n != 0 {
		t.Errorf("Expire stored an answer (count %d)", n)
	}
	if p, _ := s.Pending(); len(p) != 0 {
		t.Errorf("expired ask still pending: %v", p)
	}
}

func TestAddPendingRefusesResolved(t *testing.T) {
	s := openStore(t, "", Options{})
	id := addAsk(t, s, "ana")
	if _, err := s.Expire(id, nil); err != nil {
		t.Fatal(err)
	}
	d := decision(id, "ana", storev1.Verdict_VERDICT_ASK)
	if err := s.AddPending(d, &storev1.PendingAsk{AskId: d.AskId}); !errors.Is(err, ErrResolved) {
		t.Errorf("AddPending of a resolved ask = %v, want ErrResolved", err)
	}
	// An answered one too, while its outcome is still on its way to the
	// decision record (it used to be accepted, and pending again).
	answered := addAsk(t, s, "ana")
	if _, err := s.Answer(answered, answerRecord(answered, storev1.Choice_CHOICE_APPROVE)); err != nil {
		t.Fatal(err)
	}
	d = decision(answered, "ana", storev1.Verdict_VERDICT_ASK)
	if err := s.AddPending(d, &storev1.PendingAsk{AskId: d.AskId}); !errors.Is(err, ErrResolved) {
		t.Errorf("AddPending of an answered ask = %v, want ErrResolved", err)
	}
	if p, _ := s.Pending(); len(p) != 0 {
		t.Errorf("answered ask pending again: %v", p)
	}
	if err := s.AddPending(d, &storev1.PendingAsk{AskId: "7"}); err == nil {
		t.Error("AddPending with an ask id unlike the decision id succeeded")
	}
}

func TestPendingOldestFirst(t *testing.T) {
	s := openStore(t, "", Options{})
	var want []string
	for range 5 {
		want = append(want, FormatID(addAsk(t, s, "ana")))
	}
	pending, err := s.Pending()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pending {
		got = append(got, p.GetAskId())
	}
	if !slices.Equal(got, want) {
		t.Errorf("Pending ids = %v, want %v", got, want)
	}
}

func TestAnswersStopsOnCallbackError(t *testing.T) {
	s := openStore(t, "", Options{})
	for range 3 {
		id := addAsk(t, s, "ana")
		if _, err := s.Answer(id, answerRecord(id, storev1.Choice_CHOICE_APPROVE)); err != nil {
			t.Fatal(err)
		}
	}
	stop := errors.New("stop")
	var seqs []uint64
	err := s.Answers(func(r *storev1.AnswerRecord) error {
		seqs = append(seqs, r.GetSeq())
		if len(seqs) == 2 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Errorf("Answers = %v, want the callback's error unchanged", err)
	}
	if !slices.Equal(seqs, []uint64{1, 2}) {
		t.Errorf("seqs = %v, want [1 2]", seqs)
	}
}

func TestNextIDReservesAhead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "limen.db")
	s := openStore(t, path, Options{})
	first := newID(t, s) // reserves [first, first+idBlock) synchronously
	for range idBlock / 2 {
		newID(t, s)
	}
	s.background.Wait() // the reservation running ahead
	if got, want := s.reserved.Load(), first+2*idBlock; got != want {
		t.Errorf("reserved = %d, want %d: the next block should be reserved halfway through", got, want)
	}
	var onDisk uint64
	if err := s.db.View(func(tx *bolt.Tx) error {
		onDisk = binary.BigEndian.Uint64(tx.Bucket(bucketMeta).Get(keyIDReserved))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if onDisk != first+2*idBlock {
		t.Errorf("id_reserved on disk = %d, want %d", onDisk, first+2*idBlock)
	}
}

// TestCleanCloseDoesNotSkipIDs: ids go on from where they stopped after a
// clean close (they only jump a block after a crash).
func TestCleanCloseDoesNotSkipIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "limen.db")
	s := openStore(t, path, Options{})
	var last uint64
	for range 10 {
		last = newID(t, s)
	}
	closeStore(t, s)
	s = openStore(t, path, Options{})
	if next := newID(t, s); next != last+1 {
		t.Errorf("after a clean close the next id is %d, want %d", next, last+1)
	}
}
