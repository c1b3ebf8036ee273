package engine

import (
	"fmt"
	"sync"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/policy"
)

// BlockedApproval is the error of CheckApproval: a block rule in force
// refuses a person's approval.
type BlockedApproval struct {
	Rule string // the block rule's pattern
}

func (e *BlockedApproval) Error() string {
	return fmt.Sprintf("the policy in force now blocks it (rule %s), added after it was asked", e.Rule)
}

// CheckApproval returns a *BlockedApproval when pol, the policy in force
// as a person approves an ask, blocks the asked action: the policy may
// have changed since the ask was queued, and a block rule outranks a
// person's approval now as it would have at decision time. A nil pol
// (the policy could not be loaded) refuses nothing: the person decides.
func CheckApproval(pol *policy.Policy, parts []action.Part, env policy.Env) error {
	if pol == nil {
		return nil
	}
	if r, ok := pol.RulesFor(parts, env); ok && r.Verdict == policy.Block {
		return &BlockedApproval{Rule: r.Pattern}
	}
	return nil
}

// Grants are the session-scoped approvals people gave: an approval "for
// the session" lets Decide allow the same exact parts in the same session
// of the same user without asking again (ByHuman). They live in memory
// only, and end with the daemon. The zero value is ready to use and safe
// for concurrent use.
type Grants struct {
	m sync.Map // grantKey → struct{}
}

type grantKey struct{ user, session, key string }

// Approve records a person's approval of parts for a session. Opaque
// parts are never granted (limen cannot read what they run, so an
// approval of one says nothing about the next with the same text), and
// an action without a session grants nothing.
func (g *Grants) Approve(user, session string, parts []action.Part) {
	if session == "" {
		return
	}
	for _, p := range parts {
		if !p.Opaque {
			g.m.Store(grantKey{user, session, p.Keys.Exact()}, struct{}{})
		}
	}
}

// ApproveAny records that the person approved parts in a session, opaque
// ones included: the record behind Input.ApprovedInSession, which says
// what the person did there, not what may run without asking.
func (g *Grants) ApproveAny(user, session string, parts []action.Part) {
	if session == "" {
		return
	}
	for _, p := range parts {
		g.m.Store(grantKey{user, session, p.Keys.Exact()}, struct{}{})
	}
}

// For is the Input.Granted of a decision for user in session.
func (g *Grants) For(user, session string) func(key string) bool {
	return func(key string) bool {
		_, ok := g.m.Load(grantKey{user, session, key})
		return ok
	}
}

// RevokeParts ends the session grants an approval of parts gave (Approve):
// the person took that answer back.
func (g *Grants) RevokeParts(user, session string, parts []action.Part) {
	for _, p := range parts {
		g.m.Delete(grantKey{user, session, p.Keys.Exact()})
	}
}

// Add grants one exact key for a session, as Approve does for a part:
// for grants a shared store keeps (a team's etcd), which every limend
// hears of. The caller has left out opaque parts.
func (g *Grants) Add(user, session, key string) {
	g.m.Store(grantKey{user, session, key}, struct{}{})
}

// Revoke takes back what Add granted: its lease in the shared store ended.
func (g *Grants) Revoke(user, session, key string) {
	g.m.Delete(grantKey{user, session, key})
}
