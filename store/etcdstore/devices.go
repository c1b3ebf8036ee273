package etcdstore

import (
	"errors"
	"fmt"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/limenhq/limen/store"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// devicesKey is where the paired devices live: <prefix>devices/<id>. Ids
// are limend's own (hex), so they never hold a '/'.
func (s *Store) devicesKey() string {
	return strings.TrimSuffix(s.keys.decisions, "decisions/") + "devices/"
}

// PutDevice stores d under its id.
func (s *Store) PutDevice(d *storev1.Device) error {
	if d.GetId() == "" || d.GetUser() == "" {
		return errors.New("put device: id and user must be set")
	}
	if err := s.staleErr(); err != nil {
		return fmt.Errorf("put device: %w", err)
	}
	v, err := proto.Marshal(d)
	if err != nil {
		return fmt.Errorf("put device: %w", err)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	if _, err := s.cli.Put(ctx, s.devicesKey()+d.GetId(), string(v)); err != nil {
		return fmt.Errorf("put device %s: %w", d.GetId(), err)
	}
	return nil
}

// Device returns the device id, or store.ErrNotFound.
func (s *Store) Device(id string) (*storev1.Device, error) {
	d := new(storev1.Device)
	if err := s.get(s.devicesKey()+id, d); err != nil {
		return nil, fmt.Errorf("device %s: %w", id, err)
	}
	return d, nil
}

// Devices returns user's devices (everyone's for ""), in id order.
func (s *Store) Devices(user string) ([]*storev1.Device, error) {
	if s.isClosed() {
		return nil, fmt.Errorf("devices: %w", store.ErrClosed)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.devicesKey(), clientv3.WithPrefix(), clientv3.WithSort(clientv3.SortByKey, clientv3.SortAscend))
	if err != nil {
		return nil, fmt.Errorf("devices: %w", err)
	}
	var out []*storev1.Device
	for _, kv := range resp.Kvs {
		d := new(storev1.Device)
		if err := proto.Unmarshal(kv.Value, d); err != nil {
			return nil, fmt.Errorf("devices: decode %s: %w", kv.Key, err)
		}
		if user == "" || d.GetUser() == user {
			out = append(out, d)
		}
	}
	return out, nil
}

// DeleteDevice removes the device id, or fails with store.ErrNotFound.
func (s *Store) DeleteDevice(id string) error {
	if s.isClosed() {
		return fmt.Errorf("delete device %s: %w", id, store.ErrClosed)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	resp, err := s.cli.Delete(ctx, s.devicesKey()+id)
	if err != nil {
		return fmt.Errorf("delete device %s: %w", id, err)
	}
	if resp.Deleted == 0 {
		return fmt.Errorf("delete device %s: %w", id, store.ErrNotFound)
	}
	return nil
}
