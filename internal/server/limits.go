package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/time/rate"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/internal/peercred"
)

// Limits bound what one caller can make limend do. Zero fields take the
// defaults of DefaultLimits.
type Limits struct {
	// MaxPendingPerUser caps the asks waiting for one user. Beyond it Decide
	// still answers ask, but queues nothing and says the queue is full.
	MaxPendingPerUser int
	// MaxAwaits caps the Await calls waiting at once, over all callers.
	MaxAwaits int
	// Rate and Burst limit decisions per second per principal.
	Rate  float64
	Burst int
	// MaxInputDepth caps the nesting of input_json.
	MaxInputDepth int
}

// DefaultLimits are generous for one person's agents and still keep a
// runaway or hostile caller from filling memory or the disk.
func DefaultLimits() Limits {
	return Limits{MaxPendingPerUser: 200, MaxAwaits: 4096, Rate: 2000, Burst: 4000, MaxInputDepth: 32}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxPendingPerUser <= 0 {
		l.MaxPendingPerUser = d.MaxPendingPerUser
	}
	if l.MaxAwaits <= 0 {
		l.MaxAwaits = d.MaxAwaits
	}
	if l.Rate <= 0 {
		l.Rate = d.Rate
	}
	if l.Burst <= 0 {
		l.Burst = d.Burst
	}
	if l.MaxInputDepth <= 0 {
		l.MaxInputDepth = d.MaxInputDepth
	}
	return l
}

// guard enforces identity and limits. It holds no decision state.
type guard struct {
	limits   Limits
	trusted  map[string]bool // OS user names and uids that may act for others
	owner    uint32          // limend's uid: the one that may change the policy
	runtimes *runtimes       // the agent runtimes seen (see runtimes.go)
	limiters sync.Map        // principal → *rate.Limiter
	awaits   atomic.Int64
}

// DefaultTrustedGateways trusts only the user limend runs as: over a 0600
// socket nobody else can connect anyway, and that user's processes could
// read the database directly.
func DefaultTrustedGateways() []string {
	if u, err := user.Current(); err == nil {
		return []string{u.Username}
	}
	return []string{strconv.Itoa(os.Getuid())}
}

func newGuard(l Limits, trusted []string, owner uint32, rt *runtimes) *guard {
	g := &guard{limits: l.withDefaults(), trusted: map[string]bool{}, owner: owner, runtimes: rt}
	for _, t := range trusted {
		g.trusted[t] = true
	}
	return g
}

func (g *guard) isTrusted(p peercred.AuthInfo) bool {
	return g.trusted[p.User] || g.trusted[strconv.FormatUint(uint64(p.UID), 10)]
}

// principal decides who an action is for. Over a Unix socket the kernel
// says who is calling; naming another user is refused unless the caller is
// a trusted gateway (a service acting for many people). Callers without
// kernel credentials (loopback TCP) are anonymous and may not name a user;
// an authenticated TCP gateway (WithGateway) may.
func (g *guard) principal(ctx context.Context, claimed string) (string, error) {
	// A caller that acts for one user (a laptop's limend in upstream
	// mode, named by its client certificate) decides for that user only.
	if w, ok := webCallerFrom(ctx); ok {
		if claimed == "" || claimed == w.User {
			return w.User, nil
		}
		return "", status.Errorf(codes.PermissionDenied, "action.user is %q but the caller acts for %q (over %s): leave user empty", claimed, w.User, w.Channel)
	}
	if gw, ok := gatewayFrom(ctx); ok {
		if claimed == "" {
			return gw, nil
		}
		return claimed, nil
	}
	peer, ok := peercred.FromContext(ctx)
	if !ok {
		if claimed != "" {
			return "", status.Error(codes.PermissionDenied,
				"action.user: a caller without Unix socket credentials (TCP) cannot name a user; connect over the Unix socket, or leave user empty")
		}
		return "anonymous", nil
	}
	if claimed == "" || claimed == peer.User {
		return peer.User, nil
	}
	if g.isTrusted(peer) {
		return claimed, nil
	}
	return "", status.Errorf(codes.PermissionDenied,
		"action.user is %q but the caller is OS user %q: limend takes the user from the socket's credentials; leave user empty, or run the caller as a trusted gateway (limend --trusted-gateways)",
		claimed, peer.User)
}

