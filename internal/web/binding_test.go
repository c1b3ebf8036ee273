package web

import (
	"bytes"
	"testing"
)

// TestChallengeBindsEveryField: changing any one field of a binding, or
// moving bytes from one field to the next, changes the challenge, and the
// same binding always gives the same one.
func TestChallengeBindsEveryField(t *testing.T) {
	base := Binding{AskID: "12", Revision: 3, Digest: "ab12", Choice: "approve", Nonce: []byte("nonce-0123456789")}
	if !bytes.Equal(base.Challenge(), base.Challenge()) {
		t.Fatal("the same binding gave two challenges")
	}
	if n := len(base.Challenge()); n != 32 {
		t.Fatalf("challenge is %d bytes; want 32 (WebAuthn wants at least 16)", n)
	}
	for name, b := range map[string]Binding{
		"another ask":      {AskID: "13", Revision: 3, Digest: "ab12", Choice: "approve", Nonce: base.Nonce},
		"another revision": {AskID: "12", Revision: 4, Digest: "ab12", Choice: "approve", Nonce: base.Nonce},
		"another digest":   {AskID: "12", Revision: 3, Digest: "ab13", Choice: "approve", Nonce: base.Nonce},
		"another choice":   {AskID: "12", Revision: 3, Digest: "ab12", Choice: "session", Nonce: base.Nonce},
		"another nonce":    {AskID: "12", Revision: 3, Digest: "ab12", Choice: "approve", Nonce: []byte("nonce-0123456780")},
		"bytes moved":      {AskID: "1", Revision: 3, Digest: "2ab12", Choice: "approve", Nonce: base.Nonce},
		"choice into note": {AskID: "12", Revision: 3, Digest: "ab12approve", Choice: "", Nonce: base.Nonce},
	} {
		if bytes.Equal(b.Challenge(), base.Challenge()) {
			t.Errorf("%s: same challenge as the base binding", name)
		}
	}
}
