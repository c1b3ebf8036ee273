package etcdstore

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"

	"google.golang.org/protobuf/proto"
)

// The decision log's records are written compressed (doc.go): a value that
// starts with compressedMark is the DEFLATE of the record. No protobuf
// message starts with 0xff (it would be field 31 of wire type 7, which
// does not exist), so a plain record is never taken for a compressed one,
// and records written before compression read as they are.
const compressedMark = 0xff

// compressFrom is the smallest record worth compressing. Decision records
// are mostly 300–600 bytes, where DEFLATE, one record at a time, saved
// about a fifth of their size and cost a replica as much CPU as its
// decisions did (docs/BENCHMARKS.md, "Decide's tail on a replica"):
// that CPU is taken from Decide. Larger records (a file's contents in an
// edit) still shrink well.
const compressFrom = 2048

var flaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// compress returns v, DEFLATEd behind compressedMark when that is smaller.
func compress(v []byte) []byte {
	if len(v) < compressFrom {
		return v
	}
	var buf bytes.Buffer
	buf.WriteByte(compressedMark)
	w := flaters.Get().(*flate.Writer)
	defer flaters.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(v); err != nil || w.Close() != nil || buf.Len() >= len(v) {
		return v
	}
	return buf.Bytes()
}

// unmarshal decodes a stored value into m, inflating it first if it was
// compressed.
func unmarshal(v []byte, m proto.Message) error {
	if len(v) > 0 && v[0] == compressedMark {
		plain, err := io.ReadAll(flate.NewReader(bytes.NewReader(v[1:])))
		if err != nil {
			return fmt.Errorf("inflate record: %w", err)
		}
		v = plain
	}
	return proto.Unmarshal(v, m)
}
