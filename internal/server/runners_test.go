package server_test

import (
	"testing"

	"github.com/limenhq/limen/internal/limentest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestEveryRunnerRunsTheTree: each red-team pass from the eleventh on
// found one more runner, or one more kind of file a runner runs, that
// limen's table did not list, and forged answers through it. So a
// program limen does not know to run nothing of the tree (a build tool
// it has never heard of, a script that sources its neighbours, python -c
// importing from the working directory) runs every file below it but
// data, and only the programs known to run nothing from there (cat, git
// status, kubectl) stay allowed after an agent writes code.
func TestEveryRunnerRunsTheTree(t *testing.T) {
	l := limentest.Start(t)
	c := l.Client
	runners := []string{
		"bazel test //...",
		"bash scripts/build.sh",
		"terraform plan",
		"python3 -c 'import report; report.main()'",
		"./gradlew check",
		"zig build test",
	}
	readers := []string{"cat README.md", "git status", "ls -la src", "kubectl get pods", "go build ./...", "grep -rn TODO src"}
	var acts []*limenv1.Action
	for _, cmd := range append(append([]string{}, runners...), readers...) {
		acts = append(acts, sh("ana", cmd))
	}
	teach(t, c, acts...)

	// Data an agent writes runs nowhere: nothing is asked.
	decideOnce(t, c, write("ana", "/home/ana/shop/docs/notes.md"), false)
	for _, cmd := range runners {
		if d := decideOnce(t, c, sh("ana", cmd), true); d.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
			t.Errorf("%s after a write of notes.md: %v (%s); want allow, a document runs nowhere", cmd, d.GetVerdict(), d.GetReason())
		}
	}

	for _, file := range []string{"/home/ana/shop/report.py", "/home/ana/shop/scripts/lib.sh", "/home/ana/shop/tools/gen"} {
		for _, cmd := range runners {
			decideOnce(t, c, write("ana", file), false) // again: the approval below clears it
			d := decideOnce(t, c, sh("ana", cmd), false)
			if d.GetVerdict() != limenv1.Verdict_VERDICT_ASK || !runsWritten(d) {
				t.Fatalf("%s after a write of %s: %v (%s); want an ask because it runs what an agent wrote", cmd, file, d.GetVerdict(), d.GetReason())
			}
			answer(t, c, d, limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_ONCE)
		}
		for _, cmd := range readers {
			if d := decideOnce(t, c, sh("ana", cmd), true); d.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
				t.Errorf("%s after a write of %s: %v (%s); want allow, it runs nothing of the tree", cmd, file, d.GetVerdict(), d.GetReason())
			}
		}
	}
}

// TestTreesWrittenUnseen: an archive extracted or a patch applied writes
// files its command does not name, and they are the agent's if the
// archive or patch is (a notes.diff it wrote, a tarball it fetched). A
// runner after it is asked, git too (an archive can hold .git/hooks), and
// approving git, which runs only its hooks, does not vouch for the rest.
func TestTreesWrittenUnseen(t *testing.T) {
	l := limentest.Start(t)
	c := l.Client
	writers := []string{"tar xzf assets.tgz", "git apply fix.diff", "unzip -o fonts.zip", "patch -p1 -i fix.diff", "tar -xf vendor.tar -C third_party"}
	teach(t, c, sh("ana", "bazel test //..."), sh("ana", "git status"), sh("ana", "cat README.md"))
	for _, writer := range writers {
		// Asked or allowed, what it writes is recorded: an ask that
		// the person approves runs it.
		decideOnce(t, c, sh("ana", writer), false)
		d := decideOnce(t, c, sh("ana", "git status"), false)
		if d.GetVerdict() != limenv1.Verdict_VERDICT_ASK || !runsWritten(d) {
			t.Fatalf("git status after %s: %v (%s); want an ask, the archive or patch can write git's hooks", writer, d.GetVerdict(), d.GetReason())
		}
		answer(t, c, d, limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_ONCE)
		d = decideOnce(t, c, sh("ana", "bazel test //..."), false)
		if d.GetVerdict() != limenv1.Verdict_VERDICT_ASK || !runsWritten(d) {
			t.Fatalf("bazel test after %s and an approved git status: %v (%s); want an ask because it runs what an agent wrote", writer, d.GetVerdict(), d.GetReason())
		}
		answer(t, c, d, limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_ONCE)
		for _, cmd := range []string{"bazel test //...", "git status", "cat README.md"} {
			if d := decideOnce(t, c, sh("ana", cmd), true); d.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
				t.Errorf("%s after %s was approved to run: %v (%s); want allow", cmd, writer, d.GetVerdict(), d.GetReason())
			}
		}
	}
}
