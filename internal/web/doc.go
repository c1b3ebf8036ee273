// Package web is limend's second place to answer asks: a small web app for
// a phone or another computer (limend --web-addr), served over TLS only.
//
// A browser is paired with `limenctl pair`, which asks limend over the
// Unix socket (so the kernel names the user, and the same ancestry check as
// Answer keeps an agent from pairing itself) for a single-use code; the
// pairing page registers a passkey and the browser gets a session cookie
// bound to that user and device. The queue page shows that user's pending
// asks, server-rendered with the same context as the TUI, kept live by
// server-sent events that resume with Last-Event-ID. Answers go through
// the server's own Answer, as the device's user (server.WithWebCaller):
// there is no second copy of the answer logic here.
//
// What the passkey signs: approving an ask of a class in
// Config.SignClasses, and approving for the session, need a fresh WebAuthn
// assertion whose challenge is Binding.Challenge of the ask, its revision,
// the digest of the action as the page showed it and the choice, with a
// server nonce that is used once. An agent running as the same OS user can
// reach limend's socket, but it cannot press the person's passkey.
//
// Everything fails closed: a closed page, a refused signature, an
// unreachable push server leave the ask pending; nothing here allows.
package web
