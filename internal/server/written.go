package server

import (
	"container/list"
	"os"
	"path"
	"path/filepath"
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
	// lost are the directories of paths the bound forgot: a run below
	// one is asked, since what was written there is no longer known (the
	// twelfth red-team pass wrote 3,600 files to push its module out).
	// Past maxLostDirs, lostAll: every run is asked until a person
	// approves one.
	lost    map[string]bool
	lostAll bool
}

// maxLostDirs bounds userWrites.lost.
const maxLostDirs = 1024

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
		for _, path := range withResolved(action.WrittenBy(p)) {
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
				p := old.Value.(string)
				delete(u.at, p)
				if u.lost == nil {
					u.lost = make(map[string]bool)
				}
				if len(u.lost) >= maxLostDirs {
					u.lostAll = true
				} else {
					u.lost[dirOf(p)] = true
				}
			}
		}
	}
}

// wrote returns the check for one decision of user: whether a file the
// Runs entry run names (action.RunsMatch) was written before, or by the
// decided action itself (pending, so that a dry run, which records
// nothing, sees it too).
func (w *written) wrote(user string, pending []action.Part) func(string) bool {
	// Runs entries are matched as spelled, with no file system access on
	// the decision's path: the written paths carry their resolved
	// spelling (record), and a runner's entries cover the working
	// directory's tree, so a link inside the project is covered either
	// way; a link to outside it is a risk mark of its own (ln -s).
	var writes []string // what the decided action itself writes, once asked
	listed := false
	return func(run string) bool {
		if !listed {
			listed = true
			for _, p := range pending {
				writes = append(writes, action.WrittenBy(p)...)
			}
			if len(writes) > 0 {
				writes = withResolved(writes)
			}
		}
		return w.wroteAt(user, run, writes)
	}
}

// wroteAt is wrote's check of run against what user's agents wrote and
// what the decided action writes (pending).
func (w *written) wroteAt(user, run string, pending []string) bool {
	for _, q := range pending {
		if action.RunsMatch(run, q) {
			return true
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
	if u.lostAll {
		return true
	}
	for d := range u.lost {
		if overlaps(dirOf(run), d) {
			return true
		}
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
			u.lostAll = false // a person allowed a run knowing nothing more
			for d := range u.lost {
				if overlaps(dirOf(run), d) {
					delete(u.lost, d)
				}
			}
			for path, e := range u.at {
				if action.RunsMatch(run, path) {
					u.order.Remove(e)
					delete(u.at, path)
				}
			}
		}
	}
}

// withResolved returns paths, each followed by its spelling with the
// symbolic links of its directory resolved where that differs: a file
// written as proj/scripts/h7.py and run as proj/link/scripts/h7.py
// (link → proj) is one file (the eleventh red-team pass).
func withResolved(paths []string) []string {
	out := paths[:len(paths):len(paths)] // appending copies
	for _, p := range paths {
		if r := resolved(p); r != p {
			out = append(out, r)
		}
	}
	return out
}

// resolved returns a written path or a Runs entry (action.RunsMatch)
// with the symbolic links of its directory part resolved: of the
// longest part that exists, as what is below it may not exist yet.
func resolved(p string) string { return resolvedIn(nil, p) }

// resolvedIn is resolved with the directories resolved so far (nil: none
// kept).
func resolvedIn(dirs map[string]string, p string) string {
	if !strings.HasPrefix(p, "/") {
		return p
	}
	dir, rest := path.Dir(p), "/"+path.Base(p)
	switch i := strings.Index(p, "/**/"); {
	case i >= 0:
		dir, rest = p[:i], p[i:]
	case strings.HasSuffix(p, "/"):
		dir, rest = strings.TrimSuffix(p, "/"), "/"
	default:
		// A file that is itself a link: src/mk.js → ../Makefile is
		// the Makefile make runs.
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
	}
	if r, ok := dirs[dir]; ok {
		return r + rest
	}
	r := dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		r = real
	} else if d := existingPrefix(dir); d != "" {
		// Below what exists nothing is a link yet.
		if real, err := filepath.EvalSymlinks(d); err == nil {
			r = strings.TrimSuffix(real, "/") + strings.TrimPrefix(dir, d)
		}
	}
	if dirs != nil {
		dirs[dir] = r
	}
	return r + rest
}

// existingPrefix returns the longest ancestor of the absolute dir that
// exists ("" for none but "/"), one Lstat per level from the top.
func existingPrefix(dir string) string {
	at := ""
	for _, c := range strings.Split(strings.Trim(dir, "/"), "/") {
		next := at + "/" + c
		if _, err := os.Lstat(next); err != nil {
			break
		}
		at = next
	}
	return at
}

// dirOf is the directory a written path or a Runs entry is about:
// "dir/**/name" and "dir/" are dir, a file its directory.
func dirOf(p string) string {
	if i := strings.Index(p, "/**/"); i >= 0 {
		return p[:i]
	}
	if strings.HasSuffix(p, "/") {
		return strings.TrimSuffix(p, "/")
	}
	return path.Dir(p)
}

// overlaps reports whether one directory holds the other (or they are the
// same).
func overlaps(a, b string) bool {
	return a == b || strings.HasPrefix(a, strings.TrimSuffix(b, "/")+"/") || strings.HasPrefix(b, strings.TrimSuffix(a, "/")+"/")
}
