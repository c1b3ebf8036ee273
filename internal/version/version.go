// Package version says which build of limen is running, from what the Go
// toolchain records in every binary: the module version (set by
// `go install …@v1.2.3`), the VCS commit and whether the tree was dirty.
// Nothing is stamped by hand, so it cannot drift from the code.
package version

import (
	"runtime"
	"runtime/debug"
)

// Info is one binary's build.
type Info struct {
	// Module is the module version: "v1.2.3", a pseudo-version, or
	// "(devel)" for a build from a work tree.
	Module string `json:"module"`
	// Commit is the VCS revision, when the build knew it.
	Commit string `json:"commit,omitempty"`
	// Dirty says the work tree had uncommitted changes.
	Dirty bool   `json:"dirty,omitempty"`
	Go    string `json:"go"`
	// Platform is GOOS/GOARCH.
	Platform string `json:"platform"`
}

// Get reads the running binary's build information.
func Get() Info {
	info := Info{Module: "(unknown)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	if bi.Main.Version != "" {
		info.Module = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.modified":
			info.Dirty = s.Value == "true"
		}
	}
	return info
}

// String is the one-line form --version prints:
// "v1.2.3 (commit 0123abcd4567, dirty) go1.26.8 linux/amd64".
func (i Info) String() string {
	s := i.Module
	if i.Commit != "" {
		c := i.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		s += " (commit " + c
		if i.Dirty {
			s += ", dirty"
		}
		s += ")"
	}
	return s + " " + i.Go + " " + i.Platform
}

// Same reports whether two builds are the same code: the same module
// version and, when both know it, the same commit and dirtiness.
func Same(a, b Info) bool {
	if a.Module != b.Module {
		return false
	}
	if a.Commit == "" || b.Commit == "" {
		return true
	}
	return a.Commit == b.Commit && a.Dirty == b.Dirty
}
