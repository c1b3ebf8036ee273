package serverpeer

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestExpected(t *testing.T) {
	own := uint32(os.Getuid())
	for _, c := range []struct {
		flag, env string
		want      uint32
		err       string // in the error; empty: none
	}{
		{"", "", own, ""},
		{"", "1001", 1001, ""},
		{"", " 1001 ", 1001, ""},
		{"0", "1001", 0, ""},
		{"", "bob", 0, `LIMEN_SERVER_UID="bob" is not a uid`},
		{"-1", "", 0, `--server-uid="-1" is not a uid`},
		{"4294967296", "", 0, "is not a uid"},
		{"", "1e3", 0, "is not a uid"},
	} {
		t.Run(c.flag+"/"+c.env, func(t *testing.T) {
			t.Setenv(EnvServerUID, c.env)
			got, err := Expected(c.flag)
			switch {
			case c.err == "" && (err != nil || got != c.want):
				t.Errorf("Expected(%q) with %s=%q = %d, %v; want %d", c.flag, EnvServerUID, c.env, got, err, c.want)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("Expected(%q) with %s=%q = %d, %v; want an error saying %q", c.flag, EnvServerUID, c.env, got, err, c.err)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	own := uint32(os.Getuid())
	if err := Check("/s", own, own); err != nil {
		t.Errorf("Check of the expected uid = %v", err)
	}
	err := Check("/run/x.sock", 4242, own)
	for _, w := range []string{"/run/x.sock", "served by uid 4242", "not you (uid " + strconv.Itoa(int(own)) + ")", "LIMEN_SERVER_UID=4242"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Check(4242, own) = %v; want it to say %q", err, w)
		}
	}
	err = Check("/s", own, own+1)
	if err == nil || !strings.Contains(err.Error(), "not uid "+strconv.Itoa(int(own+1))) || !strings.Contains(err.Error(), "as LIMEN_SERVER_UID or --server-uid says") {
		t.Errorf("Check against a configured uid = %v; want it to name the configured uid and where it came from", err)
	}
	if own == 0 {
		if err := Check("/s", 0, 1); err == nil || !strings.Contains(err.Error(), "uid 0 (root)") {
			t.Errorf("Check = %v; want the found uid's name from /etc/passwd", err)
		}
	}
}
