package server

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/internal/peercred"
)

// Who may call what. limend tells callers apart by how they reached it, never
// by what they say about themselves:
//
//   - the owner: a Unix socket peer whose uid (SO_PEERCRED) is limend's own;
//   - a trusted gateway: a Unix socket peer of another uid named in
//     --trusted-gateways, a service that acts for several people;
//   - a user: a Unix socket peer of any other uid (a socket made reachable
//     to them, such as one of mode 0666);
//   - an admin gateway: a TCP client that proved itself over TLS (a client
//     certificate signed by --tls-client-ca, or the --token-file token);
//   - anonymous: a TCP client without TLS (loopback only) or the hook API's
//     --http-tcp, which the kernel cannot name.
//
// The table below is the whole policy; each row has a test.

// kind is how a caller reached limend.
type kind int

const (
	kindAnonymous kind = iota
	kindUser
	kindTrusted
	kindOwner
	kindGateway
	numKinds
)

func (k kind) String() string {
	return [...]string{"anonymous", "user", "trusted gateway", "owner", "admin gateway"}[k]
}

// reach is how far a call may go for a kind of caller.
type reach int

const (
	// none refuses the call.
	none reach = iota
	// own limits the call to the caller's own asks and decisions (those
	// whose action.user is the caller's principal).
	own
	// all lets the call see or act on every user's.
	all
)

// op names a guarded call.
type op string

const (
	opDecide       op = "Decide"
	opAwait        op = "Await"
	opAnswer       op = "Answer"
	opListPending  op = "ListPending"
	opWatchPending op = "WatchPending"
	opHistory      op = "History"
	opStats        op = "Stats"
	opGetPolicy    op = "GetPolicy"
	opListVersions op = "ListPolicyVersions"
	opSimulate     op = "SimulatePolicy"
	opSetPolicy    op = "SetPolicy"
	opGetVersion   op = "GetVersion"
	// The web app's pairing (devices.go).
	opCreatePairing op = "CreatePairing"
	opListDevices   op = "ListDevices"
	opRevokeDevice  op = "RevokeDevice"
	opForget        op = "Forget"
	opExplain       op = "ExplainDecision"
	opGetCluster    op = "GetCluster"
)

// access says, for each call, how far each kind of caller reaches, in the
// order anonymous, user, trusted gateway, owner, admin gateway.
//
// Decide's row is enforced by guard.principal, which lets the owner name
// another user only while it is a trusted gateway (as it is by default).
//
// Reading the policy is open to every local user: the rules are what every
// caller already lives under and Decide's reason names the rule that
// decided, so they are not a secret from the people they govern; an
// anonymous caller is refused it anyway, because it needs nothing but
// Decide and Await. Simulating a policy replays every user's history, so it
// needs the reach of History over everyone. Changing the policy (SetPolicy,
// and so `limenctl policy rollback`, which sets an old document as a new
// version) is the owner's, or an admin gateway's, alone.
var access = map[op][numKinds]reach{
	opDecide:       {own, own, all, all, all},
	opAwait:        {own, own, all, all, all},
	opAnswer:       {none, own, all, all, all},
	opListPending:  {none, own, all, all, all},
	opWatchPending: {none, own, all, all, all},
	opHistory:      {none, own, all, all, all},
	opStats:        {none, own, all, all, all},
	opGetPolicy:    {none, all, all, all, all},
	opListVersions: {none, all, all, all, all},
	opSimulate:     {none, none, all, all, all},
	opSetPolicy:    {none, none, none, all, all},
	// The build is no secret from a local user, but an anonymous caller
	// needs nothing but Decide and Await.
	opGetVersion: {none, all, all, all, all},
	// A device is paired for the caller's own OS user only: no gateway
	// pairs one for someone else, since the kernel named nobody else.
	opCreatePairing: {none, own, none, own, none},
	opListDevices:   {none, own, all, all, all},
	opRevokeDevice:  {none, own, all, all, all},
	// Forgetting changes what limen learned, as an answer does.
	opForget: {none, own, all, all, all},
	// Explaining a decision shows its history, as History does.
	opExplain: {none, own, all, all, all},
	// The cluster's state says nothing of anyone's actions.
	opGetCluster: {none, all, all, all, all},
}

// personOnly are the calls that only a person may make: the ones that settle
// an ask (and may grant a session) or change the policy. A caller that
// descends from an agent runtime is refused them whatever its kind.
var personOnly = map[op]string{
	opAnswer:    "answers come from a person: use limenctl tui in your own terminal, not a shell an agent started",
	opSetPolicy: "policy changes come from a person: run limenctl policy in your own terminal, not a shell an agent started",
	// A device paired by an agent would approve for it.
	opCreatePairing: "pairing a device comes from a person: run limenctl pair in your own terminal, not a shell an agent started",
	opForget:        "forgetting answers is a person's: run limenctl forget in your own terminal, not a shell an agent started (an agent must not unlearn its refusals)",
}

