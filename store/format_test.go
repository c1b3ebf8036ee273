package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// oldFile copies testdata/limen-v2.db, a file written by the store when its
// records were limenv1 API messages (testdata/README.md says how), to a
// temporary path, and returns the path and what the old store read back
// from it (testdata/limen-v2.json, printed from the old messages).
func oldFile(t *testing.T) (string, map[string][]json.RawMessage) {
	t.Helper()
	b, err := os.ReadFile("testdata/limen-v2.db")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "limen.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := os.ReadFile("testdata/limen-v2.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]json.RawMessage
	if err := json.Unmarshal(j, &want); err != nil {
		t.Fatal(err)
	}
	return path, want
}

// sameAsOld checks that got, read by this store, is what the old store
// read as its limenv1 message (as JSON: the field and enum value names are
// the same in both packages).
func sameAsOld[M proto.Message](t *testing.T, kind string, want []json.RawMessage, got []M, m func() M) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: read %d records, the old store read %d", kind, len(got), len(want))
	}
	for i, raw := range want {
		w := m()
		if err := protojson.Unmarshal(raw, w); err != nil {
			t.Fatalf("%s %d: %v", kind, i, err)
		}
		if !proto.Equal(w, got[i]) {
			t.Errorf("%s %d:\n got %v\nwant %v", kind, i, prototext.Format(got[i]), prototext.Format(w))
		}
	}
}

// TestReadsFilesWrittenWithAPIMessages: a file written when the records
// were limenv1 messages (schema version 2) opens with no migration, and
// every record reads as the old store read it, every field set: decisions
// with and without outcomes, a pending ask, both policy versions and the
// answer with its ladders, through Answers and through the hand decoder
// of AnswerViews. New records then go in beside the old ones.
func TestReadsFilesWrittenWithAPIMessages(t *testing.T) {
	path, want := oldFile(t)
	s := openStore(t, path, Options{})
	if err := s.db.View(func(tx *bolt.Tx) error {
		if v := readSchemaVersion(tx); v != 2 || schemaVersion() != 2 {
			t.Errorf("schema version %d (this build %d): the format change needed none", v, schemaVersion())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	hist, err := s.History(HistoryQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	sameAsOld(t, "history", want["history"], hist, func() *storev1.Decision { return new(storev1.Decision) })
	pend, err := s.Pending()
	if err != nil {
		t.Fatal(err)
	}
	sameAsOld(t, "pending", want["pending"], pend, func() *storev1.PendingAsk { return new(storev1.PendingAsk) })
	pols, err := s.PolicyVersions()
	if err != nil {
		t.Fatal(err)
	}
	sameAsOld(t, "policies", want["policies"], pols, func() *storev1.Policy { return new(storev1.Policy) })
	var answers []*storev1.AnswerRecord
	if err := s.Answers(func(r *storev1.AnswerRecord) error {
		answers = append(answers, proto.CloneOf(r))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sameAsOld(t, "answers", want["answers"], answers, func() *storev1.AnswerRecord { return new(storev1.AnswerRecord) })
	if len(answers) == 0 || len(answers[0].GetLadders()) == 0 || answers[0].GetTime() == nil {
		t.Fatal("the fixture's answer has no ladders or time: it proves nothing about the hand decoder")
	}
	n := 0
	if err := s.AnswerViews(func(v *AnswerView) error {
		checkView(t, "old answer", v, answers[n])
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != len(answers) {
		t.Errorf("AnswerViews saw %d answers, Answers %d", n, len(answers))
	}

	// The old file takes new records and keeps them across a reopen.
	if len(pend) != 1 {
		t.Fatalf("the fixture has %d pending asks, want 1", len(pend))
	}
	id, err := ParseID(pend[0].GetAskId())
	if err != nil {
		t.Fatal(err)
	}
	rec := answerRecord(id, storev1.Choice_CHOICE_DENY)
	if _, err := s.Answer(id, rec); err != nil {
		t.Fatalf("answer the old pending ask: %v", err)
	}
	next := newID(t, s)
	if last, _ := ParseID(hist[0].GetDecisionId()); next <= last {
		t.Errorf("NextID = %d on a file whose last decision is %d", next, last)
	}
	s = reopen(t, s)
	d, err := s.Decision(id)
	if err != nil {
		t.Fatal(err)
	}
	if o := d.GetOutcome(); o.GetState() != storev1.AskState_ASK_STATE_ANSWERED || o.GetChoice() != storev1.Choice_CHOICE_DENY {
		t.Errorf("the old ask, answered by this store, has outcome %v", o)
	}
	if got := answerCount(t, s); got != len(answers)+1 {
		t.Errorf("%d answers after one more, want %d", got, len(answers)+1)
	}
}
