package main

import (
	"runtime"
	"strings"
	_ "unsafe" // for go:linkname
)

// modinfo is the build information the linker stores in every binary, the
// string runtime/debug.ReadBuildInfo parses. limen-hook reads it directly
// because runtime/debug links fmt, whose start-up cost would be paid on
// every tool call for a flag that is almost never given. The runtime
// provides this symbol for runtime/debug (runtime.debug_modinfo);
// TestVersionMatchesBuildInfo checks it against debug/buildinfo.
//
//go:linkname modinfo runtime/debug.modinfo
func modinfo() string

// versionLine is what --version prints: the same words as
// internal/version's Info.String, which limend and limenctl print, so that
// the three can be compared by eye.
func versionLine() string {
	return "limen-hook " + buildVersion(modinfo(), runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)
}

// buildVersion words the build information mi (with its 16-byte sentinels
// at both ends, as the linker stores it) like version.Info.String.
func buildVersion(mi, goVersion, platform string) string {
	module, commit, dirty := "(unknown)", "", false
	if len(mi) >= 32 {
		mi = mi[16 : len(mi)-16]
	}
	for _, line := range strings.Split(mi, "\n") {
		fields := strings.Split(line, "\t")
		switch {
		case len(fields) >= 3 && fields[0] == "mod" && fields[2] != "":
			module = fields[2]
		case len(fields) >= 2 && fields[0] == "build":
			key, value, _ := strings.Cut(fields[1], "=")
			switch key {
			case "vcs.revision":
				commit = value
			case "vcs.modified":
				dirty = value == "true"
			}
		}
	}
	s := module
	if commit != "" {
		if len(commit) > 12 {
			commit = commit[:12]
		}
		s += " (commit " + commit
		if dirty {
			s += ", dirty"
		}
		s += ")"
	}
	return s + " " + goVersion + " " + platform
}
