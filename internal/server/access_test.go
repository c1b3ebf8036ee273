package server

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/internal/peercred"
)

// callerCtx returns a context for each kind of caller. Socket peers are
// this test process (whose ancestry limend can read and has not recorded).
func callerCtx(t *testing.T, g *guard, k kind) context.Context {
	t.Helper()
	self, err := peercred.ReadProc(os.Getpid())
	if err != nil {
		t.Skip("no /proc:", err)
	}
	peer := func(uid uint32, user string) context.Context {
		return peercred.NewContext(t.Context(), peercred.AuthInfo{UID: uid, User: user, PID: int32(os.Getpid()), Start: self.Start})
	}
	switch k {
	case kindAnonymous:
		return t.Context()
	case kindUser:
		return peer(g.owner+1000, "mallory")
	case kindTrusted:
		return peer(g.owner+2000, "gw")
	case kindOwner:
		return peer(g.owner, "owner")
	case kindGateway:
		return WithGateway(t.Context(), "token")
	}
	t.Fatalf("no context for %v", k)
	return nil
}

// TestAccessTable: one row per call, what each kind of caller may do, as
// the issue states it (anonymous decides and awaits its own at most; other
// users only their own; policy changes need the owner or an admin gateway).
func TestAccessTable(t *testing.T) {
	g := newGuard(Limits{}, []string{"gw"}, uint32(os.Getuid()),
		newRuntimes(peercred.ReadProc, time.Now, slog.New(slog.DiscardHandler), 0, os.Getpid()))
	type row struct{ anonymous, user, trusted, owner, gateway reach }
	tests := map[op]row{
		opDecide:        {own, own, all, all, all},
		opAwait:         {own, own, all, all, all},
		opAnswer:        {none, own, all, all, all},
		opListPending:   {none, own, all, all, all},
		opWatchPending:  {none, own, all, all, all},
		opHistory:       {none, own, all, all, all},
		opStats:         {none, own, all, all, all},
		opGetPolicy:     {none, all, all, all, all},
		opListVersions:  {none, all, all, all, all},
		opSimulate:      {none, none, all, all, all},
		opSetPolicy:     {none, none, none, all, all},
		opGetVersion:    {none, all, all, all, all},
		opCreatePairing: {none, own, none, own, none},
		opListDevices:   {none, own, all, all, all},
		opRevokeDevice:  {none, own, all, all, all},
		opForget:        {none, own, all, all, all},
		opExplain:       {none, own, all, all, all},
		opGetCluster:    {none, all, all, all, all},
	}
	if len(tests) != len(access) {
		t.Errorf("the test has %d rows, the table %d: test every call", len(tests), len(access))
	}
	for o, want := range tests {
		t.Run(string(o), func(t *testing.T) {
			for k, r := range map[kind]reach{kindAnonymous: want.anonymous, kindUser: want.user, kindTrusted: want.trusted, kindOwner: want.owner, kindGateway: want.gateway} {
				c, got, err := g.authorize(callerCtx(t, g, k), o)
				if c.kind != k {
					t.Fatalf("%v classified as %v", k, c.kind)
				}
				if r == none {
					if status.Code(err) != codes.PermissionDenied {
						t.Errorf("%s by %v = %v, %v; want PermissionDenied", o, k, got, err)
					}
					continue
				}
				if err != nil || got != r {
					t.Errorf("%s by %v = reach %v, %v; want reach %v", o, k, got, err, r)
				}
			}
		})
	}
}

// TestAccessRefusalsSayWhatToDo: a refused caller is told what it may do.
func TestAccessRefusalsSayWhatToDo(t *testing.T) {
	g := newGuard(Limits{}, nil, uint32(os.Getuid()),
		newRuntimes(peercred.ReadProc, time.Now, slog.New(slog.DiscardHandler), 0, os.Getpid()))
	for _, tt := range []struct {
		k    kind
		o    op
		want []string
	}{
		{kindAnonymous, opHistory, []string{"History", "only Decide and Await", "Unix socket"}},
		{kindAnonymous, opAnswer, []string{"Answer", "only Decide and Await"}},
		{kindUser, opSetPolicy, []string{"owner (uid", "admin gateway", `"mallory"`}},
		{kindUser, opSimulate, []string{"SimulatePolicy", `"mallory"`, "--trusted-gateways"}},
	} {
		_, _, err := g.authorize(callerCtx(t, g, tt.k), tt.o)
		for _, w := range tt.want {
			if !strings.Contains(status.Convert(err).Message(), w) {
				t.Errorf("%s by %v: %v; want it to say %q", tt.o, tt.k, err, w)
			}
		}
	}
}

func TestAttributed(t *testing.T) {
	for by, want := range map[string]bool{
		"ana":                true,  // the kernel named an OS user
		"gateway:token":      false, // an admin gateway names no person
		"gateway:tls:relay":  false,
		"tls:relay":          false, // a gateway's name from before the prefix
		"":                   false, // nobody named
		"svc-slack-approver": true,  // a trusted gateway vouches for the person
	} {
		if got := attributed(by); got != want {
			t.Errorf("attributed(%q) = %v; want %v", by, got, want)
		}
	}
}
