package main

import (
	"strings"
	"testing"
)

// TestUnknownIDsExit4: an id that names no ask or policy version exits 4,
// the README's code for an unknown id, whether limend or limenctl finds it
// missing; an argument that is no id at all is a usage error (2).
func TestUnknownIDsExit4(t *testing.T) {
	run, _ := polDaemon(t)
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"answer", "999", "--approve"}, exitRefused, "ask 999: not found: check the id with `limenctl pending`"},
		{[]string{"answer", "0", "--deny"}, exitRefused, "ask 0: not found"},
		{[]string{"await", "999", "--timeout", "1s"}, exitRefused, "ask 999: not found"},
		{[]string{"answer", "99999999999999999999999", "--approve"}, exitRefused, "ask 99999999999999999999999: not found"},
		{[]string{"policy", "rollback", "99"}, exitRefused, "there is no policy version 99: the versions are 1 to 1"},
		{[]string{"policy", "diff", "99", "1"}, exitRefused, "there is no policy version 99"},
		{[]string{"policy", "diff", "1", "v42"}, exitRefused, "there is no policy version 42"},
		// limend says "decision 99999: decision 99999: not found": once, with the hint.
		{[]string{"history", "show", "99999"}, exitRefused, "limenctl: refused: decision 99999: not found: check the id with `limenctl history` (its ID column)\n"},
		{[]string{"policy", "explain", "--decision", "99999"}, exitRefused, "limenctl: refused: decision 99999: not found: check the id with `limenctl history`"},
		{[]string{"answer", "abc", "--approve"}, exitUsage, `"abc" is not an ask id`},
		{[]string{"policy", "diff", "x"}, exitUsage, `"x" is not a policy version`},
		{[]string{"history", "--before", "abc"}, exitUsage, `--before "abc" is not a decision id`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, errOut, code := run(tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, %q; want %d and %q", code, errOut, tt.code, tt.want)
			}
		})
	}
}
