// Package written keeps what agents wrote that no person has allowed
// running since. Each decision adds the files its parts write
// (action.WrittenBy); a part that runs one of them is asked
// (engine.Input.Wrote) until a person approves an action that runs it,
// which forgets it: they have then allowed running it as it is.
//
// The record is in memory and bounded. A file pushed out by the bound, and
// a tree written with files limen cannot name (an archive extracted, a
// patch applied: action.RunsMatch's "dir/"), leaves its directory
// "lost": a run there is asked until a person allows one that runs the
// whole of it. Past a bound on lost directories, every run is asked.
//
// limend and limenctl eval both keep one, so that a replay asks where the
// daemon would. Paths are matched as spelled: limend adds the spelling
// with links resolved before it adds a path (internal/server).
package written

import (
	"container/list"
	"path"
	"strings"
	"sync"

	"github.com/limenhq/limen/action"
)

// Record is what each user's agents wrote. It is safe for concurrent use.
type Record struct {
	mu    sync.Mutex
	max   int // paths per user, oldest forgotten first
	users map[string]*user
}

type user struct {
	order *list.List               // of paths, newest at the front
	at    map[string]*list.Element // path → its element
	// lost are the directories with files written that the record does
	// not hold (the twelfth red-team pass wrote 3,600 files to push its
	// module out), each with the Runs entries a person allowed since
	// that run only part of it (git's hooks after an archive was
	// extracted): those are not asked again.
	lost    map[string]map[string]bool
	lostAll bool
}

// MaxPerUser bounds the paths remembered for one user: an agent that
// writes more than this many files before running the first loses the
// first to the bound, and their directories are lost.
const MaxPerUser = 4096

// maxLostDirs bounds a user's lost directories; past it, every run is
// asked until a person approves one.
const maxLostDirs = 1024

// maxAllowedPerLost bounds the partial runs allowed in one lost
// directory; past it, they are asked again.
const maxAllowedPerLost = 64

// maxUsers bounds the users remembered.
const maxUsers = 1024

// New returns an empty record that keeps up to maxPerUser paths per user.
func New(maxPerUser int) *Record {
	return &Record{max: maxPerUser, users: make(map[string]*user)}
}

// Add notes that user's agent wrote paths (a path ending in "/" is a tree
// of files it cannot name).
func (r *Record) Add(user string, paths []string) {
	if len(paths) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.of(user)
	for _, p := range paths {
		if tree, ok := strings.CutSuffix(p, "/"); ok {
			u.lose(tree)
			continue
		}
		if e, ok := u.at[p]; ok {
			u.order.MoveToFront(e)
			continue
		}
		u.at[p] = u.order.PushFront(p)
		if u.order.Len() > r.max {
			old := u.order.Back()
			u.order.Remove(old)
			gone := old.Value.(string)
			delete(u.at, gone)
			u.lose(path.Dir(gone))
		}
	}
}

func (r *Record) of(name string) *user {
	u := r.users[name]
	if u == nil {
		if len(r.users) >= maxUsers {
			for k := range r.users { // forget one user (any)
				delete(r.users, k)
				break
			}
		}
		u = &user{order: list.New(), at: make(map[string]*list.Element)}
		r.users[name] = u
	}
	return u
}

// lose notes that files below dir were written that the record does not
// hold.
func (u *user) lose(dir string) {
	if u.lost == nil {
		u.lost = make(map[string]map[string]bool)
	}
	if _, ok := u.lost[dir]; ok {
		u.lost[dir] = nil // written again: what was allowed there is not
		return
	}
	if len(u.lost) >= maxLostDirs {
		u.lostAll = true
		return
	}
	u.lost[dir] = nil
}

// Wrote reports whether a file that the Runs entry run names
// (action.RunsMatch) was written by user's agents, or is among pending
// (what the decided action itself writes).
func (r *Record) Wrote(user, run string, pending []string) bool {
	for _, q := range pending {
		if action.RunsMatch(run, q) {
			return true
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.users[user]
	if u == nil {
		return false
	}
	if _, ok := u.at[run]; ok {
		return true
	}
	if u.lostAll {
		return true
	}
	for d, allowed := range u.lost {
		if !allowed[run] && action.RunsMatch(run, d+"/") {
			return true
		}
	}
	if !strings.HasSuffix(run, "/") && !strings.Contains(run, "/**/") {
		return false
	}
	for p := range u.at {
		if action.RunsMatch(run, p) {
			return true
		}
	}
	return false
}

// Allowed forgets what a person allowed running: the files runs name,
// the lost directories a run covers whole, and, for those it runs only
// part of, that part.
func (r *Record) Allowed(user string, runs []string) {
	if len(runs) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.users[user]
	if u == nil {
		return
	}
	u.lostAll = false // a person allowed a run knowing nothing more
	for _, run := range runs {
		for d, allowed := range u.lost {
			switch {
			case action.Covers(run, d):
				delete(u.lost, d)
			case action.RunsMatch(run, d+"/"):
				if allowed == nil {
					allowed = make(map[string]bool)
					u.lost[d] = allowed
				}
				if len(allowed) < maxAllowedPerLost {
					allowed[run] = true
				}
			}
		}
		for p, e := range u.at {
			if action.RunsMatch(run, p) {
				u.order.Remove(e)
				delete(u.at, p)
			}
		}
	}
}
