package storetest

import (
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/store"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// testDevices holds DeviceStore's promises: a device put is read back as
// it was, listed for its user only (everyone's for ""), survives a reopen,
// and once deleted is gone, a second delete failing with ErrNotFound.
func testDevices(t *testing.T, h *harness) {
	if ds, err := h.s.Devices(""); err != nil || len(ds) != 0 {
		t.Fatalf("Devices on a new store = %v, %v; want none", ds, err)
	}
	if _, err := h.s.Device("nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Device(unknown) = %v; want ErrNotFound", err)
	}
	if err := h.s.PutDevice(&storev1.Device{Id: "a1"}); err == nil {
		t.Fatal("PutDevice without a user succeeded")
	}
	at := timestamppb.New(time.Unix(1700000000, 0))
	ana := &storev1.Device{Id: "a1", User: "ana", Name: "phone", Created: at, Credential: []byte(`{"id":"x"}`)}
	bo := &storev1.Device{Id: "b2", User: "bo", Name: "tablet", Created: at}
	for _, d := range []*storev1.Device{bo, ana} {
		if err := h.s.PutDevice(d); err != nil {
			t.Fatalf("PutDevice(%s): %v", d.GetId(), err)
		}
	}
	h.reopen()
	got, err := h.s.Device("a1")
	if err != nil || !proto.Equal(got, ana) {
		t.Fatalf("Device(a1) after reopen = %v, %v; want %v", got, err, ana)
	}
	if ds, err := h.s.Devices("ana"); err != nil || len(ds) != 1 || ds[0].GetId() != "a1" {
		t.Fatalf("Devices(ana) = %v, %v; want a1 only", ds, err)
	}
	if ds, err := h.s.Devices(""); err != nil || len(ds) != 2 || ds[0].GetId() != "a1" || ds[1].GetId() != "b2" {
		t.Fatalf("Devices(\"\") = %v, %v; want a1, b2", ds, err)
	}
	ana.LastUsed = timestamppb.New(time.Unix(1700000100, 0))
	if err := h.s.PutDevice(ana); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.s.Device("a1"); !proto.Equal(got, ana) {
		t.Fatalf("Device(a1) after an update = %v; want %v", got, ana)
	}
	if err := h.s.DeleteDevice("a1"); err != nil {
		t.Fatalf("DeleteDevice(a1): %v", err)
	}
	if err := h.s.DeleteDevice("a1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second DeleteDevice(a1) = %v; want ErrNotFound", err)
	}
	if _, err := h.s.Device("a1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Device(a1) after delete = %v; want ErrNotFound", err)
	}
	if ds, _ := h.s.Devices(""); len(ds) != 1 {
		t.Fatalf("Devices after delete = %v; want b2 only", ds)
	}
}
