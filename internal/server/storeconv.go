package server

import (
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

// apiStore is the store as the handlers see it: limen.v1 messages in and
// out. The store keeps its own messages (limen.store.v1), so that an API
// change is not a change of the files people have; this file is the one
// place that converts between the two. Every method the handlers call with
// a message is shadowed here; the rest (NextID, Flush, LogErr, ...) are
// the store's own.
//
// The conversions copy every field, nested messages included, so a record
// handed to the store shares nothing with the response that carries the
// same decision (TestStoreConversionCopiesEveryField).
type apiStore struct{ store.Backend }

// AddPending is store.Store.AddPending.
func (s apiStore) AddPending(d *limenv1.Decision, p *limenv1.PendingAsk) error {
	return s.Backend.AddPending(storeDecision(d), storePending(p))
}

// Pending is store.Store.Pending.
func (s apiStore) Pending() ([]*limenv1.PendingAsk, error) {
	ps, err := s.Backend.Pending()
	return convertAll(ps, apiPending), err
}

// Answer is store.Store.Answer. The answer record is the store's own
// message: the API has none.
func (s apiStore) Answer(askID uint64, rec *storev1.AnswerRecord) (*limenv1.Decision, error) {
	d, err := s.Backend.Answer(askID, rec)
	return apiDecision(d), err
}

// Expire is store.Store.Expire.
func (s apiStore) Expire(askID uint64, o *limenv1.AskOutcome) (*limenv1.Decision, error) {
	d, err := s.Backend.Expire(askID, storeOutcome(o))
	return apiDecision(d), err
}

// LogDecision is store.Store.LogDecision. The store keeps a copy, so the
// caller may go on changing d.
func (s apiStore) LogDecision(d *limenv1.Decision) { s.Backend.LogDecision(storeDecision(d)) }

// History is store.Store.History.
func (s apiStore) History(q store.HistoryQuery) ([]*limenv1.Decision, error) {
	ds, err := s.Backend.History(q)
	return convertAll(ds, apiDecision), err
}

// Decision is store.Store.Decision.
func (s apiStore) Decision(id uint64) (*limenv1.Decision, error) {
	d, err := s.Backend.Decision(id)
	return apiDecision(d), err
}

// Decisions is store.Store.Decisions.
func (s apiStore) Decisions(fn func(d *limenv1.Decision) error) error {
	return s.Backend.Decisions(func(d *storev1.Decision) error { return fn(apiDecision(d)) })
}

// Policy is store.Store.Policy.
func (s apiStore) Policy() (*limenv1.Policy, error) {
	p, err := s.Backend.Policy()
	return apiPolicy(p), err
}

// PolicyVersion is store.Store.PolicyVersion.
func (s apiStore) PolicyVersion(v uint64) (*limenv1.Policy, error) {
	p, err := s.Backend.PolicyVersion(v)
	return apiPolicy(p), err
}

// PolicyVersions is store.Store.PolicyVersions.
func (s apiStore) PolicyVersions() ([]*limenv1.Policy, error) {
	ps, err := s.Backend.PolicyVersions()
	return convertAll(ps, apiPolicy), err
}

// SetPolicy is store.Store.SetPolicy.
func (s apiStore) SetPolicy(expected uint64, p *limenv1.Policy) (*limenv1.Policy, error) {
	stored, err := s.Backend.SetPolicy(expected, storePolicy(p))
	return apiPolicy(stored), err
}

func convertAll[From, To any](in []From, conv func(From) To) []To {
	if in == nil {
		return nil
	}
	out := make([]To, len(in))
	for i, m := range in {
		out[i] = conv(m)
	}
	return out
}

// The enums have the same numbers in both packages, so a conversion is the
// number (TestStoreEnumsMatchTheAPI); an API value the store does not
// name yet is kept as its number, as proto3 keeps unknown enum values.

func storeDecision(d *limenv1.Decision) *storev1.Decision {
	if d == nil {
		return nil
	}
	return &storev1.Decision{
		DecisionId:    d.GetDecisionId(),
		Time:          copyTime(d.GetTime()),
		Action:        storeAction(d.GetAction()),
		Verdict:       storev1.Verdict(d.GetVerdict()),
		P:             d.GetP(),
		Thresholds:    storeThresholds(d.GetThresholds()),
		RiskClass:     d.GetRiskClass(),
		Key:           d.GetKey(),
		Evidence:      storeEvidence(d.GetEvidence()),
		Reason:        d.GetReason(),
		DecidedBy:     storev1.Decider(d.GetDecidedBy()),
		PolicyVersion: d.GetPolicyVersion(),
		AskId:         d.GetAskId(),
		Latency:       copyDuration(d.GetLatency()),
		Outcome:       storeOutcome(d.GetOutcome()),
		Parts:         storeParts(d.GetParts()),
	}
}

func apiDecision(d *storev1.Decision) *limenv1.Decision {
	if d == nil {
		return nil
	}
	return &limenv1.Decision{
		DecisionId:    d.GetDecisionId(),
		Time:          copyTime(d.GetTime()),
		Action:        apiAction(d.GetAction()),
		Verdict:       limenv1.Verdict(d.GetVerdict()),
		P:             d.GetP(),
		Thresholds:    apiThresholds(d.GetThresholds()),
		RiskClass:     d.GetRiskClass(),
		Key:           d.GetKey(),
		Evidence:      apiEvidence(d.GetEvidence()),
		Reason:        d.GetReason(),
		DecidedBy:     limenv1.Decider(d.GetDecidedBy()),
		PolicyVersion: d.GetPolicyVersion(),
		AskId:         d.GetAskId(),
		Latency:       copyDuration(d.GetLatency()),
		Outcome:       apiOutcome(d.GetOutcome()),
		Parts:         apiStoredParts(d.GetParts()),
	}
}

func storeAction(a *limenv1.Action) *storev1.Action {
	if a == nil {
		return nil
	}
	return &storev1.Action{
		User: a.GetUser(), Agent: a.GetAgent(), Session: a.GetSession(), Tool: a.GetTool(),
		InputJson: a.GetInputJson(), Cwd: a.GetCwd(), ToolUseId: a.GetToolUseId(),
	}
}

func apiAction(a *storev1.Action) *limenv1.Action {
	if a == nil {
		return nil
	}
	return &limenv1.Action{
		User: a.GetUser(), Agent: a.GetAgent(), Session: a.GetSession(), Tool: a.GetTool(),
		InputJson: a.GetInputJson(), Cwd: a.GetCwd(), ToolUseId: a.GetToolUseId(),
	}
}

func storeThresholds(t *limenv1.Thresholds) *storev1.Thresholds {
	if t == nil {
		return nil
	}
	return &storev1.Thresholds{AllowAbove: t.GetAllowAbove(), BlockBelow: t.GetBlockBelow()}
}

func apiThresholds(t *storev1.Thresholds) *limenv1.Thresholds {
	if t == nil {
		return nil
	}
	return &limenv1.Thresholds{AllowAbove: t.GetAllowAbove(), BlockBelow: t.GetBlockBelow()}
}

func storeEvidence(e *limenv1.Evidence) *storev1.Evidence {
	if e == nil {
		return nil
	}
	return &storev1.Evidence{
		Level: e.GetLevel(), Approvals: e.GetApprovals(), Denials: e.GetDenials(),
		EffectiveCount: e.GetEffectiveCount(), Specific: e.GetSpecific(),
	}
}

func apiEvidence(e *storev1.Evidence) *limenv1.Evidence {
	if e == nil {
		return nil
	}
	return &limenv1.Evidence{
		Level: e.GetLevel(), Approvals: e.GetApprovals(), Denials: e.GetDenials(),
		EffectiveCount: e.GetEffectiveCount(), Specific: e.GetSpecific(),
	}
}

func storeOutcome(o *limenv1.AskOutcome) *storev1.AskOutcome {
	if o == nil {
		return nil
	}
	return &storev1.AskOutcome{
		State: storev1.AskState(o.GetState()), Choice: storev1.Choice(o.GetChoice()), Scope: storev1.Scope(o.GetScope()),
		Note: o.GetNote(), AnsweredBy: o.GetAnsweredBy(), Time: copyTime(o.GetTime()),
		Channel: o.GetChannel(), DeviceId: o.GetDeviceId(), ActionDigest: o.GetActionDigest(),
		ForgottenAt: copyTime(o.GetForgottenAt()), ForgottenBy: o.GetForgottenBy(),
	}
}

func apiOutcome(o *storev1.AskOutcome) *limenv1.AskOutcome {
	if o == nil {
		return nil
	}
	return &limenv1.AskOutcome{
		State: limenv1.AskState(o.GetState()), Choice: limenv1.Choice(o.GetChoice()), Scope: limenv1.Scope(o.GetScope()),
		Note: o.GetNote(), AnsweredBy: o.GetAnsweredBy(), Time: copyTime(o.GetTime()),
		Channel: o.GetChannel(), DeviceId: o.GetDeviceId(), ActionDigest: o.GetActionDigest(),
		ForgottenAt: copyTime(o.GetForgottenAt()), ForgottenBy: o.GetForgottenBy(),
	}
}

func storePending(p *limenv1.PendingAsk) *storev1.PendingAsk {
	if p == nil {
		return nil
	}
	return &storev1.PendingAsk{AskId: p.GetAskId(), Decision: storeDecision(p.GetDecision()), ExpiresAt: copyTime(p.GetExpiresAt())}
}

func apiPending(p *storev1.PendingAsk) *limenv1.PendingAsk {
	if p == nil {
		return nil
	}
	return &limenv1.PendingAsk{AskId: p.GetAskId(), Decision: apiDecision(p.GetDecision()), ExpiresAt: copyTime(p.GetExpiresAt())}
}

func storePolicy(p *limenv1.Policy) *storev1.Policy {
	if p == nil {
		return nil
	}
	out := &storev1.Policy{Version: p.GetVersion(), Document: p.GetDocument(), Author: p.GetAuthor(), Time: copyTime(p.GetTime())}
	for _, c := range p.GetClasses() {
		sc := &storev1.ClassThresholds{Name: c.GetName(), Thresholds: storeThresholds(c.GetThresholds())}
		if k := c.GetCosts(); k != nil {
			sc.Costs = &storev1.Costs{Allow: k.GetAllow(), Block: k.GetBlock(), Ask: k.GetAsk()}
		}
		out.Classes = append(out.Classes, sc)
	}
	return out
}

func apiPolicy(p *storev1.Policy) *limenv1.Policy {
	if p == nil {
		return nil
	}
	out := &limenv1.Policy{Version: p.GetVersion(), Document: p.GetDocument(), Author: p.GetAuthor(), Time: copyTime(p.GetTime())}
	for _, c := range p.GetClasses() {
		ac := &limenv1.ClassThresholds{Name: c.GetName(), Thresholds: apiThresholds(c.GetThresholds())}
		if k := c.GetCosts(); k != nil {
			ac.Costs = &limenv1.Costs{Allow: k.GetAllow(), Block: k.GetBlock(), Ask: k.GetAsk()}
		}
		out.Classes = append(out.Classes, ac)
	}
	return out
}

func copyTime(t *timestamppb.Timestamp) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return &timestamppb.Timestamp{Seconds: t.GetSeconds(), Nanos: t.GetNanos()}
}

func copyDuration(d *durationpb.Duration) *durationpb.Duration {
	if d == nil {
		return nil
	}
	return &durationpb.Duration{Seconds: d.GetSeconds(), Nanos: d.GetNanos()}
}
