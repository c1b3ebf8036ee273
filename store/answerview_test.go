package store

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// viewOf is what AnswerViews must yield for rec, taken from the full
// decode.
func viewOf(rec *storev1.AnswerRecord) (user string, choice storev1.Choice, at time.Time, scheme uint32, ladders [][]string) {
	for _, l := range rec.GetLadders() {
		ladders = append(ladders, l.GetKeys())
	}
	return rec.GetAction().GetUser(), rec.GetChoice(), rec.GetTime().AsTime(), rec.GetKeyScheme(), ladders
}

func checkView(t *testing.T, name string, v *AnswerView, want *storev1.AnswerRecord) {
	t.Helper()
	user, choice, at, scheme, ladders := viewOf(want)
	var got [][]string
	for _, l := range v.Ladders {
		ks := []string{}
		for _, k := range l {
			ks = append(ks, string(k))
		}
		got = append(got, ks)
	}
	for i := range ladders {
		if ladders[i] == nil {
			ladders[i] = []string{}
		}
	}
	if string(v.User) != user || v.Choice != choice || !v.Time.Equal(at) || v.Time.Location() != at.Location() ||
		v.KeyScheme != scheme || !slices.EqualFunc(got, ladders, slices.Equal) {
		t.Errorf("%s: view = %q %v %v %d %q; proto.Unmarshal gives %q %v %v %d %q",
			name, v.User, v.Choice, v.Time, v.KeyScheme, got, user, choice, at, scheme, ladders)
	}
	if string(v.AnsweredBy) != want.GetAnsweredBy() {
		t.Errorf("%s: view answered by %q; proto.Unmarshal gives %q", name, v.AnsweredBy, want.GetAnsweredBy())
	}
}

