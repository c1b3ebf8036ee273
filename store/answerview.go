package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/encoding/protowire"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// AnswerView is what rebuilding the predictor reads of one stored answer,
// decoded in place: its byte slices point into the database's memory map
// and are valid only during the callback that receives it.
type AnswerView struct {
	// Seq is the answer's position in the log (its key).
	Seq uint64
	// User is the answered action's user (AnswerRecord.action.user).
	User []byte
	// AnsweredBy is who answered (AnswerRecord.answered_by).
	AnsweredBy []byte
	// Choice and Time are the record's.
	Choice storev1.Choice
	Time   time.Time
	// KeyScheme is the version of the key ladders that made Ladders.
	KeyScheme uint32
	// Ladders are the stored key ladders: Ladders[i][j] is key j of
	// ladder i.
	Ladders [][][]byte
	// Delegated is AnswerRecord.delegated: a delegate answered, and the
	// answer teaches nothing.
	Delegated bool
	// Record is the whole encoded AnswerRecord, for a caller that needs
	// more than the fields above (proto.Unmarshal copies out of it).
	Record []byte

	keys [][]byte // every key of every ladder, one after the other
	ends []int    // where each ladder ends in keys
}

// AnswerViews calls fn for every stored answer, in the order they were
// given, like Answers, but decodes only the fields of AnswerView, in place:
// it allocates nothing per record, which makes replaying a million answers
// at start several times faster. The view and every slice in it are reused
// and point into the database file: fn must not keep them after it returns
// (copy what it needs). An error from fn stops the walk and is returned as
// is.
//
// The fields it reads are decoded as proto.Unmarshal would decode them
// (the last value of a field wins, repeated fields append, a field of an
// unexpected wire type is ignored, a string that is not UTF-8 is an error);
// fields it does not read are skipped unchecked.
//
// Records are read and decoded a page ahead on another goroutine while fn
// runs on the caller's, so that on two cores decoding and fn overlap. Like
// Answers, the walk is one read transaction: call it at start, before
// serving, and keep fn quick.
func (s *Store) AnswerViews(fn func(v *AnswerView) error) error {
	const pageLen = 256
	full := make(chan []AnswerView, 2) // decoded pages, in order
	free := make(chan []AnswerView, 3) // pages fn is done with
	for range cap(free) {
		free <- newViewPage(pageLen)
	}
	done := make(chan struct{}) // closed once fn reads no more pages
	readErr := make(chan error, 1)
	go func() {
		began := false
		err := s.db.View(func(tx *bolt.Tx) error {
			began = true
			// The views point into the transaction's memory map: keep it
			// open until fn is done with the last page.
			defer func() {
				close(full)
				<-done
			}()
			c := tx.Bucket(bucketAnswers).Cursor()
			k, b := c.First()
			for k != nil {
				var page []AnswerView
				select {
				case page = <-free:
				case <-done:
					return nil
				}
				n := 0
				var err error
				for ; k != nil && n < len(page); k, b = c.Next() {
					if err = page[n].decodeAt(k, b); err != nil {
						break
					}
					n++
				}
				select {
				case full <- page[:n]:
				case <-done:
					return nil
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		if !began { // no transaction (the store is closed): no pages either
			close(full)
		}
		readErr <- err
	}()

	var fnErr error
	func() {
		defer close(done) // even if fn panics: the reader must not hold the transaction forever
		for page := range full {
			for i := range page {
				if fnErr = fn(&page[i]); fnErr != nil {
					return
				}
			}
			free <- page[:cap(page)]
		}
	}()
	err := <-readErr
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("read answers: %w", err)
	}
	return nil
}

// newViewPage returns n views whose buffers are cut from three shared
// arrays, with room for a typical answer (up to 4 ladders, 16 keys); a
// larger one grows its view's own.
func newViewPage(n int) []AnswerView {
	const ladders, keys = 4, 16
	page := make([]AnswerView, n)
	ls, ends, ks := make([][][]byte, n*ladders), make([]int, n*ladders), make([][]byte, n*keys)
	for i := range page {
		page[i].Ladders = ls[i*ladders : i*ladders : (i+1)*ladders]
		page[i].ends = ends[i*ladders : i*ladders : (i+1)*ladders]
		page[i].keys = ks[i*keys : i*keys : (i+1)*keys]
	}
	return page
}

// decodeAt fills v from the answer stored at key k.
func (v *AnswerView) decodeAt(k, b []byte) error {
	if len(k) != 8 {
		return fmt.Errorf("answer key %x is not a sequence number", k)
	}
	if err := v.decode(b); err != nil {
		return fmt.Errorf("decode answer %x: %w", k, err)
	}
	v.Seq = binary.BigEndian.Uint64(k)
	return nil
}

// Field numbers of the messages AnswerView reads (proto/limen/store/v1/store.proto);
// TestAnswerViewFieldNumbersMatchStoreProto holds them to it.
const (
	answerAction    = 3  // AnswerRecord.action
	answerChoice    = 4  // AnswerRecord.choice
	answerBy        = 7  // AnswerRecord.answered_by
	answerTime      = 8  // AnswerRecord.time
	answerKeyScheme = 9  // AnswerRecord.key_scheme
	answerLadders   = 10 // AnswerRecord.ladders
	answerDelegated = 15 // AnswerRecord.delegated
	actionUser      = 1  // Action.user
	ladderKeys      = 1  // Ladder.keys
	timeSeconds     = 1  // google.protobuf.Timestamp.seconds
	timeNanos       = 2  // google.protobuf.Timestamp.nanos
)

var errNotUTF8 = errors.New("string field contains invalid UTF-8")

// decode fills v from the encoded AnswerRecord b, reusing v's slices.
//
// A hand-written protobuf decoder, kept because a benchmark justifies it
// (issue 13): limend's start replays every answer, and BenchmarkRebuild
// (internal/server) rebuilt from 1M answers in 3.6-4.4 s with
// proto.Unmarshal (19 allocations per record) and in 0.75-1.9 s with this
// (none); docs/BENCHMARKS.md, "Restart". BenchmarkAnswers in this package
// is the proto.Unmarshal replay to compare with.
func (v *AnswerView) decode(b []byte) error {
	*v = AnswerView{Record: b, Ladders: v.Ladders[:0], keys: v.keys[:0], ends: v.ends[:0]}
	var sec, nsec int64
	err := eachField(b, func(num protowire.Number, typ protowire.Type, val []byte, x uint64) error {
		switch {
		case num == answerAction && typ == protowire.BytesType:
			return eachField(val, func(num protowire.Number, typ protowire.Type, val []byte, _ uint64) error {
				if num == actionUser && typ == protowire.BytesType {
					if !utf8.Valid(val) {
						return errNotUTF8
					}
					v.User = val
				}
				return nil
			})
		case num == answerChoice && typ == protowire.VarintType:
			v.Choice = storev1.Choice(int32(x))
		case num == answerBy && typ == protowire.BytesType:
			if !utf8.Valid(val) {
				return errNotUTF8
			}
			v.AnsweredBy = val
		case num == answerTime && typ == protowire.BytesType:
			return eachField(val, func(num protowire.Number, typ protowire.Type, _ []byte, x uint64) error {
				switch {
				case num == timeSeconds && typ == protowire.VarintType:
					sec = int64(x)
				case num == timeNanos && typ == protowire.VarintType:
					nsec = int64(int32(x))
				}
				return nil
			})
		case num == answerKeyScheme && typ == protowire.VarintType:
			v.KeyScheme = uint32(x)
		case num == answerDelegated && typ == protowire.VarintType:
			v.Delegated = x != 0
		case num == answerLadders && typ == protowire.BytesType:
			err := eachField(val, func(num protowire.Number, typ protowire.Type, val []byte, _ uint64) error {
				if num == ladderKeys && typ == protowire.BytesType {
					if !utf8.Valid(val) {
						return errNotUTF8
					}
					v.keys = append(v.keys, val)
				}
				return nil
			})
			v.ends = append(v.ends, len(v.keys))
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	// As Timestamp.AsTime: a record without a time is at the Unix epoch.
	v.Time = time.Unix(sec, nsec).UTC()
	from := 0
	for _, end := range v.ends {
		v.Ladders = append(v.Ladders, v.keys[from:end:end])
		from = end
	}
	return nil
}

// eachField calls fn for every field of the encoded message b: its number,
// its wire type, and its value (the bytes of a length-delimited field, or
// the number of a varint). Fields of other wire types are skipped.
func eachField(b []byte, fn func(num protowire.Number, typ protowire.Type, val []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var val []byte
		var x uint64
		switch typ {
		case protowire.BytesType:
			val, n = protowire.ConsumeBytes(b)
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if typ == protowire.BytesType || typ == protowire.VarintType {
			if err := fn(num, typ, val, x); err != nil {
				return err
			}
		}
	}
	return nil
}
