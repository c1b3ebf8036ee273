package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// challengeTTL is how long a passkey challenge may wait for its answer.
const challengeTTL = 2 * time.Minute

// maxOpenChallenges bounds the challenges one device may hold at once, so
// that a session cannot fill limend's memory with them.
const maxOpenChallenges = 16

// challenge is one issued passkey challenge, used at most once.
type challenge struct {
	device  string
	binding Binding
	session webauthn.SessionData
	expires time.Time
}

// choices are the answers the page offers: what Answer gets for each.
var choices = map[string]struct {
	choice limenv1.Choice
	scope  limenv1.Scope
}{
	"approve": {limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_ONCE},
	"deny":    {limenv1.Choice_CHOICE_DENY, limenv1.Scope_SCOPE_ONCE},
	"session": {limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_SESSION},
	"rule":    {limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_ONCE}, // and add v.Rule (rule.go)
}

// needsSignature says whether choice on v needs a fresh passkey signature.
func needsSignature(v AskView, choice string) bool {
	return choice == "session" || choice == "rule" || choice == "approve" && v.SignApprove
}

// lookup finds the pending ask id of the caller in ctx, or says with an
// HTTP status why it cannot be answered: 403 another user's, 404 never
// existed, 409 already answered, 410 expired.
func (a *App) lookup(ctx context.Context, id string) (*limenv1.PendingAsk, int, string) {
	resp, err := a.svc.ListPending(ctx, &limenv1.ListPendingRequest{})
	if err != nil {
		return nil, http.StatusServiceUnavailable, "limend cannot list the asks now (" + status.Convert(err).Message() + "); the ask stays pending"
	}
	for _, p := range resp.GetAsks() {
		if p.GetAskId() == id {
			return p, http.StatusOK, ""
		}
	}
	// Not pending for this caller: Await says why at once (it flushes the
	// decision log first, which may take a moment on a busy disk, so the
	// bound is generous; an ask pending for the caller was listed above).
	aw, err := a.svc.Await(ctx, &limenv1.AwaitRequest{AskId: id, Timeout: durationpb.New(2 * time.Second)})
	switch status.Code(err) {
	case codes.OK:
	case codes.PermissionDenied:
		return nil, http.StatusForbidden, "ask " + id + " belongs to another user: only the person it asks may answer it"
	case codes.NotFound, codes.InvalidArgument:
		return nil, http.StatusNotFound, "there is no ask " + id
	default:
		return nil, http.StatusServiceUnavailable, status.Convert(err).Message()
	}
	switch aw.GetState() {
	case limenv1.AskState_ASK_STATE_EXPIRED:
		return nil, http.StatusGone, "ask " + id + " expired before anyone answered (it counted as a deny)"
	case limenv1.AskState_ASK_STATE_PENDING:
		return nil, http.StatusConflict, "ask " + id + " changed while you looked: reload the page"
	}
	return nil, http.StatusConflict, "ask " + id + " was already answered: " + aw.GetReason()
}

// challengeHandler issues a passkey challenge bound to one choice on the
// ask as the page showed it (its digest and revision).
func (a *App) challengeHandler(w http.ResponseWriter, r *http.Request) {
	d := a.who(r)
	if d == nil {
		a.problem(w, r, http.StatusUnauthorized, notPaired)
		return
	}
	v, code, msg := a.shown(r, d)
	if code != http.StatusOK {
		a.problem(w, r, code, msg)
		return
	}
	choice := r.FormValue("choice")
	if _, ok := choices[choice]; !ok {
		a.problem(w, r, http.StatusBadRequest, "choice must be approve, deny, session or rule")
		return
	}
	u, err := d.user()
	if err != nil {
		a.problem(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	nonce := make([]byte, 16)
	rand.Read(nonce)
	b := Binding{AskID: v.ID, Revision: v.Revision, Digest: v.Digest, Choice: choice, Nonce: nonce}
	opts, sess, err := a.wa.BeginLogin(u, webauthn.WithChallenge(b.Challenge()), webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		a.problem(w, r, http.StatusInternalServerError, "start the passkey check: "+err.Error())
		return
	}
	key := base64.RawURLEncoding.EncodeToString(nonce)
	a.mu.Lock()
	open := 0
	for n, c := range a.challenges {
		switch {
		case a.now().After(c.expires):
			delete(a.challenges, n)
		case c.device == d.dev.GetId():
			open++
		}
	}
	if open >= maxOpenChallenges {
		a.mu.Unlock()
		a.problem(w, r, http.StatusTooManyRequests, "too many passkey checks wait for an answer from this device: answer one, or wait two minutes")
		return
	}
	a.challenges[key] = &challenge{device: d.dev.GetId(), binding: b, session: *sess, expires: a.now().Add(challengeTTL)}
	a.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"nonce": key, "options": opts})
}

// shown is the ask of r's path as the page showed it: the digest and
// revision the form sent must be the ask's now, or it changed (409).
func (a *App) shown(r *http.Request, d *deviceInfo) (AskView, int, string) {
	ctx := a.as(r.Context(), d, "")
	p, code, msg := a.lookup(ctx, r.PathValue("id"))
	if code != http.StatusOK {
		return AskView{}, code, msg
	}
	v := a.views(ctx, []*limenv1.PendingAsk{p})[0]
	if r.FormValue("digest") != v.Digest {
		return v, http.StatusConflict, staleAsk
	}
	return v, http.StatusOK, ""
}

