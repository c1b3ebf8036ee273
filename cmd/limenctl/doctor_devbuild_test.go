package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorDevBuildInSourceTree: the README's way of trying limen (build
// into bin/ of the clone, hook install) run from the clone: doctor says
// once that the hook is a build of limen's source tree it did not run,
// without turning red, and its fix, followed, turns the hook green there.
// Before, it failed once per hook event, and its fix wrote the same path.
func TestDoctorDevBuildInSourceTree(t *testing.T) {
	for _, limenTree := range []bool{true, false} {
		name := "limen's source tree"
		if !limenTree {
			name = "another project"
		}
		t.Run(name, func(t *testing.T) {
			s := newScratch(t)
			if limenTree {
				writeFile(t, filepath.Join(s.project, "go.mod"), "module github.com/limenhq/limen\n\ngo 1.26.0\n", 0o600)
			}
			devBin := filepath.Join(s.project, "bin", "limen-hook")
			writeFile(t, devBin, "#!/bin/sh\ntouch "+filepath.Join(s.project, "ran")+"\n", 0o755)
			// As in the trial: the clone's bin/ is the only limen-hook on $PATH.
			standIn, _ := os.ReadFile(s.hookBin) // answers --version as this build
			os.Remove(s.hookBin)
			t.Setenv("PATH", filepath.Dir(devBin)+":"+os.Getenv("PATH"))
			os.Remove(s.claude)
			out, errOut, code := runCtl("--socket", s.l.Config.Socket, "hook", "install", "claude-code", "--hook-bin", devBin)
			if code != exitOK {
				t.Fatalf("hook install = %d: %s%s", code, out, errOut)
			}
			// hook install says so too, and how to keep a copy of its own.
			note := "note: " + devBin + " is a build inside limen's source tree " + s.project + ": each rebuild or git checkout there changes what every tool call runs"
			if got := strings.Contains(out, note) && strings.Contains(out, `go install ./cmd/... there, then install with --hook-bin "$(go env GOPATH)"/bin/limen-hook`); got != limenTree {
				t.Errorf("hook install notes a build of limen's source tree: %v, want %v:\n%s", got, limenTree, out)
			}
			os.Remove(s.codexHooks) // Claude Code's hook alone
			os.Remove(s.gemini)

			out, checks, code := s.doctor(t)
			if _, err := os.Stat(filepath.Join(s.project, "ran")); err == nil {
				t.Errorf("doctor ran a binary inside the directory it ran in")
			}
			var hooks []finding
			for _, c := range checks {
				if c.Check == "hook" {
					hooks = append(hooks, c)
				}
			}
			if len(hooks) != 1 {
				t.Fatalf("%d hook findings; want one for all of limen's events in %s:\n%s", len(hooks), s.claude, out)
			}
			h := hooks[0]
			wantLevel, wantCode, wantDetail, wantBuild := levelFail, exitFailure, devBin+" is inside this project, and doctor does not run what a project brings", "go install github.com/limenhq/limen/cmd/...@latest, then "
			if limenTree {
				wantLevel, wantCode, wantDetail, wantBuild = levelWarn, exitOK, devBin+" is a build inside limen's source tree "+s.project+": doctor does not run programs inside the directory it is run in", "go install ./cmd/..., then "
			}
			wantFix := wantBuild + `limenctl hook uninstall claude-code && limenctl hook install claude-code --hook-bin "$(go env GOPATH)"/bin/limen-hook`
			if h.Level != wantLevel || code != wantCode || !strings.Contains(h.Detail, wantDetail) || h.Fix != wantFix {
				t.Fatalf("doctor = %d, %s %q\n  fix %q\nwant %d, %s %q\n  fix %q", code, h.Level, h.Detail, h.Fix, wantCode, wantLevel, wantDetail, wantFix)
			}

			// Follow the fix, with go install's limen-hook stood in for.
			gopath := t.TempDir()
			t.Setenv("GOPATH", gopath)
			installed := filepath.Join(gopath, "bin", "limen-hook")
			writeFile(t, installed, string(standIn), 0o755)
			for _, args := range [][]string{{"hook", "uninstall", "claude-code"}, {"hook", "install", "claude-code", "--hook-bin", installed}} {
				if out, errOut, code := runCtl(append([]string{"--socket", s.l.Config.Socket}, args...)...); code != exitOK {
					t.Fatalf("%v = %d: %s%s", args, code, out, errOut)
				}
			}
			out, checks, code = s.doctor(t)
			if code != exitOK {
				t.Fatalf("doctor after its fix = %d:\n%s", code, out)
			}
			for _, c := range checks {
				if c.Check == "hook" && c.Level != levelOK {
					t.Errorf("after its fix: %+v", c)
				}
			}
		})
	}
}
