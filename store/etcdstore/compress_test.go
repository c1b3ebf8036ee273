package etcdstore

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// TestCompressOnlyLargeRecords: a decision record of the usual size is
// stored as it is (compressing it one at a time cost more CPU than the
// bytes it saved), a large one DEFLATEd, and both read back the same.
func TestCompressOnlyLargeRecords(t *testing.T) {
	for _, tt := range []struct {
		name       string
		input      string
		compressed bool
	}{
		{"usual", `{"command":"npm run build"}`, false},
		{"large", `{"content":"` + strings.Repeat("package main; func main() {} ", 200) + `"}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := &storev1.Decision{DecisionId: "7", Reason: "allowed by rule Read"}
			d.Action = &storev1.Action{Tool: "Bash", InputJson: tt.input}
			plain, err := proto.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			v := compress(plain)
			if got := len(v) > 0 && v[0] == compressedMark; got != tt.compressed {
				t.Errorf("record of %d bytes compressed = %v; want %v", len(plain), got, tt.compressed)
			}
			if tt.compressed && len(v) >= len(plain) {
				t.Errorf("compressed %d bytes into %d", len(plain), len(v))
			}
			var back storev1.Decision
			if err := unmarshal(bytes.Clone(v), &back); err != nil || !proto.Equal(&back, d) {
				t.Errorf("read back %v, %v; want %v", &back, err, d)
			}
		})
	}
}
