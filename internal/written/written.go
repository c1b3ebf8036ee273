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
// Git can put back a file a person allowed running as it was when the
// agent wrote it: written, stashed while the person approved the build,
// popped after (the fifteenth red-team pass). So the record keeps what it
// cleared with the file's content signature at that moment (Sum), and a
// git restore below makes those files suspects: a run of one whose
// content is no longer what the person allowed is asked. Where git's
// objects hold content limen never saw written (Import), a restore is a
// tree written.
//
// limend and limenctl eval both keep one, so that a replay asks where the
// daemon would. Paths are matched as spelled: limend adds the spelling
// with links resolved before it adds a path (internal/server). eval has
// no files: its record has no Sum, and takes what git restores to be what
// was allowed.
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
	sum   Sum
}

// Sum returns a signature of a file's content as it is now ("" when there
// is none to read), or nil for a record kept without files.
type Sum func(path string) string

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
	// cleared are the files written that a person has since allowed
	// running, newest at the front, each with its signature then
	// (clearing): git can put them back as the agent wrote them
	// (Restore). suspect are those a restore may have changed since.
	cleared   *list.List
	clearedAt map[string]*list.Element
	suspect   map[string]string
	// foreign are the work trees whose git objects hold content limen
	// did not see written (Import): a restore there is a tree written.
	foreign map[string]bool
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

// clearing is a cleared file and its signature when a person allowed it.
type clearing struct{ path, sig string }

// New returns an empty record that keeps up to maxPerUser paths per user,
// with files' signatures from sum (nil: none).
func New(maxPerUser int, sum Sum) *Record {
	return &Record{max: maxPerUser, users: make(map[string]*user), sum: sum}
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
		u.push(p, r.max)
	}
}

// push notes p as written, newest; the bound forgets the oldest, whose
// directory is then lost.
func (u *user) push(p string, max int) {
	if e, ok := u.at[p]; ok {
		u.order.MoveToFront(e)
		return
	}
	u.at[p] = u.order.PushFront(p)
	if u.order.Len() > max {
		old := u.order.Back()
		u.order.Remove(old)
		gone := old.Value.(string)
		delete(u.at, gone)
		u.lose(path.Dir(gone))
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
		u = &user{order: list.New(), at: make(map[string]*list.Element), cleared: list.New(), clearedAt: make(map[string]*list.Element),
			suspect: make(map[string]string)}
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

// Note records what parts of one decided action do, in order: the files
// they write, the git objects they import and the files git restores.
// resolve, if set, adds other spellings of written paths (links
// resolved).
func (r *Record) Note(user string, parts []action.Part, resolve func([]string) []string) {
	for _, p := range parts {
		if ws := action.WrittenBy(p); len(ws) > 0 {
			if resolve != nil {
				ws = resolve(ws)
			}
			r.Add(user, ws)
		}
		r.Import(user, p.Imports)
		r.Restore(user, p.Restores)
	}
}

// Pending is what the parts before one part of an action do, not yet
// recorded when it is decided (tar xf notes.tgz && make).
type Pending struct {
	Writes   []string // files and trees written
	Restores []string // work trees git puts files back in
}

// Before returns, for each of parts, what the parts before it in the same
// action do, to be given to Wrote. A part's own writes do not count
// against its own runs (git apply runs git's hooks, and writes the tree
// they are in).
func Before(parts []action.Part, resolve func([]string) []string) []Pending {
	out := make([]Pending, len(parts))
	var seen Pending
	for i, p := range parts {
		out[i] = seen
		ws := action.WrittenBy(p)
		if len(ws) > 0 && resolve != nil {
			ws = resolve(ws)
		}
		if len(ws) > 0 {
			seen.Writes = append(seen.Writes[:len(seen.Writes):len(seen.Writes)], ws...)
		}
		if len(p.Restores) > 0 {
			seen.Restores = append(seen.Restores[:len(seen.Restores):len(seen.Restores)], p.Restores...)
		}
	}
	return out
}

// Wrote reports whether a file that the Runs entry run names
// (action.RunsMatch) was written by user's agents, or by the parts before
// it in the decided action (pending). A suspect's content is read (Sum)
// only when a run names it.
func (r *Record) Wrote(user, run string, pending Pending) bool {
	for _, q := range pending.Writes {
		if action.RunsMatch(run, q) {
			return true
		}
	}
	suspects, wrote := r.wroteLocked(user, run, pending)
	if wrote || len(suspects) == 0 {
		return wrote
	}
	// Read outside the lock: other decisions need the record meanwhile.
	for _, c := range suspects {
		// What cannot be read now, or could not be when it was allowed
		// (a team's replica does not see the laptop's files), is not
		// known to be what was allowed.
		if now := r.sum(c.path); now == "" || now != c.sig {
			r.mu.Lock()
			if u := r.users[user]; u != nil {
				if _, still := u.suspect[c.path]; still {
					delete(u.suspect, c.path)
					u.push(c.path, r.max) // git put back what the agent wrote
				}
			}
			r.mu.Unlock()
			return true
		}
	}
	return false
}

// wroteLocked is Wrote's look at the record: whether run runs a file
// written, or else the suspects it runs, to be read.
func (r *Record) wroteLocked(user, run string, pending Pending) ([]clearing, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.users[user]
	if u == nil {
		return nil, false
	}
	if _, ok := u.at[run]; ok {
		return nil, true
	}
	for _, dir := range pending.Restores {
		// Not yet run: what it puts back is not there to compare.
		dir = strings.TrimSuffix(dir, "/")
		for f := range u.foreign {
			if overlaps(f, dir) && action.RunsMatch(run, dir+"/") {
				return nil, true
			}
		}
		for p := range u.clearedAt {
			if (dir == "" || strings.HasPrefix(p, dir+"/")) && action.RunsMatch(run, p) {
				return nil, true
			}
		}
	}
	if u.lostAll {
		return nil, true
	}
	for d, allowed := range u.lost {
		if !allowed[run] && action.RunsMatch(run, d+"/") {
			return nil, true
		}
	}
	exact := !strings.HasSuffix(run, "/") && !strings.Contains(run, "/**/")
	if !exact {
		for p := range u.at {
			if action.RunsMatch(run, p) {
				return nil, true
			}
		}
	}
	var suspects []clearing
	if r.sum != nil {
		for p, sig := range u.suspect {
			if action.RunsMatch(run, p) {
				suspects = append(suspects, clearing{p, sig})
			}
		}
	}
	return suspects, false
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
				u.clear(p, r.sign(p), r.max)
			}
		}
		for p := range u.suspect {
			if action.RunsMatch(run, p) {
				delete(u.suspect, p)
				u.clear(p, r.sign(p), r.max)
			}
		}
	}
}

