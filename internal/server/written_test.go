package server_test

import (
	"strings"
	"testing"

	"github.com/limenhq/limen/internal/engine"
	"github.com/limenhq/limen/internal/limentest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestRunningWhatAnAgentWroteAsks: after a person has taught limen to
// allow python3 on the project's scripts, a file an agent writes and then
// runs with it is asked, by the Write tool or a shell redirection, in
// one command or two; once a person approves running it, it is learned
// as before, until it is written again. A dry run records nothing.
func TestRunningWhatAnAgentWroteAsks(t *testing.T) {
	l := limentest.Start(t)
	c := l.Client
	ordinary := []string{"python3 scripts/build.py", "python3 scripts/test.py", "python3 scripts/lint.py", "python3 tools/gen.py",
		"python3 scripts/fmt.py", "python3 scripts/check.py", "python3 tools/bump.py", "python3 tools/docs.py", "python3 scripts/serve.py"}
	allowed := false
	for round := 0; round < 40 && !allowed; round++ {
		allowed = true
		for _, cmd := range ordinary {
			d := decideOnce(t, c, sh("ana", cmd), false)
			if d.GetVerdict() == limenv1.Verdict_VERDICT_ASK {
				answer(t, c, d, limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_ONCE)
			}
			allowed = allowed && d.GetVerdict() == limenv1.Verdict_VERDICT_ALLOW
		}
	}
	if !allowed {
		t.Fatal("limen never learned to allow python3 on the project's scripts: the asks below would prove nothing")
	}
	if d := decideOnce(t, c, sh("ana", "python3 scripts/new.py"), true); d.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Fatalf("python3 on a script nobody wrote: %v (%s); want allow, as learned", d.GetVerdict(), d.GetReason())
	}
	wantRunsWritten := func(what string, a *limenv1.Action) *limenv1.Decision {
		t.Helper()
		d := decideOnce(t, c, a, false)
		if d.GetVerdict() != limenv1.Verdict_VERDICT_ASK || !runsWritten(d) {
			t.Fatalf("%s: %v by %v (%s); want ask by %q", what, d.GetVerdict(), d.GetDecidedBy(), d.GetReason(), engine.RunsWrittenRule)
		}
		return d
	}

	// Written with the Write tool, then run.
	decideOnce(t, c, act("ana", "Write", `{"file_path":"/home/ana/shop/notes.md","content":"import os"}`), false)
	d := wantRunsWritten("python3 notes.md after a Write of it", sh("ana", "python3 notes.md"))
	// Another spelling of the same file is the same file.
	wantRunsWritten("python3 ./notes.md", sh("ana", "python3 ./notes.md"))
	// A person approves running it: it is no longer what an agent wrote.
	answer(t, c, d, limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_ONCE)
	if d := decideOnce(t, c, sh("ana", "python3 ./notes.md"), true); runsWritten(d) {
		t.Errorf("python3 ./notes.md after a person approved running it: still %s", d.GetReason())
	}
	// Edited again: asked again.
	decideOnce(t, c, act("ana", "Edit", `{"file_path":"/home/ana/shop/notes.md","old_string":"os","new_string":"sys"}`), false)
	wantRunsWritten("python3 notes.md after an Edit", sh("ana", "python3 notes.md"))

	// Written by a redirection and run in the same command line.
	d = wantRunsWritten("a heredoc into a file, then run", sh("ana", "cat > gen.py <<'EOF'\\nprint(1)\\nEOF\\npython3 gen.py"))
	answer(t, c, d, limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_ONCE) // python runs what its tree holds: clear it
	// A dry run of a write records nothing. (In a directory of its own:
	// python3 runs what it imports from its script's directory, where
	// gen.py was written just above.)
	decideOnce(t, c, sh("ana", "echo x > dry/dry.py"), true)
	if d := decideOnce(t, c, sh("ana", "python3 dry/dry.py"), true); runsWritten(d) {
		t.Errorf("python3 dry/dry.py after only a dry run wrote it: %s", d.GetReason())
	}
	// A file an approved command obeys without naming it: a Makefile
	// edited, then `make test`; a git hook written, then `git commit`.
	decideOnce(t, c, act("ana", "Edit", `{"file_path":"/home/ana/shop/Makefile","old_string":"a","new_string":"b"}`), false)
	wantRunsWritten("make test after an Edit of the Makefile", sh("ana", "make test"))
	decideOnce(t, c, sh("ana", "printf '#!/bin/sh\\\\n' > .git/hooks/pre-commit"), false)
	wantRunsWritten("git commit after a hook was written", sh("ana", "git commit -m x"))
	decideOnce(t, c, act("ana", "Write", `{"file_path":"/home/ana/shop/tests/unit/conftest.py","content":"x"}`), false)
	wantRunsWritten("pytest after a conftest.py was written", sh("ana", "python3 -m pytest -q"))

	// Written by one user is not another's.
	decideOnce(t, c, act("ana", "Write", `{"file_path":"/home/ana/shop/mine.py","content":"x"}`), false)
	if d := decideOnce(t, c, sh("bob", "python3 /home/ana/shop/mine.py"), true); runsWritten(d) {
		t.Errorf("bob running ana's agent's file: %s; want it decided as bob's own", d.GetReason())
	}
}

// runsWritten reports whether d asked because its action runs what an
// agent wrote.
func runsWritten(d *limenv1.Decision) bool {
	return d.GetDecidedBy() == limenv1.Decider_DECIDER_RULE && strings.Contains(d.GetReason(), "which an agent wrote since a person last allowed running it")
}
