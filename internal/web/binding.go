package web

import (
	"crypto/sha256"
	"encoding/binary"
)

// Binding is what one passkey signature approves: exactly one choice on
// one revision of one ask, as the page showed it.
type Binding struct {
	// AskID is the ask answered.
	AskID string
	// Revision is the ask's revision: the policy version in force when
	// the page showed it (see askRevision).
	Revision uint64
	// Digest is the SHA-256 (hex) of the action as shown (AskView.Digest).
	Digest string
	// Choice is "approve", "deny" or "session".
	Choice string
	// Nonce is the server's random value for this one challenge, so that
	// two challenges for the same choice differ and each is used once.
	Nonce []byte
}

// bindingDomain separates limen's challenges from any other use of the
// same hash.
const bindingDomain = "limen web answer v1"

// Challenge is the WebAuthn challenge for b: a SHA-256 over every field,
// each prefixed by its length so that no two different bindings can be
// written the same way ("1","23" and "12","3" differ). The server computes
// it again, from the ask as it is when the answer arrives, before it
// checks the signature: a signature made over anything else fails.
func (b Binding) Challenge() []byte {
	h := sha256.New()
	field := func(p []byte) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	var rev [8]byte
	binary.BigEndian.PutUint64(rev[:], b.Revision)
	field([]byte(bindingDomain))
	field([]byte(b.AskID))
	field(rev[:])
	field([]byte(b.Digest))
	field([]byte(b.Choice))
	field(b.Nonce)
	return h.Sum(nil)
}
