// Package action is limen's model of what an agent wants to do: a tool
// call taken apart into parts (one per simple command of a shell script),
// each with a ladder of keys from the most general (the tool) to the exact
// text, the risk marks that split a ladder (rm [-f -r], cat [secret-file]),
// and the knowledge behind them as tables: programs that run code from
// their arguments (exec_table.go), options that write paths (outputs.go),
// credential files (secrets.go), limen's own controls (controls.go).
//
// Both the hard rules (package policy) and the learning model (package
// predictor) read actions through this package; it knows nothing of
// either. It is a domain package: plain Go values in and out, no I/O.
package action

import (
	"strings"
	"time"
)

// Action is one thing an agent wants to do, as the predictor sees it.
type Action struct {
	User    string
	Agent   string
	Session string
	// Tool is the runtime's tool name: "Bash", "Read", "Edit", "Write",
	// "WebFetch", "mcp__<server>__<tool>", or any other.
	Tool string
	// Input is the tool's arguments, decoded from a JSON object.
	Input map[string]any
	// Cwd is the agent's working directory; file paths are classed against it.
	Cwd  string
	Time time.Time
	// Self is where the limend deciding the action keeps its sockets and
	// database, so that touching them is recognised as a control; nil
	// protects only the locations every limen has.
	Self *Self
}

// Ladder is the keys of one part of an action, from the most general (the
// tool) to the most specific (the exact command). Every key is a complete,
// globally unique string, so a key can be counted on its own.
type Ladder []string

// Exact returns the most specific key of the ladder.
func (l Ladder) Exact() string {
	if len(l) == 0 {
		return ""
	}
	return l[len(l)-1]
}

// Part is one simple action inside a possibly compound action: one simple
// command of a shell pipeline, or the whole action for any other tool.
type Part struct {
	// Tool is the tool the part belongs to ("Bash" for every part of a
	// shell command).
	Tool string
	// Control, when not empty, says why the part is one of limen's own
	// controls: it answers an ask, changes the policy, removes a hook,
	// stops limend or touches its sockets, database or a runtime's hook
	// settings. Such a part is blocked whatever anyone approved before.
	Control string
	// Subject is what hard rules match against: for Bash the simple command
	// with wrappers removed, words joined by single spaces; for file tools the
	// cleaned absolute path; for WebFetch the URL; otherwise empty.
	Subject string
	// Keys is the part's ladder.
	Keys Ladder
	// Opaque is set when the part could not be understood: a command that
	// does not parse, whose program is only known when it runs ($a -rf ~),
	// or that runs code limen cannot read (python -c, curl … | sh). Its
	// exact key is the whole command line; only an allow rule or the
	// person's own approval of that exact text can allow it.
	Opaque bool
	// Why says, for an opaque part, what limen could not read in it.
	Why string
	// Writes are the files a shell part writes (its redirections and
	// outputs) and Runs the files it runs as code (a script, a program
	// named by its path), as absolute paths (dataflow.go). A file tool's
	// written path is its Subject: see WrittenBy.
	Writes, Runs []string
	// Restores are the work trees where a git part puts back files as
	// they were committed or stashed: what an agent wrote there, and a
	// person allowed running since, is again as the agent wrote it.
	// Imports are the work trees whose git objects get content limen
	// did not see written (a fetch from an unknown remote, hash-object
	// -w), which any later restore there may bring out.
	Restores, Imports []string
}

// MarkLevel returns the index of the level of a ladder that holds its risk
// marks ("Bash:rm [-f -r]", "Bash:cat [secret-file]"), or -1. A person's
// answers below it (to rm without -rf) are no evidence about it.
func MarkLevel(l Ladder) int {
	for i := 1; i < len(l)-1; i++ {
		if k := l[i]; strings.HasSuffix(k, "]") && strings.Contains(k, " [") {
			return i
		}
	}
	return -1
}

// WritesStartup reports whether a part writes a file that runs, or says
// what runs, later and elsewhere: a home's dot files (a file tool's
// home-dotfile class, or a shell command's writes-startup mark). Each
// such write is its own decision: approving `echo 'export X=1' >>
// ~/.bashrc` says nothing about appending `curl … | sh` to it.
func WritesStartup(p Part) bool {
	for _, k := range p.Keys[1:min(len(p.Keys), 4)] {
		if writerTools[p.Tool] && (strings.HasSuffix(k, ":"+ClassHomeDotfile) || strings.Contains(k, ":"+ClassHomeDotfile+":")) {
			return true
		}
		if strings.HasSuffix(k, "]") && strings.Contains(k, WritesStartupMark) {
			return true
		}
	}
	return false
}

// WritesLater reports whether a part writes files from the background
// (WritesLaterMark).
func WritesLater(p Part) bool {
	if i := MarkLevel(p.Keys); i >= 0 {
		return strings.Contains(p.Keys[i], WritesLaterMark)
	}
	return false
}

// ReadsSecret reports whether a part reads something its ladder classes as
// a secret: a file tool's path or glob ("Read:secret", "Grep:secret"), or
// a shell command that names a secret file or dumps the environment (the
// secret-file and secret-env marks). Secrets differ one from another (a
// project's .env is not ~/.ssh/id_rsa), so approving one read says nothing
// about the next.
func ReadsSecret(p Part) bool {
	for _, k := range p.Keys[1:min(len(p.Keys), 4)] {
		if strings.HasSuffix(k, ":"+ClassSecret) || strings.Contains(k, ":"+ClassSecret+":") {
			return true
		}
		if strings.HasSuffix(k, "]") && (strings.Contains(k, "secret-file") || strings.Contains(k, "secret-env")) {
			return true
		}
	}
	return false
}

// beyondRules are the risk marks of what a command does beyond its
// ordinary reach: writing outside the project or into files other
// commands run, acting in another directory, reading secrets, reaching a
// device or another scheme, sending stored credentials elsewhere. A
// wildcard allow rule (`Bash(git log:*)`) was written for the program's
// ordinary use and does not cover them: `git log --output=~/.bashrc`.
var beyondRules = map[string]bool{
	"write-outside": true, "runs-config": true, "device-write": true, elsewhereMark: true,
	"secret-file": true, envDumpMark: true, "other-scheme": true, "redirects-auth": true,
}

// BeyondRules returns the mark of p that a wildcard allow rule does not
// cover (beyondRules), or "".
func BeyondRules(p Part) string {
	i := MarkLevel(p.Keys)
	if i < 0 {
		return ""
	}
	k := p.Keys[i]
	for _, m := range strings.Fields(k[strings.LastIndex(k, " [")+2 : len(k)-1]) {
		if beyondRules[m] {
			return m
		}
	}
	return ""
}
