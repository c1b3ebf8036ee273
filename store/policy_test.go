package store

import (
	"errors"
	"strings"
	"testing"

	storev1 "github.com/limenhq/limen/store/storev1"
)

func TestSetPolicyCompareAndSet(t *testing.T) {
	s := openStore(t, "", Options{})
	if _, err := s.Policy(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Policy on an empty store = %v, want ErrNotFound", err)
	}
	steps := []struct {
		name        string
		expected    uint64
		doc         string
		wantVersion uint64 // 0: a conflict
		wantMsg     string
	}{
		{"first policy", 0, "v1", 1, ""},
		{"stale: still thinks none is stored", 0, "lost", 0, "policy is at version 1, not 0"},
		{"next version", 1, "v2", 2, ""},
		{"stale: one behind", 1, "lost", 0, "policy is at version 2, not 1"},
		{"ahead of the store", 7, "lost", 0, "policy is at version 2, not 7"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			in := &storev1.Policy{Document: st.doc, Author: "ana"}
			got, err := s.SetPolicy(st.expected, in)
			if in.GetVersion() != 0 {
				t.Errorf("SetPolicy changed its argument's version to %d", in.GetVersion())
			}
			if st.wantVersion == 0 {
				if !errors.Is(err, ErrVersionConflict) || !strings.Contains(err.Error(), st.wantMsg) {
					t.Fatalf("SetPolicy(%d) = %v, want ErrVersionConflict saying %q", st.expected, err, st.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.GetVersion() != st.wantVersion || got.GetDocument() != st.doc {
				t.Errorf("SetPolicy returned %v, want version %d", got, st.wantVersion)
			}
		})
	}

	versions, err := s.PolicyVersions()
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, p := range versions {
		docs = append(docs, p.GetDocument())
	}
	if strings.Join(docs, ",") != "v1,v2" {
		t.Errorf("stored documents = %v; a conflicting SetPolicy stored something", docs)
	}
	if p, err := s.Policy(); err != nil || p.GetVersion() != 2 {
		t.Errorf("Policy = %v, %v; want version 2", p, err)
	}
	if p, err := s.PolicyVersion(1); err != nil || p.GetDocument() != "v1" {
		t.Errorf("PolicyVersion(1) = %v, %v", p, err)
	}
	if _, err := s.PolicyVersion(3); !errors.Is(err, ErrNotFound) {
		t.Errorf("PolicyVersion(3) = %v, want ErrNotFound", err)
	}
}
