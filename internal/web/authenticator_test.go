package web_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/fxamacker/cbor/v2"
)

// authenticator is a software passkey for the HTTP tests: it makes the
// same attestation and assertion a platform authenticator makes (format
// "none", ES256, user present and verified), so the server's real checks
// run. The browser tests use Chrome's own virtual authenticator instead.
type authenticator struct {
	t      *testing.T
	origin string
	rpID   string
	key    *ecdsa.PrivateKey
	credID []byte
	count  uint32
}

func newAuthenticator(t *testing.T, origin, rpID string) *authenticator {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 16)
	rand.Read(id)
	return &authenticator{t: t, origin: origin, rpID: rpID, key: key, credID: id}
}

var b64 = base64.RawURLEncoding

// options is the part of go-webauthn's creation or request options read here.
type options struct {
	PublicKey struct {
		Challenge string `json:"challenge"`
		User      struct {
			ID string `json:"id"`
		} `json:"user"`
	} `json:"publicKey"`
}

func (a *authenticator) clientData(typ, challenge string) []byte {
	b, _ := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": a.origin, "crossOrigin": false})
	return b
}

func (a *authenticator) authData(attested bool) []byte {
	rp := sha256.Sum256([]byte(a.rpID))
	flags := byte(0x01 | 0x04) // user present, user verified
	if attested {
		flags |= 0x40
	}
	a.count++
	out := append(rp[:], flags)
	out = binary.BigEndian.AppendUint32(out, a.count)
	if attested {
		out = append(out, make([]byte, 16)...) // AAGUID
		out = binary.BigEndian.AppendUint16(out, uint16(len(a.credID)))
		out = append(out, a.credID...)
		raw, err := a.key.PublicKey.Bytes() // 0x04 ‖ x ‖ y
		if err != nil {
			a.t.Fatal(err)
		}
		x, y := raw[1:33], raw[33:65]
		cose, err := cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: x, -3: y})
		if err != nil {
			a.t.Fatal(err)
		}
		out = append(out, cose...)
	}
	return out
}

// create answers creation options with a new credential, as JSON.
func (a *authenticator) create(opts []byte) []byte {
	var o options
	if err := json.Unmarshal(opts, &o); err != nil {
		a.t.Fatalf("creation options: %v: %s", err, opts)
	}
	att, err := cbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": a.authData(true)})
	if err != nil {
		a.t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{
		"id": b64.EncodeToString(a.credID), "rawId": b64.EncodeToString(a.credID), "type": "public-key",
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(a.clientData("webauthn.create", o.PublicKey.Challenge)),
			"attestationObject": b64.EncodeToString(att),
		},
	})
	return b
}

// get signs a challenge (base64url, as in request options), as JSON.
func (a *authenticator) get(challenge string, userHandle []byte) string {
	cd := a.clientData("webauthn.get", challenge)
	ad := a.authData(false)
	h := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, ad...), h[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, a.key, digest[:])
	if err != nil {
		a.t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{
		"id": b64.EncodeToString(a.credID), "rawId": b64.EncodeToString(a.credID), "type": "public-key",
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(cd),
			"authenticatorData": b64.EncodeToString(ad),
			"signature":         b64.EncodeToString(sig),
			"userHandle":        b64.EncodeToString(userHandle),
		},
	})
	return string(b)
}
