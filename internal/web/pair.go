package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/internal/server"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// pairingTTL is how long a code from `limenctl pair` stays good.
const pairingTTL = 5 * time.Minute

// pairing is one code from `limenctl pair`, good once, for one user.
type pairing struct {
	user, name string
	expires    time.Time
	device     string                // the id the registration gives the device
	session    *webauthn.SessionData // set by pairBegin
}

// deviceInfo is a paired device as a request found it.
type deviceInfo struct{ dev *storev1.Device }

// waUser is a device as go-webauthn sees a user: its id is the device's,
// and it has the one passkey registered at pairing.
type waUser struct {
	id, name string
	creds    []webauthn.Credential
}

func (u waUser) WebAuthnID() []byte                         { return []byte(u.id) }
func (u waUser) WebAuthnName() string                       { return u.name }
func (u waUser) WebAuthnDisplayName() string                { return u.name }
func (u waUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

func (d *deviceInfo) user() (waUser, error) {
	var c webauthn.Credential
	if err := json.Unmarshal(d.dev.GetCredential(), &c); err != nil {
		return waUser{}, fmt.Errorf("device %s: its passkey record does not decode: %w (revoke it and pair again)", d.dev.GetId(), err)
	}
	return waUser{id: d.dev.GetId(), name: d.dev.GetUser(), creds: []webauthn.Credential{c}}, nil
}

func randomToken(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

var _ server.Devices = (*App)(nil)

// CreatePairing implements server.Devices: the server has checked that a
// person over the socket, the OS user user, asks.
func (a *App) CreatePairing(_ context.Context, user, name string) (*limenv1.CreatePairingResponse, error) {
	if name == "" {
		name = "browser"
	}
	code := randomToken(18)
	exp := a.now().Add(pairingTTL)
	a.mu.Lock()
	for c, p := range a.pairings { // forget the stale ones
		if a.now().After(p.expires) {
			delete(a.pairings, c)
		}
	}
	a.pairings[code] = &pairing{user: user, name: name, expires: exp, device: newDeviceID()}
	a.mu.Unlock()
	a.log.Info("pairing code made", "user", user, "name", name, "expires", exp)
	return &limenv1.CreatePairingResponse{
		Url: a.base + "/pair?code=" + code, Code: code, ExpiresAt: timestamppb.New(exp),
		CertSha256: a.fingerprint, User: user,
	}, nil
}

func newDeviceID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// ListDevices implements server.Devices.
func (a *App) ListDevices(user string) ([]*limenv1.Device, error) {
	ds, err := a.devices.Devices(user)
	if err != nil {
		return nil, err
	}
	out := make([]*limenv1.Device, len(ds))
	for i, d := range ds {
		out[i] = apiDevice(d)
	}
	return out, nil
}

// Device implements server.Devices.
func (a *App) Device(id string) (*limenv1.Device, error) {
	d, err := a.devices.Device(id)
	if err != nil {
		return nil, err
	}
	return apiDevice(d), nil
}

// RevokeDevice implements server.Devices: the record goes first (so no
// new request passes), then every live stream of the device ends.
func (a *App) RevokeDevice(id string) error {
	if err := a.devices.DeleteDevice(id); err != nil {
		return err
	}
	a.mu.Lock()
	for _, cancel := range a.streams[id] {
		cancel()
	}
	delete(a.streams, id)
	for n, c := range a.challenges {
		if c.device == id {
			delete(a.challenges, n)
		}
	}
	a.mu.Unlock()
	a.log.Info("device revoked", "id", id)
	return nil
}

func apiDevice(d *storev1.Device) *limenv1.Device {
	return &limenv1.Device{Id: d.GetId(), User: d.GetUser(), Name: d.GetName(), Created: d.GetCreated(), LastUsed: d.GetLastUsed()}
}

// openPairing returns the pairing of code if it is still good.
func (a *App) openPairing(code string) *pairing {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.pairings[code]
	if p == nil || a.now().After(p.expires) {
		return nil
	}
	return p
}

const badCode = "this pairing code is unknown, used or expired: run limenctl pair again in your own terminal"

func (a *App) pairPage(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("code")
	p := a.openPairing(code)
	if p == nil {
		a.problem(w, r, http.StatusGone, badCode)
		return
	}
	a.render(w, "pair.html", map[string]any{"Code": code, "User": p.user, "Name": p.name, "Fingerprint": a.fingerprint})
}

// pairBegin returns the options of a passkey registration for the code.
func (a *App) pairBegin(w http.ResponseWriter, r *http.Request) {
	code := r.FormValue("code")
	p := a.openPairing(code)
	if p == nil {
		a.problem(w, r, http.StatusGone, badCode)
		return
	}
	opts, sess, err := a.wa.BeginRegistration(waUser{id: p.device, name: p.user},
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			ResidentKey: protocol.ResidentKeyRequirementRequired, UserVerification: protocol.VerificationRequired,
		}),
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired))
	if err != nil {
		a.problem(w, r, http.StatusInternalServerError, "start the passkey registration: "+err.Error())
		return
	}
	a.mu.Lock()
	p.session = sess
	a.mu.Unlock()
	writeJSON(w, http.StatusOK, opts)
}

// pairFinish checks the new passkey, stores the device and logs the
// browser in. The code is used up whatever the outcome.
func (a *App) pairFinish(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("code")
	a.mu.Lock()
	p := a.pairings[code]
	delete(a.pairings, code)
	a.mu.Unlock()
	if p == nil || p.session == nil || a.now().After(p.expires) {
		a.problem(w, r, http.StatusGone, badCode)
		return
	}
	cred, err := a.wa.FinishRegistration(waUser{id: p.device, name: p.user}, *p.session, r)
	if err != nil {
		a.problem(w, r, http.StatusBadRequest, "the passkey was not accepted ("+protocolDetail(err)+"): run limenctl pair again")
		return
	}
	raw, err := json.Marshal(cred)
	if err != nil {
		a.problem(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	now := timestamppb.New(a.now())
	dev := &storev1.Device{Id: p.device, User: p.user, Name: p.name, Created: now, LastUsed: now, Credential: raw}
	if err := a.devices.PutDevice(dev); err != nil {
		a.problem(w, r, http.StatusServiceUnavailable, "store the device: "+err.Error())
		return
	}
	a.log.Info("device paired", "id", dev.GetId(), "user", dev.GetUser(), "name", dev.GetName())
	http.SetCookie(w, a.sess.cookie(dev.GetId()))
	writeJSON(w, http.StatusOK, map[string]string{"device": dev.GetId(), "user": dev.GetUser()})
}

// protocolDetail is the most telling text of a go-webauthn error.
func protocolDetail(err error) string {
	if pe, ok := err.(*protocol.Error); ok && pe.DevInfo != "" {
		return pe.Details + ": " + pe.DevInfo
	}
	return err.Error()
}
