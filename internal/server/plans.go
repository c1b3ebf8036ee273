package server

import (
	"sync"
	"time"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/engine"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// Bounds of the plan cache: about 4096 × (1 KiB of key + the parts) at most,
// a few megabytes. Agents repeat themselves (in the evaluation streams 78%
// of actions repeat an earlier one exactly), so a few thousand entries
// catch most calls.
const (
	maxPlans     = 4096
	maxPlanInput = 1 << 10 // longer input_json or cwd is planned afresh each time
)

// planCache caches, per exact action, everything Decide works out from the
// action and the policy alone: the decoded action's parts (shell parsing)
// and each part's hard rule and risk class (glob matching). That was three
// quarters of Decide's CPU time. The prediction, session grants and
// exploration are not cached: they change with every answer.
//
// The cache belongs to one policy state: a new policy empties it. When
// full, a random entry makes room (Go's map iteration order is random),
// which needs no bookkeeping on the hit path.
type planCache struct {
	mu sync.RWMutex
	ps *policyState
	m  map[planKey]*plannedAction
	// self is limend's own locations, given to every action it plans, so
	// its parts know limen's controls; it never changes.
	self *action.Self
}

type planKey struct{ user, tool, input, cwd string }

// plannedAction is one cached plan; it is shared and never changed.
type plannedAction struct {
	parts []action.Part
	env   policy.Env
	plan  *engine.Plan
}

// get returns the plan of msg (whose user is already the principal) under
// ps, from the cache or made now. It fails only when msg's input_json does
// not decode, with toAction's error, or lacks its tool's required argument
// (checkArgs).
func (c *planCache) get(ps *policyState, msg *limenv1.Action, at time.Time) (*plannedAction, error) {
	k := planKey{msg.GetUser(), msg.GetTool(), msg.GetInputJson(), msg.GetCwd()}
	c.mu.RLock()
	var p *plannedAction
	if c.ps == ps {
		p = c.m[k]
	}
	c.mu.RUnlock()
	if p != nil {
		return p, nil
	}
	act, err := convert.Action(msg, at)
	if err != nil {
		return nil, err
	}
	if err := checkArgs(act); err != nil {
		return nil, err
	}
	act.Self = c.self
	parts := action.Parts(act)
	env := convert.Env(act)
	p = &plannedAction{parts: parts, env: env, plan: engine.NewPlan(ps.pol, parts, env)}
	if len(k.input) > maxPlanInput || len(k.cwd) > maxPlanInput || len(k.user)+len(k.tool) > maxPlanInput {
		return p, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ps != ps {
		c.ps, c.m = ps, make(map[planKey]*plannedAction)
	}
	if len(c.m) >= maxPlans {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = p
	return p, nil
}
