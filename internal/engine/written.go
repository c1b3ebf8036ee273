package engine

import (
	"strings"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/policy"
)

// RunsWrittenRule is the Rule of a Result that asked because a part runs
// a file an agent wrote (Input.Wrote): a built-in rule, above learning.
const RunsWrittenRule = "limen: runs what an agent wrote"

// runsWritten returns the ask for the first part that runs a file an
// agent wrote since a person last allowed running it, or nil. What such a
// file does is what the agent wrote into it, which no earlier approval of
// the program saw (`python3 notes.md` after `python3 script.py`): only a
// person, or an allow rule naming this exact command, lets it run. A
// wildcard allow rule (Bash(python3:*)) was written for the program's
// ordinary use and does not cover it, as it does not cover risk marks.
//
// A person who approved the exact command for the session has said that
// in this session it may run whatever the agent writes (the ask says
// so): the edit-and-test loop of one task is asked about once.
func runsWritten(plan *Plan, wrote func(int, string) bool, granted func(string) bool, noSession bool) *Result {
	if wrote == nil {
		return nil
	}
	for i := range plan.parts {
		part := &plan.parts[i]
		if part.ruled && part.rule.Verdict == policy.Allow && !strings.Contains(part.rule.Pattern, "*") {
			continue
		}
		if granted != nil && !part.Opaque && granted(part.Keys.Exact()) {
			continue
		}
		for _, p := range part.Runs {
			if wrote(i, p) {
				return &Result{Verdict: policy.Ask, DecidedBy: ByRule, Rule: RunsWrittenRule, Key: part.Keys.Exact(), Class: part.class.Name,
					Reason: "it runs " + runsText(p) + ", which an agent wrote since a person last allowed running it, so a person decides " +
						"(what the file does is what was written into it; approvals of other runs say nothing about it" + sessionAdvice(noSession) + ")"}
			}
		}
	}
	return nil
}

// sessionAdvice is the runs-written reason's way out, for an action with
// a session.
func sessionAdvice(noSession bool) string {
	if noSession {
		return ""
	}
	return "; approve it for the session to let it run what this session's agent writes"
}

// runsText names a Runs entry (action.RunsMatch) for a person:
// "/p/**/*.go" is "the *.go files below /p".
func runsText(run string) string {
	if dir, name, ok := strings.Cut(run, "/**/"); ok {
		if name == action.NotData {
			return "the files below " + dir + " (all but tables, logs and images)"
		}
		return "the " + name + " files below " + dir
	}
	if strings.HasSuffix(run, "/") {
		return "the files below " + strings.TrimSuffix(run, "/")
	}
	return run
}

// RunsOf returns the files the parts run as code, for a caller that
// clears them from what agents wrote once a person approves (the person
// has now allowed running them as they are).
func RunsOf(parts []action.Part) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p.Runs...)
	}
	return out
}
