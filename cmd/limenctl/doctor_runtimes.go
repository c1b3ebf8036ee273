package main

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// verifiedRuntime is the version of a runtime that limen's hook was run
// against (docs/integrations.md), and what an older one may not do.
type verifiedRuntime struct {
	runtime  string // hookRuntime.name
	bin      string // on $PATH
	verified string // "" when limen was never run against it
	risk     string // what an older version may get wrong
	update   string // the command that updates it
}

var verifiedRuntimes = []verifiedRuntime{
	{"Claude Code", "claude", "2.1.328",
		`"onFailure" was verified with 2.1.328; an older Claude Code may ignore it, and run the tool when limen-hook crashes or is missing`,
		"claude update"},
	{"Codex", "codex", "0.171.0",
		"limen's hook trust records and answers were verified with Codex 0.171.0; an older Codex may hash or read hooks differently, and skip limen's silently",
		"npm install -g @openai/codex@latest"},
	{"Gemini CLI", "gemini", "0.61.0",
		"limen reads Gemini CLI's tools as 0.61.0 sends them; an older one may name them differently",
		"npm install -g @google/gemini-cli@latest"},
}

var versionRE = regexp.MustCompile(`\d+(\.\d+)+`)

// checkRuntimeVersions compares the version of each runtime that has
// limen's hook, when its command is on $PATH, with the one limen was
// verified against. Older is a warning: the hook may still work.
func (d *doctor) checkRuntimeVersions(ctx context.Context, installed map[string]bool) {
	for _, v := range verifiedRuntimes {
		if !installed[v.runtime] {
			continue
		}
		bin, err := exec.LookPath(v.bin)
		if err != nil {
			continue // started some other way; nothing to compare
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		out, err := exec.CommandContext(cctx, bin, "--version").Output()
		cancel()
		got := versionRE.FindString(string(out))
		switch {
		case err != nil || got == "":
			d.add("runtime", levelWarn, fmt.Sprintf("%s --version did not say a version (%v): cannot compare it with the one limen was verified with", bin, err), v.update)
		case v.verified == "":
			d.add("runtime", levelOK, fmt.Sprintf("%s %s: %s", v.runtime, got, v.risk), "")
		case olderVersion(got, v.verified):
			d.add("runtime", levelWarn, fmt.Sprintf("%s %s is older than %s: %s", v.runtime, got, v.verified, v.risk), v.update)
		default:
			d.add("runtime", levelOK, fmt.Sprintf("%s %s, at least the %s limen was verified with", v.runtime, got, v.verified), "")
		}
	}
}

// olderVersion reports whether dotted version a is before b.
func olderVersion(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}
