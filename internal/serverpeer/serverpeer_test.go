package serverpeer

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestExpected(t *testing.T) {
	for _, c := range []struct {
		flag, env string
		want      uint32
		set       bool
		err       string // in the error; empty: none
	}{
		{"", "", 0, false, ""},
		{"", "1001", 1001, true, ""},
		{"", " 1001 ", 1001, true, ""},
		{"0", "1001", 0, true, ""},
		{"", "bob", 0, false, `LIMEN_SERVER_UID="bob" is not a uid`},
		{"-1", "", 0, false, `--server-uid="-1" is not a uid`},
		{"4294967296", "", 0, false, "is not a uid"},
		{"", "1e3", 0, false, "is not a uid"},
	} {
		t.Run(c.flag+"/"+c.env, func(t *testing.T) {
			t.Setenv(EnvServerUID, c.env)
			got, set, err := Expected(c.flag)
			switch {
			case c.err == "" && (err != nil || got != c.want || set != c.set):
				t.Errorf("Expected(%q) with %s=%q = %d, %v, %v; want %d, %v", c.flag, EnvServerUID, c.env, got, set, err, c.want, c.set)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("Expected(%q) with %s=%q = %d, %v; want an error saying %q", c.flag, EnvServerUID, c.env, got, err, c.err)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	own := uint32(os.Getuid())
	other := own + 4242
	ownText := "not you (uid " + strconv.Itoa(int(own)) + ")"
	for _, c := range []struct {
		name      string
		got       uint32
		flag, env string
		want      []string // in the error; none: trusted
	}{
		{"own uid", own, "", "", nil},
		{"own uid, whatever is configured", own, strconv.Itoa(int(other + 1)), "", nil},
		{"another uid", other, "", "", []string{"/s.sock", "served by uid " + strconv.Itoa(int(other)), ownText + ":", "LIMEN_SERVER_UID=" + strconv.Itoa(int(other))}},
		{"the uid of the flag", other, strconv.Itoa(int(other)), "", nil},
		{"the uid of the environment", other, "", strconv.Itoa(int(other)), nil},
		{"the flag wins over the environment", other, strconv.Itoa(int(other + 1)), strconv.Itoa(int(other)), []string{ownText + " nor uid " + strconv.Itoa(int(other+1)), "as LIMEN_SERVER_UID or --server-uid says"}},
		{"a bad environment, seen on a mismatch", other, "", "bob", []string{`LIMEN_SERVER_UID="bob" is not a uid`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(EnvServerUID, c.env)
			err := Check("/s.sock", c.got, c.flag)
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("Check = %v; want trusted", err)
				}
				return
			}
			for _, w := range c.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("Check = %v; want it to say %q", err, w)
				}
			}
		})
	}
	var mm *MismatchError
	if err := CheckUID("/s", other, 0, false); !errors.As(err, &mm) || mm.Got != other {
		t.Errorf("CheckUID = %v; want a MismatchError with the uid found", err)
	}
}