// staleAsk is the refusal of an answer to an ask the page showed
// otherwise; the page's script then shows the ask afresh.
const staleAsk = "this ask is not what the page showed (the policy changed since): look at it again and answer"

// answerHandler answers an ask through the service's own Answer.
func (a *App) answerHandler(w http.ResponseWriter, r *http.Request) {
	d := a.who(r)
	if d == nil {
		a.problem(w, r, http.StatusUnauthorized, notPaired)
		return
	}
	choice := r.FormValue("choice")
	c, ok := choices[choice]
	if !ok {
		a.problem(w, r, http.StatusBadRequest, "choice must be approve, deny, session or rule")
		return
	}
	v, code, msg := a.shown(r, d)
	if code != http.StatusOK {
		a.problem(w, r, code, msg)
		return
	}
	if choice == "rule" && !v.MayRule {
		a.problem(w, r, http.StatusForbidden, "a rule is added here only by limend's owner, for an ask that needs no passkey to approve and for which limen can suggest one: approve, or make the rule in limenctl tui")
		return
	}
	if needsSignature(v, choice) {
		if msg := a.verify(r, d, v, choice); msg != "" {
			a.problem(w, r, http.StatusUnauthorized, msg)
			return
		}
	}
	resp, err := a.svc.Answer(a.as(r.Context(), d, v.Digest), &limenv1.AnswerRequest{AskId: v.ID, Choice: c.choice, Scope: c.scope, Note: r.FormValue("note")})
	if err != nil {
		a.answerFailed(w, r, d, v.ID, err)
		return
	}
	a.push.ended(v.ID)
	verdict := strings.TrimPrefix(strings.ToLower(resp.GetVerdict().String()), "verdict_")
	if choice == "rule" {
		if code, msg := a.addRule(r.Context(), d, v); code != http.StatusOK {
			a.problem(w, r, code, "approved, but "+msg)
			return
		}
	}
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, map[string]string{"ask": v.ID, "verdict": verdict})
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// answerFailed maps a refused Answer to its status; the ask stays pending
// unless someone else's answer won.
func (a *App) answerFailed(w http.ResponseWriter, r *http.Request, d *deviceInfo, id string, err error) {
	switch status.Code(err) {
	case codes.FailedPrecondition, codes.NotFound:
		if _, code, msg := a.lookup(a.as(r.Context(), d, ""), id); code != http.StatusOK {
			a.problem(w, r, code, msg)
			return
		}
		a.problem(w, r, http.StatusConflict, status.Convert(err).Message())
	case codes.PermissionDenied:
		a.problem(w, r, http.StatusForbidden, status.Convert(err).Message())
	case codes.InvalidArgument:
		a.problem(w, r, http.StatusBadRequest, status.Convert(err).Message())
	default:
		a.problem(w, r, http.StatusServiceUnavailable, "limend did not take the answer ("+status.Convert(err).Message()+"); the ask stays pending")
	}
}

// verify checks the fresh passkey signature of an answer: the challenge
// it names is taken (used once) and must have been issued to this device
// for this very binding, recomputed from the ask as it is now. It returns
// what is wrong, or "".
func (a *App) verify(r *http.Request, d *deviceInfo, v AskView, choice string) string {
	const why = "this answer needs a fresh passkey signature"
	a.mu.Lock()
	c := a.challenges[r.FormValue("nonce")]
	delete(a.challenges, r.FormValue("nonce"))
	a.mu.Unlock()
	if c == nil || c.device != d.dev.GetId() || a.now().After(c.expires) {
		return why + " (approving an ask of class " + v.Class + ", or for the session): press Approve again and confirm with your passkey"
	}
	want := Binding{AskID: v.ID, Revision: v.Revision, Digest: v.Digest, Choice: choice, Nonce: c.binding.Nonce}
	sess := c.session
	sess.Challenge = base64.RawURLEncoding.EncodeToString(want.Challenge())
	parsed, err := protocol.ParseCredentialRequestResponseBody(bytes.NewReader([]byte(r.FormValue("assertion"))))
	if err != nil {
		return why + ": the signature does not parse (" + protocolDetail(err) + ")"
	}
	u, err := d.user()
	if err != nil {
		return err.Error()
	}
	cred, err := a.wa.ValidateLogin(u, sess, parsed)
	if err != nil {
		return why + ": the signature does not hold for this ask and choice (" + protocolDetail(err) + ")"
	}
	raw, err := json.Marshal(cred)
	if err == nil {
		d.dev.Credential, d.dev.LastUsed = raw, timestamppb.New(a.now())
		if err := a.devices.PutDevice(d.dev); err != nil {
			a.log.Warn("record the passkey's use", "device", d.dev.GetId(), "err", err)
		}
	}
	return ""
}

const notPaired = "This browser is not paired with limen, or its device was revoked: run limenctl pair in your own terminal and open the link it shows"
