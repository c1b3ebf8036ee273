package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestStatusShowsTheCluster: on etcd, status shows the members (the
// leader marked, one that did not answer with its error) and every
// replica's applied answer, revision, counts hash and freshness, this one
// marked and a stale one said to ask; on bbolt it shows nothing more.
func TestStatusShowsTheCluster(t *testing.T) {
	now := timestamppb.New(time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC))
	self := &limenv1.Replica{Name: "a:1", AppliedSeq: 42, AppliedRevision: 900, CountsHash: "00000000deadbeef", Fresh: true, FreshAge: durationpb.New(300 * time.Millisecond), Reported: now}
	c := &limenv1.GetClusterResponse{
		Store: "etcd",
		Self:  self,
		Members: []*limenv1.EtcdMember{
			{Name: "m0", ClientUrls: []string{"https://etcd-0:2379"}, Leader: true, Revision: 901, DbSize: 3 << 20},
			{Name: "m1", ClientUrls: []string{"https://etcd-1:2379"}, Error: "context deadline exceeded"},
		},
		Replicas: []*limenv1.Replica{self, {Name: "b:2", AppliedSeq: 40, AppliedRevision: 880, CountsHash: "0000000012345678", FreshAge: durationpb.New(7 * time.Second), Reported: now}},
	}
	var out bytes.Buffer
	printCluster(&app{out: &out}, c)
	got := out.String()
	for _, want := range []string{"m0", "leader", "901", "m1", "context deadline exceeded", "a:1 (this one)", "42", "00000000deadbeef", "yes (300ms ago)", "b:2", "NO: stale for 7s, allows are asks"} {
		if !strings.Contains(got, want) {
			t.Errorf("status cluster section lacks %q:\n%s", want, got)
		}
	}
	out.Reset()
	printCluster(&app{out: &out}, &limenv1.GetClusterResponse{Store: "bbolt", Self: self})
	if out.Len() != 0 {
		t.Errorf("status on bbolt shows a cluster section:\n%s", out.String())
	}
}
