// Package convert is where an API message becomes a domain value: a
// limenv1.Action becomes an action.Action (and the policy.Env its rules are
// matched in, with `~` looked up here), a limenv1.Verdict a policy.Verdict
// and a limenv1.Decider an engine.DecidedBy, and back. limend's service,
// the TUI and limenctl all convert here, so a decoding rule, the meaning
// of `~` or "an unknown verdict is ask" is written once.
package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os/user"
	"sync"
	"time"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/engine"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// Action decodes an API action taken at at: input_json must be a JSON
// object (an empty string counts as {}), decoded with numbers kept as
// json.Number so that keys spell them as the caller did. The error names
// the field and what to send instead; with it, the action is returned
// without arguments.
func Action(a *limenv1.Action, at time.Time) (action.Action, error) {
	act := action.Action{
		User: a.GetUser(), Agent: a.GetAgent(), Session: a.GetSession(), Tool: a.GetTool(),
		Input: map[string]any{}, Cwd: a.GetCwd(), Time: at,
	}
	input, err := decodeInput(a.GetInputJson())
	if err != nil {
		return act, err
	}
	act.Input = input
	return act, nil
}

// Preview decodes an action limend has already decided (from a Decision
// or an ask), for showing it or matching rules against it as limend did.
// It never fails: an input limend could not have accepted gives an action
// without arguments, since a preview decides nothing.
func Preview(a *limenv1.Action) action.Action {
	act, _ := Action(a, time.Time{})
	return act
}

func decodeInput(s string) (map[string]any, error) {
	input := map[string]any{}
	raw := bytes.TrimSpace([]byte(s))
	if len(raw) == 0 {
		return input, nil
	}
	if raw[0] != '{' {
		return nil, errors.New(`action.input_json must be a JSON object of the tool's arguments, such as {"command":"ls -la"}`)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&input); err != nil {
		return nil, fmt.Errorf(`action.input_json is not valid JSON (%v): send an object such as {"command":"ls -la"}`, err)
	}
	if dec.More() {
		return nil, errors.New("action.input_json has data after the JSON object: send exactly one object")
	}
	return input, nil
}

// Env is what an action's path patterns are matched against: its working
// directory, and its user's home for `~`. limend deciding, the TUI
// previewing a rule and limenctl policy explain all take it from here, so
// they agree on what Edit(~/.ssh/**) covers.
func Env(a action.Action) policy.Env {
	return policy.Env{Cwd: a.Cwd, Home: Home(a.User)}
}

// Home is the home directory `~` stands for in the rules applied to an
// action of user (see [action.UserHome]), looked up in the OS account
// database. The lookup lives here, in one internal package every caller
// uses, rather than in action/, which reads nothing but its arguments; the
// TUI and limenctl run on limend's machine, so they see the same accounts.
func Home(name string) string {
	return action.UserHome(name, lookupHome)
}

var homes sync.Map // user name → home directory, "" when there is no account

// lookupHome asks the account database once per user name: limend asks for
// the home of every decision, and a lookup may read /etc/passwd or ask
// NSS.
func lookupHome(name string) (string, bool) {
	if h, ok := homes.Load(name); ok {
		return h.(string), h.(string) != ""
	}
	home := ""
	if u, err := user.Lookup(name); err == nil {
		home = u.HomeDir
	}
	homes.Store(name, home)
	return home, home != ""
}

// pairs is a table between an API enum and a domain one, read both ways;
// a value in neither column maps to the caller's fail-closed default.
type pairs[A, D comparable] []struct {
	api    A
	domain D
}

func (t pairs[A, D]) toDomain(v A, otherwise D) D {
	for _, e := range t {
		if e.api == v {
			return e.domain
		}
	}
	return otherwise
}

func (t pairs[A, D]) toAPI(v D, otherwise A) A {
	for _, e := range t {
		if e.domain == v {
			return e.api
		}
	}
	return otherwise
}

// verdicts is the one table between the API's verdicts and the policy's.
// Their names ("allow", "ask", "block") are policy.Verdict's String, so an
// API verdict is named, and read back from a name, through the policy.
var verdicts = pairs[limenv1.Verdict, policy.Verdict]{
	{limenv1.Verdict_VERDICT_ASK, policy.Ask},
	{limenv1.Verdict_VERDICT_ALLOW, policy.Allow},
	{limenv1.Verdict_VERDICT_BLOCK, policy.Block},
}

// Verdict is the policy verdict of an API verdict. VERDICT_UNSPECIFIED and
// any value this build does not know are Ask: an unknown verdict never
// allows and never blocks without a person.
func Verdict(v limenv1.Verdict) policy.Verdict { return verdicts.toDomain(v, policy.Ask) }

// APIVerdict is the API verdict of a policy verdict; an unknown one is
// VERDICT_ASK.
func APIVerdict(v policy.Verdict) limenv1.Verdict {
	return verdicts.toAPI(v, limenv1.Verdict_VERDICT_ASK)
}

// VerdictName is "allow", "ask" or "block"; "ask" for an unspecified or
// unknown verdict, which is how limen treats it.
func VerdictName(v limenv1.Verdict) string { return Verdict(v).String() }

// ParseVerdictName is the API verdict a name stands for: "allow", "ask" or
// "block" (policy.ParseVerdict's words); anything else is VERDICT_ASK.
func ParseVerdictName(s string) limenv1.Verdict {
	v, _ := policy.ParseVerdict(s) // Ask on error
	return APIVerdict(v)
}

// deciders is the one table between the API's deciders and the engine's.
var deciders = pairs[limenv1.Decider, engine.DecidedBy]{
	{limenv1.Decider_DECIDER_FAILSAFE, engine.ByFailsafe},
	{limenv1.Decider_DECIDER_RULE, engine.ByRule},
	{limenv1.Decider_DECIDER_PREDICTION, engine.ByPrediction},
	{limenv1.Decider_DECIDER_HUMAN, engine.ByHuman},
}

// DecidedBy is the engine's name for what settled a verdict;
// DECIDER_UNSPECIFIED and unknown values are ByFailsafe, which claims
// nothing was weighed.
func DecidedBy(d limenv1.Decider) engine.DecidedBy { return deciders.toDomain(d, engine.ByFailsafe) }

// APIDecider is the API's name for what settled a verdict; an unknown
// value is DECIDER_FAILSAFE.
func APIDecider(d engine.DecidedBy) limenv1.Decider {
	return deciders.toAPI(d, limenv1.Decider_DECIDER_FAILSAFE)
}
