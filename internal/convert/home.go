package convert

import (
	"os/user"
	"sync"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/policy"
)

// Env is what an action's path patterns are matched against: its working
// directory, and its user's home for `~`. limend deciding, the TUI
// previewing a rule and limenctl policy explain all take it from here, so
// they agree on what Edit(~/.ssh/**) covers.
func Env(a action.Action) policy.Env {
	return policy.Env{Cwd: a.Cwd, Home: Home(a.User)}
}

// Home is the home directory `~` stands for in the rules applied to an
// action of user (see [action.UserHome]), looked up in the OS account
// database. The lookup lives here, in one internal package every caller
// uses, rather than in action/, which reads nothing but its arguments; the
// TUI and limenctl run on limend's machine, so they see the same accounts.
func Home(name string) string {
	return action.UserHome(name, lookupHome)
}

var homes sync.Map // user name → home directory, "" when there is no account

// lookupHome asks the account database once per user name: limend asks for
// the home of every decision, and a lookup may read /etc/passwd or ask
// NSS.
func lookupHome(name string) (string, bool) {
	if h, ok := homes.Load(name); ok {
		return h.(string), h.(string) != ""
	}
	home := ""
	if u, err := user.Lookup(name); err == nil {
		home = u.HomeDir
	}
	homes.Store(name, home)
	return home, home != ""
}
