package paths

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// Use says what limend does with a path that CheckPrivate checks, for its
// rule and its message.
type Use struct {
	// What the path is, as the message names it: "database", "socket".
	What string
	// Flag chooses another path: "--db".
	Flag string
	// ReadOnly is a file limend only reads (a certificate, a token): root
	// may own it too. Anything limend writes must be its own.
	ReadOnly bool
}

// CheckPrivate refuses a path that another user could have planted or can
// change: limend would otherwise open a database someone else prepared,
// or serve a socket someone else can replace. It checks the path itself,
// if it exists, and every directory above it up to /, and follows symlinks
// and checks where they lead the same way. The rules:
//
//   - the file must be owned by limend's user (or root, for ReadOnly) and
//     not writable by its group or others (a socket's mode does not
//     matter: limend replaces it and sets 0600);
//   - a directory above it must be owned by limend's user or root, and not
//     writable by group or others unless it is sticky (like /tmp: then
//     only the owner of an entry can remove or rename it);
//   - a symlink on the way must be owned by limend's user or root.
//
// Being writable by one's own user-private group (the group that has the
// user's name and is their primary group, umask 002 setups) counts as
// private. ACLs are not read. Parts of the path that do not exist yet are
// limend's to create (0700).
func CheckPrivate(path string, u Use) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return errors.New("limend cannot check its " + u.What + " " + path + ": " + err.Error())
	}
	c := checker{use: u, me: uint32(os.Geteuid())}
	return c.chain(abs, 0)
}

type checker struct {
	use Use
	me  uint32
}

func (c checker) chain(path string, depth int) error {
	if depth > 16 {
		return c.refuse(path, "it goes through too many symlinks", "pass "+c.use.Flag+" with a plain path")
	}
	fi, err := os.Lstat(path)
	switch {
	case err == nil:
		if err := c.file(path, fi); err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return errors.New("limend cannot check its " + c.use.What + " " + path + ": " + err.Error())
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		fi, err := os.Lstat(dir)
		switch {
		case err == nil:
			if err := c.dir(path, dir, fi); err != nil {
				return err
			}
		case !errors.Is(err, fs.ErrNotExist):
			return errors.New("limend cannot check the directory " + dir + " of its " + c.use.What + " " + path + ": " + err.Error())
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	// Every link on the way was vouched for; now where they lead.
	if real := resolve(path); real != path {
		return c.chain(real, depth+1)
	}
	return nil
}

// resolve is path with every symlink of its existing part resolved.
func resolve(path string) string {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

func (c checker) file(path string, fi fs.FileInfo) error {
	uid, gid := owner(fi)
	if fi.Mode()&fs.ModeSymlink != 0 {
		if uid != c.me && uid != 0 {
			return c.refuse(path, "it is a symlink owned by "+Describe(uid)+", not you (uid "+strconv.FormatUint(uint64(c.me), 10)+"), who can point it anywhere", "remove the link, or pass "+c.use.Flag+" with a path only you can write")
		}
		return nil
	}
	if uid != c.me && !(c.use.ReadOnly && uid == 0) {
		fix := "if it is yours, `chown " + strconv.FormatUint(uint64(c.me), 10) + " " + path + "`; otherwise move it aside and pass " + c.use.Flag + " with a path in a directory only you can write"
		return c.refuse(path, "it is owned by "+Describe(uid)+", not you (uid "+strconv.FormatUint(uint64(c.me), 10)+"), so that user could have planted it or can change it", fix)
	}
	if fi.Mode()&fs.ModeSocket != 0 {
		return nil
	}
	if who := c.writers(fi.Mode(), gid); who != "" {
		return c.refuse(path, "it is writable by "+who+" ("+mode(fi.Mode())+")", "`chmod go-w "+path+"`")
	}
	return nil
}

func (c checker) dir(path, dir string, fi fs.FileInfo) error {
	uid, gid := owner(fi)
	if uid != c.me && uid != 0 {
		what := "the directory " + dir
		if fi.Mode()&fs.ModeSymlink != 0 {
			what = "the symlink " + dir
		}
		return c.refuse(path, what+" on its way is owned by "+Describe(uid)+", who can replace anything in it", "pass "+c.use.Flag+" with a path under directories that only you (or root) own")
	}
	if fi.Mode()&fs.ModeSymlink != 0 || fi.Mode()&fs.ModeSticky != 0 {
		return nil // a sticky directory keeps others' hands off our entries
	}
	if who := c.writers(fi.Mode(), gid); who != "" {
		return c.refuse(path, "the directory "+dir+" on its way is writable by "+who+" ("+mode(fi.Mode())+"), so they could replace what is in it",
			"`chmod go-w "+dir+"` (or `chmod +t "+dir+"` if others must share it, as in /tmp), or pass "+c.use.Flag+" with a path only you can write")
	}
	return nil
}

// writers says who besides the owner may write to a file of this mode
// and group, or "" when nobody may.
func (c checker) writers(m fs.FileMode, gid uint32) string {
	switch {
	case m&0o002 != 0:
		return "every user"
	case m&0o020 != 0 && !c.privateGroup(gid):
		g := "gid " + strconv.FormatUint(uint64(gid), 10)
		if name := groupName(gid); name != "" {
			g = name + " (" + g + ")"
		}
		return "the group " + g
	}
	return ""
}

// privateGroup says gid is the user-private group of limend's user.
func (c checker) privateGroup(gid uint32) bool {
	name, primary, ok := primaryGroup(c.me)
	return ok && primary == gid && groupName(gid) == name
}

func (c checker) refuse(path, why, fix string) error {
	return &PrivateError{Path: path, msg: "limend refuses its " + c.use.What + " " + path + ": " + why + ". Fix: " + fix + "."}
}

// PrivateError is CheckPrivate's refusal: which path, why, and the fix.
type PrivateError struct {
	Path string
	msg  string
}

func (e *PrivateError) Error() string { return e.msg }

func owner(fi fs.FileInfo) (uid, gid uint32) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Uid, st.Gid
	}
	return ^uint32(0), ^uint32(0) // unknown: nobody's, so refused
}

func mode(m fs.FileMode) string {
	n := uint64(m.Perm())
	if m&fs.ModeSticky != 0 {
		n |= 0o1000
	}
	return "mode 0" + strconv.FormatUint(n, 8)
}
