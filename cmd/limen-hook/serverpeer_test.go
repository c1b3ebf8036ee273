package main

import (
	"bufio"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/limenhq/limen/internal/hookfmt/hookout"
	"github.com/limenhq/limen/internal/serverpeer/serverpeertest"
)

// fakeAllow serves, on l, a limend look-alike that answers allow to
// everything, and counts the requests it was sent.
func fakeAllow(t *testing.T, l net.Listener) <-chan struct{} {
	t.Helper()
	body := hookout.Render(hookout.ClaudeCode, hookout.PreToolUse, hookout.Allow, "fake limend says yes")
	got := make(chan struct{}, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				req.Body.Close()
				got <- struct{}{}
				c.Write([]byte("HTTP/1.1 200 OK\r\nLimen-Verdict: allow\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + string(body)))
			}()
		}
	}()
	return got
}

// Another user's process on limen's socket path (bound first in a shared
// directory) answers allow to everything: limen-hook must not believe it,
// must not even send it the call, and must say whose socket it found.
func TestSocketOfAnotherUserIsNotBelieved(t *testing.T) {
	l, sock := serverpeertest.ListenAs(t, serverpeertest.OtherUID, "limend-http.sock")
	sent := fakeAllow(t, l)
	out, _ := claude(t, golden(t, "read.json"), "--socket", sock)
	if out.Specific.Decision != "ask" {
		t.Fatalf("with uid %d serving the socket: %s %q; want ask", serverpeertest.OtherUID, out.Specific.Decision, out.Specific.Reason)
	}
	for _, want := range []string{sock, "served by uid " + strconv.Itoa(serverpeertest.OtherUID), "not you (uid " + strconv.Itoa(os.Getuid())} {
		if !strings.Contains(out.Specific.Reason, want) {
			t.Errorf("reason %q does not say %q", out.Specific.Reason, want)
		}
	}
	select {
	case <-sent:
		t.Error("limen-hook sent the call to another user's server")
	default:
	}

	// Told that limend runs as that uid, it believes it (the fake is then
	// what answers): the check, not something else, refused it above.
	uid := strconv.Itoa(serverpeertest.OtherUID)
	for _, c := range []struct {
		args []string
		env  string
	}{
		{[]string{"--socket", sock, "--server-uid", uid}, ""},
		{[]string{"--socket", sock, "--server-uid=" + uid}, ""},
		{[]string{"--socket", sock}, uid},
	} {
		t.Setenv("LIMEN_SERVER_UID", c.env)
		if out, _ := claude(t, golden(t, "read.json"), c.args...); out.Specific.Decision != "allow" {
			t.Errorf("%v, LIMEN_SERVER_UID=%q: %s %q; want the fake's allow", c.args, c.env, out.Specific.Decision, out.Specific.Reason)
		}
	}
}

// A real limend run as another user: not believed unless configured, and
// a configuration that is not a uid is said to be one.
func TestExpectedServerUID(t *testing.T) {
	var l limend
	serverpeertest.AsUser(t, serverpeertest.OtherUID, func() { l = start(t) })
	uid := strconv.Itoa(serverpeertest.OtherUID)
	found := "served by uid " + uid
	cases := []struct {
		name string
		args []string
		env  string
		want string // in an ask's reason; empty: limend's own decision
	}{
		{"nothing configured", nil, "", found},
		{"flag", []string{"--server-uid", uid}, "", ""},
		{"env", nil, uid, ""},
		{"flag wins over env", []string{"--server-uid", uid + "1"}, uid, "nor uid " + uid + "1"},
		{"bad flag", []string{"--server-uid", "bob"}, "", `--server-uid="bob" is not a uid`},
		{"bad env", nil, "-1", `LIMEN_SERVER_UID="-1" is not a uid`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("LIMEN_SERVER_UID", c.env)
			out, _ := claude(t, golden(t, "read.json"), append([]string{"--socket", l.http}, c.args...)...)
			if c.want == "" {
				if strings.Contains(out.Specific.Reason, "could not decide") || strings.Contains(out.Specific.Reason, "misconfigured") {
					t.Errorf("%s %q; want limend's own decision", out.Specific.Decision, out.Specific.Reason)
				}
				return
			}
			if out.Specific.Decision != "ask" || !strings.Contains(out.Specific.Reason, c.want) {
				t.Errorf("%s %q; want ask saying %q", out.Specific.Decision, out.Specific.Reason, c.want)
			}
		})
	}
}