// caller is who is on the other end of a call.
type caller struct {
	kind kind
	// name is the caller's principal: the OS user of a socket peer, the
	// gateway's name, or "anonymous".
	name string
	peer peercred.AuthInfo // set for socket peers
	web  *WebCaller        // set for the web app's calls (web.go)
}

// gatewayPrefix starts the name of every admin gateway ("gateway:token",
// "gateway:tls:<CN>"): OS user names cannot hold ':' (it separates the
// fields of /etc/passwd), so an answer by a gateway is never taken for a
// person's (see attributed).
const gatewayPrefix = "gateway:"

// whoIs classifies the caller of ctx.
func (g *guard) whoIs(ctx context.Context) caller {
	if w, ok := webCallerFrom(ctx); ok {
		return caller{kind: kindUser, name: w.User, web: &w}
	}
	if gw, ok := gatewayFrom(ctx); ok {
		return caller{kind: kindGateway, name: gw}
	}
	peer, ok := peercred.FromContext(ctx)
	if !ok {
		return caller{kind: kindAnonymous, name: "anonymous"}
	}
	c := caller{kind: kindUser, name: peer.User, peer: peer}
	switch {
	case peer.UID == g.owner:
		c.kind = kindOwner
	case g.isTrusted(peer):
		c.kind = kindTrusted
	}
	return c
}

// authorize returns the caller of ctx and how far it reaches for o, or a
// PermissionDenied error that says what the caller may do instead.
func (g *guard) authorize(ctx context.Context, o op) (caller, reach, error) {
	c := g.whoIs(ctx)
	r := access[o][c.kind]
	if r == none {
		return c, none, status.Error(codes.PermissionDenied, refusal(o, c, g.owner))
	}
	// A web caller showed a device's session, and the web app asks a
	// fresh passkey signature where one is needed; it has no process to
	// follow.
	if why, ok := personOnly[o]; ok && c.kind != kindGateway && c.web == nil {
		if err := g.fromPerson(c, why); err != nil {
			return c, none, err
		}
	}
	return c, r, nil
}

// fromPerson refuses a socket caller that runs under a recorded agent
// runtime, or whose ancestry cannot be followed (failing closed).
func (g *guard) fromPerson(c caller, why string) error {
	peer := c.peer.Resolved()
	rt, sameSession, err := g.runtimes.runtimeOf(peer.PID, peer.Start)
	switch {
	case err != nil:
		return status.Errorf(codes.PermissionDenied, "%s (%v)", why, err)
	case rt != nil && sameSession:
		return status.Errorf(codes.PermissionDenied, "%s (this process is in the terminal session of %s; that runtime is still running)", why, rt)
	case rt != nil:
		return status.Errorf(codes.PermissionDenied, "%s (this process runs under %s)", why, rt)
	}
	if d := g.runtimes.detached(peer.PID, peer.Start); d != nil {
		return status.Errorf(codes.PermissionDenied, "%s (this process runs in a session that process %d (%s) detached from every terminal, as an agent's code does to leave its runtime; answer from a terminal)", why, d.PID, d.Comm)
	}
	return nil
}

func refusal(o op, c caller, owner uint32) string {
	switch {
	case c.kind == kindAnonymous:
		return fmt.Sprintf("%s is refused to callers limend cannot identify (plain TCP, or the hook API's --http-tcp): they may only Decide and Await their own asks; connect over limend's Unix socket (limenctl --socket) instead", o)
	case o == opSetPolicy:
		return fmt.Sprintf("only limend's owner (uid %d, over the Unix socket) or an admin gateway (--tcp with TLS and --tls-client-ca or --token-file) may change the policy; %s %q is neither", owner, c.kind, c.name)
	default:
		return fmt.Sprintf("%s needs the reach over every user's asks and history, which OS user %q does not have: only limend's owner (uid %d), a trusted gateway (limend --trusted-gateways) or an admin gateway has it", o, c.name, owner)
	}
}

// mayTouch reports whether a caller of reach r may act on something of user.
func (c caller) mayTouch(r reach, user string) bool {
	return r == all || (r == own && user == c.name)
}

// notYours refuses an ask or decision of another user.
func notYours(o op, c caller, what, user string) error {
	return status.Errorf(codes.PermissionDenied, "%s: %s belongs to %q; %s %q reaches only its own asks and decisions (those of user %q)", o, what, user, c.kind, c.name, c.name)
}

// attributed reports whether an answer by answeredBy teaches the
// predictor: only an answer given over the Unix socket, where the kernel
// names the OS user who gave it (the person, or a trusted gateway that
// vouches for the person it acts for). An answer by an admin gateway (whose
// name holds ':', which no OS user name can) cannot be attributed to a
// person, since the API has no way for it to name one; nor can a record
// that names nobody. Both are stored and settle their ask, but teach
// nothing.
func attributed(answeredBy string) bool {
	return answeredBy != "" && !strings.Contains(answeredBy, ":")
}
