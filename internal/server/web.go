package server

import "context"

// WebCaller is a person answering in limend's web app (internal/web) or
// from a push notification: a browser paired with `limenctl pair`, over
// the Unix socket, by the OS user it now acts for. The web app puts it in
// the context of the in-process calls it makes, after checking the
// device's session (and, where it is needed, a fresh passkey signature);
// the calls then run as that user, with that user's reach, through the
// same handlers as limenctl's.
type WebCaller struct {
	// User is the OS user the device was paired for.
	User string
	// Device is the paired device's id.
	Device string
	// Channel is "web" or "push".
	Channel string
	// Digest is the SHA-256 (hex) of the action as the page showed it.
	Digest string
}

type webCallerKey struct{}

// WithWebCaller returns ctx carrying w. Only the web app calls it: a
// context never crosses the socket, so no remote caller can claim it.
func WithWebCaller(ctx context.Context, w WebCaller) context.Context {
	return context.WithValue(ctx, webCallerKey{}, w)
}

func webCallerFrom(ctx context.Context) (WebCaller, bool) {
	w, ok := ctx.Value(webCallerKey{}).(WebCaller)
	return w, ok && w.User != ""
}

// provenance is where an answer by c came from, for its record: the
// channel, the device and the digest of what was shown.
func (c caller) provenance() (channel, device, digest string) {
	if c.web != nil {
		return c.web.Channel, c.web.Device, c.web.Digest
	}
	return "socket", "", ""
}
