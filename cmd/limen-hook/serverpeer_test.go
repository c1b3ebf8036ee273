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
	for _, args := range [][]string{
		{"--socket", sock, "--server-uid", strconv.Itoa(serverpeertest.OtherUID)},
		{"--socket", sock, "--server-uid=" + strconv.Itoa(serverpeertest.OtherUID)},
	} {
		if out, _ := claude(t, golden(t, "read.json"), args...); out.Specific.Decision != "allow" {
			t.Errorf("%v: %s %q; want the fake's allow", args, out.Specific.Decision, out.Specific.Reason)
		}
	}
}

// The real limend, when limen-hook expects another uid: ask, naming who
// serves the socket. Runs as any user.
func TestExpectedServerUID(t *testing.T) {
	l := start(t)
	l.rules(t, []string{"Read"}, nil)
	other := strconv.Itoa(os.Getuid() + 1)
	cases := []struct {
		name string
		args []string
		env  string
		want string // in the reason
	}{
		{"flag", []string{"--server-uid", other}, "", "served by uid " + strconv.Itoa(os.Getuid())},
		{"env", nil, other, "as LIMEN_SERVER_UID or --server-uid says"},
		{"flag wins over env", []string{"--server-uid", other}, strconv.Itoa(os.Getuid()), "not uid " + other},
		{"bad flag", []string{"--server-uid", "bob"}, "", `--server-uid="bob" is not a uid`},
		{"bad env", nil, "-1", `LIMEN_SERVER_UID="-1" is not a uid`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("LIMEN_SERVER_UID", c.env)
			out, _ := claude(t, golden(t, "read.json"), append([]string{"--socket", l.http}, c.args...)...)
			if out.Specific.Decision != "ask" || !strings.Contains(out.Specific.Reason, c.want) {
				t.Errorf("%s %q; want ask saying %q", out.Specific.Decision, out.Specific.Reason, c.want)
			}
		})
	}
	t.Setenv("LIMEN_SERVER_UID", strconv.Itoa(os.Getuid()))
	if out, _ := claude(t, golden(t, "read.json"), "--socket", l.http); out.Specific.Decision != "allow" {
		t.Errorf("LIMEN_SERVER_UID set to limend's own uid: %s %q; want allow", out.Specific.Decision, out.Specific.Reason)
	}
}
