package convert

import (
	"os/user"
	"testing"

	"github.com/limenhq/limen/action"
)

func TestEnvHomeFromAccount(t *testing.T) {
	me, err := user.Current()
	if err != nil || me.HomeDir == "" {
		t.Skipf("no home directory for the current user: %v", err)
	}
	a := action.Action{User: me.Username, Cwd: "/Users/someone-else/code"}
	if got := Env(a); got.Home != me.HomeDir || got.Cwd != a.Cwd {
		t.Errorf("Env(%+v) = %+v; want the account's home %q", a, got, me.HomeDir)
	}
	if got := Home("no-such-user-limen-test"); got != "/home/no-such-user-limen-test" {
		t.Errorf("Home(unknown user) = %q, want /home/<name>", got)
	}
	if got := Home(""); got != "" {
		t.Errorf("Home(\"\") = %q; want \"\" (`~` matches nothing without a user)", got)
	}
}
