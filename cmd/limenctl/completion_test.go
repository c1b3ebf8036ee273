package main

import (
	"strings"
	"testing"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestDynamicCompletion: completing an ask id offers the asks pending in
// the real limend, with what each asks about; a policy version offers the
// stored versions; hook install offers the runtimes; with limend down
// nothing is offered and no file names either.
func TestDynamicCompletion(t *testing.T) {
	run, api := polDaemon(t)
	resp, err := api.API.Decide(t.Context(), &limenv1.DecideRequest{Action: &limenv1.Action{
		Tool: "Bash", InputJson: `{"command":"terraform apply -auto-approve"}`, Cwd: "/home/ana/infra",
	}})
	if err != nil {
		t.Fatal(err)
	}
	id := resp.GetDecision().GetAskId()
	if id == "" {
		t.Fatalf("terraform apply was not asked: %v", resp.GetDecision())
	}
	polSet(t, api, polCurrent(t, api).GetDocument()+"\n# a second version\n")

	complete := func(args ...string) (lines []string, directive string) {
		t.Helper()
		out, errOut, code := run(append([]string{"__complete"}, args...)...)
		if code != exitOK {
			t.Fatalf("__complete %v = %d: %s", args, code, errOut)
		}
		lines = strings.Split(strings.TrimSpace(out), "\n")
		return lines[:len(lines)-1], lines[len(lines)-1]
	}
	const noFiles = ":4" // cobra.ShellCompDirectiveNoFileComp
	for _, cmd := range []string{"answer", "await"} {
		got, dir := complete(cmd, "")
		if len(got) != 1 || !strings.HasPrefix(got[0], id+"\t") || !strings.Contains(got[0], "terraform apply") || dir != noFiles {
			t.Errorf("completing `limenctl %s ` = %q %s; want ask %s with its action, no files", cmd, got, dir, id)
		}
	}
	if got, _ := complete("answer", id, ""); len(got) != 0 {
		t.Errorf("answer takes one id, but a second was offered: %q", got)
	}
	got, _ := complete("policy", "rollback", "")
	if len(got) != 2 || !strings.HasPrefix(got[0], "2\t") && !strings.HasPrefix(got[1], "2\t") {
		t.Errorf("completing `limenctl policy rollback ` = %q; want versions 1 and 2", got)
	}
	if got, _ := complete("hook", "install", ""); len(got) != 3 || !strings.HasPrefix(got[0], "claude-code\t") || !strings.HasPrefix(got[1], "codex\t") || !strings.HasPrefix(got[2], "gemini\t") {
		t.Errorf("completing `limenctl hook install ` = %q; want claude-code, codex and gemini", got)
	}

	// limend down: nothing, quickly, and still no file names.
	var out, errOut strings.Builder
	code := execute([]string{"--socket", t.TempDir() + "/none.sock", "__complete", "answer", ""}, &out, &errOut)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if code != exitOK || len(lines) != 1 || lines[0] != noFiles {
		t.Errorf("completing with limend down = %d %q; want only the no-files directive", code, out.String())
	}
}