func (r *Record) sign(p string) string {
	if r.sum == nil {
		return ""
	}
	return r.sum(p)
}

// clear keeps p among the files written that a person allowed running,
// with its signature then.
func (u *user) clear(p, sig string, max int) {
	if e, ok := u.clearedAt[p]; ok {
		u.cleared.Remove(e)
	}
	u.clearedAt[p] = u.cleared.PushFront(clearing{p, sig})
	if u.cleared.Len() > max {
		old := u.cleared.Back()
		u.cleared.Remove(old)
		delete(u.clearedAt, old.Value.(clearing).path)
	}
}

// Restore notes that git put back files below each of dirs as they were
// committed or stashed: the files user's agents wrote there and a person
// allowed are suspects, asked about if their content is not what was
// allowed; where git's objects hold content limen did not see written
// (Import), the whole tree is written.
func (r *Record) Restore(user string, dirs []string) {
	if len(dirs) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.of(user)
	for _, dir := range dirs {
		dir = strings.TrimSuffix(dir, "/")
		for f := range u.foreign {
			if overlaps(f, dir) {
				u.lose(dir)
				break
			}
		}
		if r.sum == nil {
			continue // no files to compare: what was allowed is back
		}
		for p, e := range u.clearedAt {
			if dir == "" || strings.HasPrefix(p, dir+"/") {
				u.suspect[p] = e.Value.(clearing).sig
				u.cleared.Remove(e)
				delete(u.clearedAt, p)
			}
		}
	}
}

// Import notes that git objects of the work trees dirs hold content
// limen did not see written: a fetch from a repository an agent named, an
// object stored from its input. It is never forgotten (up to a bound,
// past which every restore is a tree written).
func (r *Record) Import(user string, dirs []string) {
	if len(dirs) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.of(user)
	if u.foreign == nil {
		u.foreign = make(map[string]bool)
	}
	for _, d := range dirs {
		if len(u.foreign) >= maxLostDirs {
			d = "/"
		}
		u.foreign[strings.TrimSuffix(d, "/")] = true
	}
}

// overlaps reports whether one directory holds the other (or they are the
// same); "" is the root.
func overlaps(a, b string) bool {
	return a == b || a == "" || b == "" || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}
