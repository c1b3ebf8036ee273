package paths

import (
	"path/filepath"
	"strconv"
)

// The macOS defaults are plain functions of the home directory and uid,
// in a file for every OS, so that they are tested on Linux too.

// macSunPath is the size of sun_path in macOS's sockaddr_un, the NUL
// included: a longer socket path cannot be bound or connected to.
const macSunPath = 104

// macDataDir is where macOS applications keep their data.
func macDataDir(home string) string {
	return filepath.Join(home, "Library", "Application Support", "limen")
}

// macRuntimeDir is macDataDir when both socket paths fit in sun_path, and
// otherwise /tmp/limen-<uid>: short whatever the home directory, and the
// same for limend and every client, whatever $TMPDIR each one was given
// (a launchd agent's is not a terminal's). /tmp is sticky, so nobody else
// can remove or rename the directory there; one that another user made
// first is refused by limend's CheckPrivate (it is not the user's), and
// limend creates a missing one 0700.
func macRuntimeDir(home string, uid int) string {
	d := macDataDir(home)
	if len(filepath.Join(d, httpSocketName)) < macSunPath {
		return d
	}
	return filepath.Join("/tmp", "limen-"+strconv.Itoa(uid))
}
