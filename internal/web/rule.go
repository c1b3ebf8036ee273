package web

import (
	"context"
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/internal/server"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// addRule adds the ask's suggested allow rule to the policy, for "approve
// and allow always". The handler has checked that the ask is limend's
// owner's and that the owner's passkey signed this very rule (it is in the
// digest) on this revision of the policy. The policy is then set as an
// in-process gateway named after the device, so the policy's history says
// who changed it and from where; the compare-and-set on the revision
// refuses a policy changed in between.
func (a *App) addRule(ctx context.Context, d *deviceInfo, v AskView) (int, string) {
	gw := server.WithGateway(ctx, "web:"+d.dev.GetUser()+":"+d.dev.GetId())
	cur, err := a.svc.GetPolicy(gw, &limenv1.GetPolicyRequest{})
	if err != nil {
		return http.StatusServiceUnavailable, "the rule was not added: " + status.Convert(err).Message()
	}
	if cur.GetPolicy().GetVersion() != v.Revision {
		return http.StatusConflict, "the rule was not added: the policy changed since the page showed it; add it in limenctl tui"
	}
	doc, err := policy.AddRule(cur.GetPolicy().GetDocument(), "allow", v.Rule)
	if err != nil {
		return http.StatusConflict, "the rule was not added: " + err.Error()
	}
	_, err = a.svc.SetPolicy(gw, &limenv1.SetPolicyRequest{ExpectedVersion: v.Revision, Document: doc})
	switch status.Code(err) {
	case codes.OK:
		a.log.Info("rule added from the web app", "rule", v.Rule, "user", d.dev.GetUser(), "device", d.dev.GetId())
		return http.StatusOK, ""
	case codes.Aborted:
		return http.StatusConflict, "the rule was not added: the policy changed meanwhile; add it in limenctl tui"
	}
	return http.StatusServiceUnavailable, "the rule was not added: " + status.Convert(err).Message()
}
