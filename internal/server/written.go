package server

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/written"
)

// What agents wrote (internal/written), with the spelling of each path
// through links resolved as it is recorded. Runs entries are matched as
// spelled, with no file system access on a decision's path: the written
// paths carry their resolved spelling, and a runner's entries cover the
// working directory's tree, so a link inside the project is covered
// either way; a link to outside it is a risk mark of its own (ln -s).
// The record is lost on restart, after which limen asks about nothing it
// did not see written: what it guards against is an agent writing and
// running within a session. A team's replicas each keep their own
// (docs/scale-out.md).
type agentWrites struct{ rec *written.Record }

func newWritten() agentWrites { return agentWrites{rec: written.New(written.MaxPerUser, contentSum)} }

// contentSum is a file's content signature for written.Record: its
// SHA-256, up to maxSummed bytes (past them, its size and modification
// time), or "" when it cannot be read. It is read on the answer's path,
// and on a decision's only for a file git may have put back.
func contentSum(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	if st.Size() > maxSummed {
		return fmt.Sprintf("size %d, modified %d", st.Size(), st.ModTime().UnixNano())
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// maxSummed bounds the bytes contentSum reads of one file.
const maxSummed = 8 << 20

// record notes what parts write, import and restore, for user.
func (w agentWrites) record(user string, parts []action.Part) {
	w.rec.Note(user, parts, withResolved)
}

// wrote returns the check for one decision of user: whether a file the
// Runs entry run of pending[i] names was written before, or by the parts
// before it (so that a dry run, which records nothing, sees them too).
func (w agentWrites) wrote(user string, pending []action.Part) func(int, string) bool {
	var before []written.Pending // worked out once asked
	return func(i int, run string) bool {
		if before == nil {
			before = written.Before(pending, withResolved)
		}
		var seen written.Pending
		if i < len(before) {
			seen = before[i]
		}
		return w.rec.Wrote(user, run, seen)
	}
}

// approved forgets the files a person has allowed running (the parts of
// an approved ask), for user.
func (w agentWrites) approved(user string, parts []action.Part) {
	var runs []string
	for _, p := range parts {
		runs = append(runs, p.Runs...)
	}
	w.rec.Allowed(user, runs)
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
