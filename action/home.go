package action

import "strings"

// UserHome returns the home directory `~` stands for when a hard rule is
// matched against an action of user: the home lookup reports for that user
// (limen asks the OS account database, see internal/convert), else
// /home/<user>; "" for no user or a name that is no plain user name (one
// holding '/' or NUL, "." or ".."), so that such a name never makes `~`
// point elsewhere. The lookup is passed in because this package reads
// nothing but its arguments.
//
// It differs from [HomeDir] on purpose. HomeDir is what action keys assume,
// and keys must come out the same on every machine and in every replay,
// so it infers the home from the action alone (from the working directory).
// A rule's `~` must be the user's real home, whatever directory the agent
// runs in: Edit(~/.ssh/**) covers /var/lib/svc/.ssh for a user whose home
// that is, also when the agent works in /srv/app.
func UserHome(user string, lookup func(user string) (home string, ok bool)) string {
	if !plainUserName(user) {
		return ""
	}
	if lookup != nil {
		if h, ok := lookup(user); ok && h != "" {
			return h
		}
	}
	return "/home/" + user
}

// plainUserName reports whether name can be a path element under /home.
func plainUserName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "/\x00") && name != "." && name != ".."
}
