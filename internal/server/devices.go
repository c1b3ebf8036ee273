package server

import (
	"context"
	"sync/atomic"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// Devices is the web app's side of pairing (internal/web): the server
// checks who calls and how far they reach, the web app keeps the codes and
// devices.
type Devices interface {
	// CreatePairing returns a single-use pairing code for user.
	CreatePairing(ctx context.Context, user, name string) (*limenv1.CreatePairingResponse, error)
	// ListDevices returns user's devices (every user's for "").
	ListDevices(user string) ([]*limenv1.Device, error)
	// Device returns one device, or an error wrapping store.ErrNotFound.
	Device(id string) (*limenv1.Device, error)
	// RevokeDevice deletes a device and ends its sessions and streams.
	RevokeDevice(id string) error
}

// devicesHolder is where SetDevices puts the web app, which is built after
// the server it calls.
type devicesHolder struct{ p atomic.Pointer[Devices] }

// SetDevices connects the web app; until it is called (limend without
// --web-addr) the pairing calls say the web app is off.
func (s *Server) SetDevices(d Devices) { s.devices.p.Store(&d) }

var errWebOff = status.Error(codes.FailedPrecondition, "the web app is off: start limend with --web-addr (such as --web-addr 127.0.0.1:7443) to pair devices")

func (s *Server) webDevices() (Devices, error) {
	d := s.devices.p.Load()
	if d == nil {
		return nil, errWebOff
	}
	return *d, nil
}

// CreatePairing implements DecisionService. It is a person's call only
// (personOnly): an agent must not pair itself a device that approves.
func (s *Server) CreatePairing(ctx context.Context, req *limenv1.CreatePairingRequest) (*limenv1.CreatePairingResponse, error) {
	c, _, err := s.guard.authorize(ctx, opCreatePairing)
	if err != nil {
		return nil, err
	}
	if len(req.GetName()) > 64 {
		return nil, invalid("name is longer than 64 bytes; name the device in a word or two, such as phone")
	}
	d, err := s.webDevices()
	if err != nil {
		return nil, err
	}
	resp, err := d.CreatePairing(ctx, c.name, req.GetName())
	if err != nil {
		return nil, toStatus(err)
	}
	return resp, nil
}

// ListDevices implements DecisionService.
func (s *Server) ListDevices(ctx context.Context, _ *limenv1.ListDevicesRequest) (*limenv1.ListDevicesResponse, error) {
	c, r, err := s.guard.authorize(ctx, opListDevices)
	if err != nil {
		return nil, err
	}
	d, err := s.webDevices()
	if err != nil {
		return nil, err
	}
	user := c.name
	if r == all {
		user = ""
	}
	ds, err := d.ListDevices(user)
	if err != nil {
		return nil, toStatus(err)
	}
	return &limenv1.ListDevicesResponse{Devices: ds}, nil
}

// RevokeDevice implements DecisionService. Revoking is open to processes
// an agent started: it only takes a way to approve away.
func (s *Server) RevokeDevice(ctx context.Context, req *limenv1.RevokeDeviceRequest) (*limenv1.RevokeDeviceResponse, error) {
	c, r, err := s.guard.authorize(ctx, opRevokeDevice)
	if err != nil {
		return nil, err
	}
	if req.GetId() == "" {
		return nil, invalid("id is empty: name the device to revoke (limenctl devices lists them)")
	}
	d, err := s.webDevices()
	if err != nil {
		return nil, err
	}
	dev, err := d.Device(req.GetId())
	if err != nil {
		return nil, toStatus(err)
	}
	if !c.mayTouch(r, dev.GetUser()) {
		return nil, notYours(opRevokeDevice, c, "device "+req.GetId(), dev.GetUser())
	}
	if err := d.RevokeDevice(req.GetId()); err != nil {
		return nil, toStatus(err)
	}
	return &limenv1.RevokeDeviceResponse{Device: dev}, nil
}
