package main

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	storev1 "github.com/limenhq/limen/store/storev1"
)

func TestPairAndDevices(t *testing.T) {
	l := limentest.Start(t, func(c *daemon.Config) { c.Web.Addr = "127.0.0.1:0" })
	sock := "--socket=" + l.Config.Socket

	code, out := limenctl(t, sock, "pair", "--name", "tablet")
	if code != 0 {
		t.Fatalf("pair = %d: %s", code, out)
	}
	for _, want := range []string{l.Web().URL() + "/pair?code=", l.Web().CertFingerprint(), "works once", "█"} {
		if !strings.Contains(out, want) {
			t.Errorf("pair printed no %q:\n%s", want, out)
		}
	}
	if code, out := limenctl(t, sock, "devices"); code != 0 || !strings.Contains(out, "no paired devices") {
		t.Errorf("devices before any pairing = %d %s", code, out)
	}
	at := timestamppb.New(time.Now().Add(-time.Hour))
	if err := l.Backend().PutDevice(&storev1.Device{Id: "a1b2c3", User: "ana", Name: "phone", Created: at, LastUsed: at}); err != nil {
		t.Fatal(err)
	}
	if code, out := limenctl(t, sock, "devices"); code != 0 || !strings.Contains(out, "a1b2c3") || !strings.Contains(out, "phone") || !strings.Contains(out, "1h ago") {
		t.Errorf("devices = %d %s; want the phone paired 1h ago", code, out)
	}
	if code, out := limenctl(t, sock, "devices", "revoke", "a1b2c3"); code != 0 || !strings.Contains(out, "revoked") {
		t.Errorf("devices revoke = %d %s", code, out)
	}
	if code, out := limenctl(t, sock, "devices", "revoke", "a1b2c3"); code == 0 {
		t.Errorf("revoking twice = %d %s; want a failure", code, out)
	}
}

func TestPairNeedsTheWebApp(t *testing.T) {
	l := limentest.Start(t)
	code, out := limenctl(t, "--socket="+l.Config.Socket, "pair")
	if code == 0 || !strings.Contains(out, "--web-addr") {
		t.Errorf("pair without the web app = %d %s; want a failure naming --web-addr", code, out)
	}
}

func TestHistoryNamesTheWebChannel(t *testing.T) {
	for _, tt := range []struct {
		o    *limenv1.AskOutcome
		want string
	}{
		{nil, ""},
		{&limenv1.AskOutcome{Channel: "socket"}, ""},
		{&limenv1.AskOutcome{Channel: "web", DeviceId: "a1b2"}, " (web a1b2)"},
		{&limenv1.AskOutcome{Channel: "push"}, " (push)"},
	} {
		if got := via(&limenv1.Decision{Outcome: tt.o}); got != tt.want {
			t.Errorf("via(%v) = %q; want %q", tt.o, got, tt.want)
		}
	}
}
