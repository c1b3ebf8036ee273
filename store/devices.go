package store

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// DeviceStore keeps the browsers paired with the web app (limend
// --web-addr) and their passkeys. Every Backend is one.
type DeviceStore interface {
	// PutDevice stores a paired device, replacing one with the same id.
	PutDevice(d *storev1.Device) error
	// Device returns one device, or ErrNotFound.
	Device(id string) (*storev1.Device, error)
	// Devices returns the devices of user (every user's when user is
	// empty), in id order.
	Devices(user string) ([]*storev1.Device, error)
	// DeleteDevice removes a device, or fails with ErrNotFound; a revoked
	// device is gone at once, with its passkey.
	DeleteDevice(id string) error
}

// bucketDevices holds devices/<id> -> storev1.Device. It is made by the
// first PutDevice rather than by a migration: a database from before the
// web app simply has no devices, and reading a missing bucket means none.
var bucketDevices = []byte("devices")

// PutDevice stores d under its id.
func (s *Store) PutDevice(d *storev1.Device) error {
	if d.GetId() == "" || d.GetUser() == "" {
		return errors.New("put device: id and user must be set")
	}
	v, err := proto.Marshal(d)
	if err != nil {
		return fmt.Errorf("put device: %w", err)
	}
	err = s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketDevices)
		if err != nil {
			return err
		}
		return b.Put([]byte(d.GetId()), v)
	})
	if err != nil {
		return fmt.Errorf("put device %s: %w", d.GetId(), err)
	}
	return nil
}

// Device returns the device id, or ErrNotFound.
func (s *Store) Device(id string) (*storev1.Device, error) {
	d := new(storev1.Device)
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDevices)
		if b == nil {
			return ErrNotFound
		}
		v := b.Get([]byte(id))
		if v == nil {
			return ErrNotFound
		}
		return proto.Unmarshal(v, d) // copies out of the mmap
	})
	if err != nil {
		return nil, fmt.Errorf("device %s: %w", id, err)
	}
	return d, nil
}

// Devices returns user's devices (everyone's for ""), in id order.
func (s *Store) Devices(user string) ([]*storev1.Device, error) {
	var out []*storev1.Device
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDevices)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			d := new(storev1.Device)
			if err := proto.Unmarshal(v, d); err != nil {
				return fmt.Errorf("decode device %s: %w", k, err)
			}
			if user == "" || d.GetUser() == user {
				out = append(out, d)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("devices: %w", err)
	}
	return out, nil
}

// DeleteDevice removes the device id, or fails with ErrNotFound.
func (s *Store) DeleteDevice(id string) error {
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDevices)
		if b == nil || b.Get([]byte(id)) == nil {
			return ErrNotFound
		}
		return b.Delete([]byte(id))
	})
	if err != nil {
		return fmt.Errorf("delete device %s: %w", id, err)
	}
	return nil
}