// allow spends one decision from the principal's rate budget.
func (g *guard) allow(principal string) error {
	v, ok := g.limiters.Load(principal)
	if !ok {
		v, _ = g.limiters.LoadOrStore(principal, rate.NewLimiter(rate.Limit(g.limits.Rate), g.limits.Burst))
	}
	if !v.(*rate.Limiter).Allow() {
		return status.Errorf(codes.ResourceExhausted,
			"rate limit: %s asked for more than %.0f decisions per second; slow down (limend --rate raises it)", principal, g.limits.Rate)
	}
	return nil
}

// enterAwait counts a waiting Await; the returned func must be called when
// it stops waiting.
func (g *guard) enterAwait() (func(), error) {
	if n := g.awaits.Add(1); n > int64(g.limits.MaxAwaits) {
		g.awaits.Add(-1)
		return nil, status.Errorf(codes.ResourceExhausted,
			"too many Await calls waiting at once (%d); retry later (limend --max-awaits raises it)", g.limits.MaxAwaits)
	}
	return func() { g.awaits.Add(-1) }, nil
}

// checkDepth refuses JSON nested deeper than max, before it is decoded.
func checkDepth(raw string, max int) error {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case escaped:
			escaped = false
		case inString:
			if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > max {
				return fmt.Errorf("action.input_json is nested more than %d levels deep: send the tool's arguments, not a deep document", max)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

type gatewayKey struct{}

// WithGateway marks a call as coming from an authenticated gateway (a TCP
// client that presented a client certificate or the bearer token): it may
// act for any user it names, like a trusted gateway on the Unix socket.
func WithGateway(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, gatewayKey{}, name)
}

// gatewayFrom returns the gateway's name, prefixed so that it can never be
// an OS user's (see gatewayPrefix).
func gatewayFrom(ctx context.Context) (string, bool) {
	name, ok := ctx.Value(gatewayKey{}).(string)
	if !ok {
		return "", false
	}
	return gatewayPrefix + name, true
}

// flattenDeep rewrites raw, a JSON object nested deeper than max, with each
// value that would open a level beyond max replaced by a string saying so.
// Refusing such an input outright made it an ask (the caller fails closed)
// even when a block rule on the tool or its command would have blocked it:
// nesting an argument deeper would so have downgraded a block. The
// flattened action is decided on what limen can read, and never allowed
// (see limitDeep). An error means raw is not JSON limen can read at all.
func flattenDeep(raw string, max int) (string, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := copyJSON(dec, &b, 0, max); err != nil {
		return "", fmt.Errorf("action.input_json is nested more than %d levels deep and cannot be read (%v): send the tool's arguments, not a deep document", max, err)
	}
	if dec.More() {
		return "", errors.New("action.input_json has data after the JSON object: send exactly one object")
	}
	return b.String(), nil
}

// copyJSON copies one JSON value from dec to b; depth is the nesting
// around it.
func copyJSON(dec *json.Decoder, b *strings.Builder, depth, max int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		v, err := json.Marshal(tok)
		if err != nil {
			return err
		}
		b.Write(v)
		return nil
	}
	if depth+1 > max {
		// Skip the whole value; its tokens balance out.
		for open := 1; open > 0; {
			t, err := dec.Token()
			if err != nil {
				return err
			}
			switch t {
			case json.Delim('{'), json.Delim('['):
				open++
			case json.Delim('}'), json.Delim(']'):
				open--
			}
		}
		fmt.Fprintf(b, "%q", fmt.Sprintf("<nested deeper than %d levels: not read>", max))
		return nil
	}
	b.WriteString(delim.String())
	for i := 0; dec.More(); i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if delim == '{' {
			key, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := json.Marshal(key)
			b.Write(k)
			b.WriteByte(':')
		}
		if err := copyJSON(dec, b, depth+1, max); err != nil {
			return err
		}
	}
	end, err := dec.Token()
	if err != nil {
		return err
	}
	b.WriteString(end.(json.Delim).String())
	return nil
}
