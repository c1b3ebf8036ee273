package server

import (
	"container/list"
	"strings"
	"sync"

	"github.com/limenhq/limen/action"
)

// What agents wrote. Each Decide records the files its parts write
// (action.WrittenBy), per user, before it is decided; a part that runs
// one of them is asked (engine.Input.Wrote) until a person approves an
// action that runs it, which clears it: they have then allowed running
// it as it is. The record is in memory, bounded, and lost on restart
// (after which limen asks about nothing it did not see written: what it
// guards against is an agent writing and running within a session).
// A team's replicas each keep their own (docs/scale-out.md).
type written struct {
	mu    sync.Mutex
	max   int // paths per user, oldest forgotten first
	users map[string]*userWrites
}

type userWrites struct {
	order *list.List               // of paths, newest at the front
	at    map[string]*list.Element // path → its element
}

// maxWrittenPerUser bounds the paths remembered for one user: an agent
// that writes more than this many files before running the first loses
// the first to the bound (written files run later are still seen when
// they are among the newest).
const maxWrittenPerUser = 4096

// maxWrittenUsers bounds the users remembered.
const maxWrittenUsers = 1024

func newWritten() *written {
	return &written{max: maxWrittenPerUser, users: make(map[string]*userWrites)}
}

// record notes the files parts write, for user.
func (w *written) record(user string, parts []action.Part) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range parts {
		for _, path := range action.WrittenBy(p) {
			u := w.users[user]
			if u == nil {
				if len(w.users) >= maxWrittenUsers {
					for k := range w.users { // forget one user (any)
						delete(w.users, k)
						break
					}
				}
				u = &userWrites{order: list.New(), at: make(map[string]*list.Element)}
				w.users[user] = u
			}
			if e, ok := u.at[path]; ok {
				u.order.MoveToFront(e)
				continue
			}
			u.at[path] = u.order.PushFront(path)
			if u.order.Len() > w.max {
				old := u.order.Back()
				u.order.Remove(old)
				delete(u.at, old.Value.(string))
			}
		}
	}
}

// wrote returns the check for one decision of user: whether a file the
// Runs entry run names (action.RunsMatch) was written before, or by the
// decided action itself (pending, so that a dry run, which records
// nothing, sees it too).
func (w *written) wrote(user string, pending []action.Part) func(string) bool {
	return func(run string) bool {
		for _, p := range pending {
			for _, q := range action.WrittenBy(p) {
				if action.RunsMatch(run, q) {
					return true
				}
			}
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		u := w.users[user]
		if u == nil {
			return false
		}
		if _, ok := u.at[run]; ok {
			return true
		}
		if !strings.HasSuffix(run, "/") && !strings.Contains(run, "/**/") {
			return false
		}
		for path := range u.at {
			if action.RunsMatch(run, path) {
				return true
			}
		}
		return false
	}
}

// approved forgets the files a person has allowed running (the parts of
// an approved ask), for user.
func (w *written) approved(user string, parts []action.Part) {
	w.mu.Lock()
	defer w.mu.Unlock()
	u := w.users[user]
	if u == nil {
		return
	}
	for _, p := range parts {
		for _, run := range p.Runs {
			for path, e := range u.at {
				if action.RunsMatch(run, path) {
					u.order.Remove(e)
					delete(u.at, path)
				}
			}
		}
	}
}