// TestAnswerViewsDecodeAsUnmarshal stores records through Answer and checks
// that the in-place decoding reads the same fields as proto.Unmarshal.
func TestAnswerViewsDecodeAsUnmarshal(t *testing.T) {
	s := openStore(t, "", Options{})
	recs := []*storev1.AnswerRecord{
		answerRecord(0, storev1.Choice_CHOICE_DENY),
		{}, // nothing but the seq and ask id Answer sets
		{Action: &storev1.Action{User: "bo", Tool: "Read", InputJson: `{"file_path":"x"}`, Cwd: "/home/bo"},
			Choice: storev1.Choice_CHOICE_APPROVE, Time: timestamppb.New(time.Date(2026, 5, 1, 2, 3, 4, 5, time.UTC)),
			KeyScheme: 2, Note: "fine", Scope: storev1.Scope_SCOPE_SESSION,
			Ladders: []*storev1.Ladder{{Keys: []string{"Read", "Read:workspace", "Read:/home/bo/x"}}, {}, {Keys: []string{"é", ""}}}},
		{Action: &storev1.Action{}, Time: &timestamppb.Timestamp{Seconds: -5, Nanos: 7}, Choice: storev1.Choice(99)},
	}
	for _, rec := range recs {
		id := addAsk(t, s, "ana")
		if _, err := s.Answer(id, rec); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	err := s.AnswerViews(func(v *AnswerView) error {
		if v.Seq != uint64(i+1) {
			t.Errorf("record %d: Seq = %d", i, v.Seq)
		}
		full := new(storev1.AnswerRecord)
		if err := proto.Unmarshal(v.Record, full); err != nil || !proto.Equal(full, recs[i]) {
			t.Errorf("record %d: Record decodes to %v (%v); want %v", i, full, err, recs[i])
		}
		checkView(t, fmt.Sprint("record ", i), v, recs[i])
		i++
		return nil
	})
	if err != nil || i != len(recs) {
		t.Fatalf("AnswerViews = %v after %d records; want nil after %d", err, i, len(recs))
	}
}

// TestAnswerViewDecodeWireOddities feeds the decoder encodings proto.Marshal
// does not write but proto.Unmarshal accepts: repeated singular fields
// (the last wins, messages merge), fields of another wire type (ignored),
// unknown fields and groups (skipped).
func TestAnswerViewDecodeWireOddities(t *testing.T) {
	msg := func(m proto.Message) []byte {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	bytesField := func(b []byte, num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
	}
	varintField := func(b []byte, num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
	}
	var b []byte
	b = bytesField(b, answerAction, msg(&storev1.Action{User: "first", Tool: "Bash"}))
	b = bytesField(b, answerAction, msg(&storev1.Action{Tool: "Read"})) // merges, keeps the user
	b = varintField(b, answerChoice, 1)
	b = varintField(b, answerChoice, 2)          // last wins
	b = bytesField(b, answerChoice, []byte("x")) // wrong wire type: ignored
	b = varintField(b, answerKeyScheme, 1<<32|2) // uint32 truncation
	b = bytesField(b, answerTime, msg(&timestamppb.Timestamp{Seconds: 100, Nanos: 9}))
	b = bytesField(b, answerTime, msg(&timestamppb.Timestamp{Nanos: 3})) // merges: seconds stay 100
	b = bytesField(b, answerLadders, msg(&storev1.Ladder{Keys: []string{"a", "b"}}))
	b = protowire.AppendTag(b, 99, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, 7)
	b = protowire.AppendTag(b, 98, protowire.StartGroupType)
	b = varintField(b, 1, 5)
	b = protowire.AppendTag(b, 98, protowire.EndGroupType)
	b = bytesField(b, answerLadders, msg(&storev1.Ladder{Keys: []string{"c"}}))
	b = bytesField(b, answerAction, msg(&storev1.Action{User: "last"}))

	want := new(storev1.AnswerRecord)
	if err := proto.Unmarshal(b, want); err != nil {
		t.Fatal(err)
	}
	var v AnswerView
	if err := v.decode(b); err != nil {
		t.Fatal(err)
	}
	checkView(t, "odd record", &v, want)

	// Reusing the view leaves nothing of the previous record behind.
	if err := v.decode(msg(&storev1.AnswerRecord{Choice: storev1.Choice_CHOICE_DENY})); err != nil {
		t.Fatal(err)
	}
	checkView(t, "reused view", &v, &storev1.AnswerRecord{Choice: storev1.Choice_CHOICE_DENY})
}

// TestAnswerViewDecodeRefusesWhatUnmarshalRefuses: truncated records and
// strings that are not UTF-8, in the fields the view reads, are errors.
func TestAnswerViewDecodeRefusesWhatUnmarshalRefuses(t *testing.T) {
	good, err := proto.Marshal(answerRecord(1, storev1.Choice_CHOICE_APPROVE))
	if err != nil {
		t.Fatal(err)
	}
	badUser := protowire.AppendBytes(protowire.AppendTag(nil, answerAction, protowire.BytesType),
		protowire.AppendBytes(protowire.AppendTag(nil, actionUser, protowire.BytesType), []byte{0xff}))
	badKey := protowire.AppendBytes(protowire.AppendTag(nil, answerLadders, protowire.BytesType),
		protowire.AppendBytes(protowire.AppendTag(nil, ladderKeys, protowire.BytesType), []byte("a\xc0")))
	for name, b := range map[string][]byte{
		"truncated":      good[:len(good)-1],
		"user not UTF-8": badUser,
		"key not UTF-8":  badKey,
		"end group":      protowire.AppendTag(nil, 5, protowire.EndGroupType),
	} {
		if err := proto.Unmarshal(b, new(storev1.AnswerRecord)); err == nil {
			t.Fatalf("%s: proto.Unmarshal accepts it; the test is wrong", name)
		}
		var v AnswerView
		if err := v.decode(b); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

func TestAnswerViewsReportsBadRecordsAndStopsOnCallbackError(t *testing.T) {
	s := openStore(t, "", Options{})
	for range 3 {
		id := addAsk(t, s, "ana")
		if _, err := s.Answer(id, answerRecord(id, storev1.Choice_CHOICE_APPROVE)); err != nil {
			t.Fatal(err)
		}
	}
	stop := errors.New("stop")
	var seqs []uint64
	err := s.AnswerViews(func(v *AnswerView) error {
		seqs = append(seqs, v.Seq)
		if len(seqs) == 2 {
			return stop
		}
		return nil
	})
	if err != stop || !slices.Equal(seqs, []uint64{1, 2}) {
		t.Errorf("AnswerViews = %v after %v; want the callback's error unchanged after [1 2]", err, seqs)
	}

	if err := s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketAnswers).Put(u64(2), []byte{0x0a, 0x05, 'x'}) // truncated
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.AnswerViews(func(*AnswerView) error { return nil }); err == nil {
		t.Error("AnswerViews over a truncated record succeeded")
	}
}

// TestAnswerViewsAllocateNothingPerRecord: the point of the views. A walk
// allocates its pages of views and their buffers once, however many
// records it reads.
func TestAnswerViewsAllocateNothingPerRecord(t *testing.T) {
	s := openStore(t, "", Options{NoSync: true})
	walk := func() {
		n := 0
		if err := s.AnswerViews(func(*AnswerView) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	add := func(n int) { putAnswers(t, s, n) }
	add(5000)
	few := testing.AllocsPerRun(3, walk)
	add(20000)
	many := testing.AllocsPerRun(3, walk)
	if many > few+20 || few > 100 {
		t.Errorf("walking 5,000 answers allocates %v times, 25,000 answers %v: something is allocated per record", few, many)
	}
}

// putAnswers appends n answers to the log in one transaction.
func putAnswers(t *testing.T, s *Store, n int) {
	t.Helper()
	rec := answerRecord(1, storev1.Choice_CHOICE_APPROVE)
	rec.Ladders = append(rec.Ladders, &storev1.Ladder{Keys: []string{"Bash", "Bash:make"}})
	v, err := proto.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAnswers)
		for range n {
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			if err := b.Put(u64(seq), v); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestAnswerViewsAcrossPages: records are decoded a page ahead on another
// goroutine; fn still sees every record once, in order, and a stop or a
// bad record in a later page ends the walk where it happens, with no
// goroutine left behind (TestMain checks).
func TestAnswerViewsAcrossPages(t *testing.T) {
	s := openStore(t, "", Options{NoSync: true})
	putAnswers(t, s, 2000)
	walk := func(stopAt uint64) ([]uint64, error) {
		var seqs []uint64
		err := s.AnswerViews(func(v *AnswerView) error {
			seqs = append(seqs, v.Seq)
			if string(v.User) != "ana" || len(v.Ladders) != 2 {
				t.Fatalf("record %d: %q, %d ladders", v.Seq, v.User, len(v.Ladders))
			}
			if v.Seq == stopAt {
				return errStop
			}
			return nil
		})
		return seqs, err
	}
	upTo := func(n uint64) []uint64 {
		var out []uint64
		for i := uint64(1); i <= n; i++ {
			out = append(out, i)
		}
		return out
	}
	if seqs, err := walk(0); err != nil || !slices.Equal(seqs, upTo(2000)) {
		t.Errorf("walk = %v after %d records; want all 2000 in order", err, len(seqs))
	}
	for _, stop := range []uint64{1, 700, 2000} {
		if seqs, err := walk(stop); err != errStop || !slices.Equal(seqs, upTo(stop)) {
			t.Errorf("stop at %d: walk = %v after %d records", stop, err, len(seqs))
		}
	}
	if err := s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketAnswers).Put(u64(1500), []byte{0x0a, 0x05, 'x'}) // truncated
	}); err != nil {
		t.Fatal(err)
	}
	if seqs, err := walk(0); err == nil || errors.Is(err, errStop) || !slices.Equal(seqs, upTo(1499)) {
		t.Errorf("bad record 1500: walk = %v after %d records; want a decode error after 1499", err, len(seqs))
	}

	closeStore(t, s)
	if seqs, err := walk(0); err == nil || len(seqs) != 0 {
		t.Errorf("closed store: walk = %v after %d records; want an error", err, len(seqs))
	}
}

var errStop = errors.New("stop")

// TestAnswerViewFieldNumbersMatchStoreProto: the hand decoder's field
// numbers are those of the messages it decodes, so a change to
// store.proto cannot leave it reading the wrong fields.
func TestAnswerViewFieldNumbersMatchStoreProto(t *testing.T) {
	rec := (&storev1.AnswerRecord{}).ProtoReflect().Descriptor().Fields()
	act := (&storev1.Action{}).ProtoReflect().Descriptor().Fields()
	lad := (&storev1.Ladder{}).ProtoReflect().Descriptor().Fields()
	ts := (&timestamppb.Timestamp{}).ProtoReflect().Descriptor().Fields()
	for _, c := range []struct {
		fields interface {
			ByName(protoreflect.Name) protoreflect.FieldDescriptor
		}
		name string
		num  protowire.Number
		kind protoreflect.Kind
	}{
		{rec, "action", answerAction, protoreflect.MessageKind},
		{rec, "choice", answerChoice, protoreflect.EnumKind},
		{rec, "answered_by", answerBy, protoreflect.StringKind},
		{rec, "time", answerTime, protoreflect.MessageKind},
		{rec, "key_scheme", answerKeyScheme, protoreflect.Uint32Kind},
		{rec, "ladders", answerLadders, protoreflect.MessageKind},
		{act, "user", actionUser, protoreflect.StringKind},
		{lad, "keys", ladderKeys, protoreflect.StringKind},
		{ts, "seconds", timeSeconds, protoreflect.Int64Kind},
		{ts, "nanos", timeNanos, protoreflect.Int32Kind},
	} {
		fd := c.fields.ByName(protoreflect.Name(c.name))
		if fd == nil || fd.Number() != c.num || fd.Kind() != c.kind {
			t.Errorf("field %s: store.proto has %v, the decoder reads number %d as %v", c.name, fd, c.num, c.kind)
		}
	}
}
