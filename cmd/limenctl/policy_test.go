package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/limenhq/limen/internal/limentest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// polDaemon runs a real limend on a temporary socket and returns a limenctl
// runner bound to it and an API client for setting the scene.
func polDaemon(t *testing.T) (run func(args ...string) (string, string, int), api *client.Client) {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t) }) // first registered, so it runs last
	l := limentest.Start(t)
	run = func(args ...string) (string, string, int) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := execute(append([]string{"--socket", l.Config.Socket}, args...), &out, &errOut)
		return out.String(), errOut.String(), code
	}
	return run, l.Client
}

func polCurrent(t *testing.T, api *client.Client) *limenv1.Policy {
	t.Helper()
	resp, err := api.API.GetPolicy(t.Context(), &limenv1.GetPolicyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return resp.GetPolicy()
}

func polSet(t *testing.T, api *client.Client, doc string) {
	t.Helper()
	if _, err := api.API.SetPolicy(t.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: polCurrent(t, api).GetVersion(), Document: doc}); err != nil {
		t.Fatal(err)
	}
}

func polWriteFile(t *testing.T, name, content string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func polContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}

func TestPolicyShowListsClassesAndRules(t *testing.T) {
	run, _ := polDaemon(t)
	out, errOut, code := run("policy", "show")
	if code != exitOK {
		t.Fatalf("policy show: exit %d: %s", code, errOut)
	}
	polContains(t, "policy show", out, "policy version 1, set by limend",
		"destructive", "0.995", "RULE", "block  Bash(rm -rf /)", "block rules win over ask rules")
}

func TestPolicySetValidatesBeforeSending(t *testing.T) {
	run, api := polDaemon(t)
	bad := polWriteFile(t, "bad.toml", "[costs]\nallow = 0.0\n\n[rules]\nblock = [\"Bash(ls\"]\n", 0o600)
	_, errOut, code := run("policy", "set", bad)
	if code != exitRefused { // bad input, as limend's refusal of it would exit (README)
		t.Fatalf("set of an invalid policy: exit %d; want %d", code, exitRefused)
	}
	polContains(t, "stderr", errOut, "nothing was changed", "costs.allow", "rules.block[0]")
	if v := polCurrent(t, api).GetVersion(); v != 1 {
		t.Errorf("version after a refused set = %d; want 1", v)
	}
}

// A hand-written file replaces the policy: set lists what the new version
// no longer has, and an empty file keeps the shipped protections.
func TestPolicySetListsWhatItDrops(t *testing.T) {
	run, api := polDaemon(t)
	withLs := polWriteFile(t, "ls.toml", "[rules]\nallow = [\"Bash(ls)\"]\n", 0o600)
	if _, errOut, code := run("policy", "set", withLs); code != exitOK {
		t.Fatalf("set: exit %d: %s", code, errOut)
	}
	costsOnly := polWriteFile(t, "costs.toml", "[costs]\nallow = 30.0\n", 0o600)
	// Dropping the rule in force is refused, and said, until --replace.
	_, errOut, code := run("policy", "set", costsOnly)
	if code != exitUsage {
		t.Fatalf("set of a file that drops a rule: exit %d; want %d", code, exitUsage)
	}
	polContains(t, "refused set", errOut, "would drop what policy version 2 has, so nothing was changed", "rules.allow Bash(ls)", "pass --replace")
	if v := polCurrent(t, api).GetVersion(); v != 2 {
		t.Errorf("version after a refused set = %d; want 2", v)
	}
	out, errOut, code := run("policy", "set", "--replace", costsOnly)
	if code != exitOK {
		t.Fatalf("set: exit %d: %s", code, errOut)
	}
	polContains(t, "set of a costs-only file", out, "dropped: rules.allow Bash(ls)")
	if strings.Contains(out, "dropped: rules.block") || strings.Contains(out, "dropped: class") {
		t.Errorf("a file without [rules] or classes dropped shipped ones:\n%s", out)
	}
	if out, _, _ := run("decide", "rm", "-rf", "/"); !strings.Contains(out, "block") {
		t.Errorf("after a costs-only file, rm -rf / is no longer blocked:\n%s", out)
	}
	// The exported document says what it leaves out, once, however often
	// it goes round.
	for range 2 {
		doc, _, _ := run("policy", "show", "--document")
		if strings.Count(doc, "leaves out rules.allow, rules.ask, rules.block, class: the shipped ones apply") != 1 {
			t.Fatalf("show --document of a costs-only policy:\n%s", doc)
		}
		if _, errOut, code := run("policy", "set", polWriteFile(t, "again.toml", doc, 0o600)); code != exitOK {
			t.Fatalf("set it back: exit %d: %s", code, errOut)
		}
	}
}

// polEditor writes an $EDITOR that runs body with the file as $1 and
// counts its runs in $EDIT_DIR/count, keeping a copy of each file it was
// given as seen.N.
func polEditor(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("EDIT_DIR", dir)
	t.Setenv("VISUAL", "")
	script := `#!/bin/sh
set -e
n=$(cat "$EDIT_DIR/count" 2>/dev/null || echo 0)
n=$((n+1))
echo $n > "$EDIT_DIR/count"
cp "$1" "$EDIT_DIR/seen.$n"
` + body + "\n"
	path := polWriteFile(t, "editor.sh", script, 0o755)
	t.Setenv("EDITOR", path)
	return dir
}

func TestPolicyEdit(t *testing.T) {
	t.Run("loops on mistakes until the document is valid", func(t *testing.T) {
		run, api := polDaemon(t)
		dir := polEditor(t, `case $n in
1) sed -i 's/^allow = 20.0/allow = -1.0/' "$1" ;;
2) sed -i 's/^allow = -1.0/allow = 30.0/' "$1" ;;
esac`)
		out, errOut, code := run("policy", "edit")
		if code != exitOK {
			t.Fatalf("edit: exit %d: %s", code, errOut)
		}
		polContains(t, "stderr", errOut, "the policy has mistakes; opening it again", "costs.allow")
		second, _ := os.ReadFile(filepath.Join(dir, "seen.2"))
		polContains(t, "the second file the editor saw", string(second), notePrefix+"this policy was NOT set", "costs.allow must be a positive")
		polContains(t, "stdout", out, "policy is now version 2 (was 1)")
		p := polCurrent(t, api)
		if !strings.Contains(p.GetDocument(), "allow = 30.0") || strings.Contains(p.GetDocument(), notePrefix) {
			t.Errorf("stored document lacks the fix or keeps limenctl's note:\n%s", p.GetDocument()[:300])
		}
	})
	t.Run("no changes sets nothing", func(t *testing.T) {
		run, api := polDaemon(t)
		polEditor(t, "true")
		out, _, code := run("policy", "edit")
		if code != exitOK || !strings.Contains(out, "no changes") || polCurrent(t, api).GetVersion() != 1 {
			t.Errorf("edit without changes: exit %d, %q, version %d", code, out, polCurrent(t, api).GetVersion())
		}
	})
	t.Run("giving up on mistakes keeps the edit and sets nothing", func(t *testing.T) {
		run, api := polDaemon(t)
		polEditor(t, `sed -i 's/^allow = 20.0/allow = -1.0/' "$1"`)
		_, errOut, code := run("policy", "edit")
		if code != exitFailure {
			t.Fatalf("edit: exit %d; want %d", code, exitFailure)
		}
		polContains(t, "stderr", errOut, "still has mistakes, so nothing was set", "costs.allow")
		kept := errOut[strings.Index(errOut, "kept in ")+len("kept in "):]
		kept = kept[:strings.IndexByte(kept, ':')]
		defer os.Remove(kept)
		if b, err := os.ReadFile(kept); err != nil || !strings.Contains(string(b), "allow = -1.0") {
			t.Errorf("kept file %q: %v", kept, err)
		}
		if v := polCurrent(t, api).GetVersion(); v != 1 {
			t.Errorf("version = %d; want 1", v)
		}
	})
	t.Run("a change made meanwhile wins; the edit is refused and kept", func(t *testing.T) {
		run, api := polDaemon(t)
		dir := polEditor(t, `echo editing > "$EDIT_DIR/started"
cat "$EDIT_DIR/resume" > /dev/null
sed -i 's/^allow = 20.0/allow = 25.0/' "$1"`)
		for _, fifo := range []string{"started", "resume"} {
			if err := syscall.Mkfifo(filepath.Join(dir, fifo), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		type result struct {
			errOut string
			code   int
		}
		done := make(chan result, 1)
		go func() {
			_, errOut, code := run("policy", "edit")
			done <- result{errOut, code}
		}()
		// Opening a FIFO blocks until the other side opens it: no sleeps.
		if _, err := os.ReadFile(filepath.Join(dir, "started")); err != nil {
			t.Fatal(err)
		}
		polSet(t, api, strings.Replace(policy.DefaultDocument, "ask = 1.0 ", "ask = 2.0 ", 1))
		if err := os.WriteFile(filepath.Join(dir, "resume"), []byte("go\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := <-done
		if r.code != exitRefused {
			t.Fatalf("edit over a concurrent change: exit %d: %s", r.code, r.errOut)
		}
		polContains(t, "stderr", r.errOut, "someone changed the policy since you opened version 1", "nothing was set", "limenctl policy diff")
		kept := r.errOut[strings.Index(r.errOut, "kept in ")+len("kept in "):]
		os.Remove(kept[:strings.IndexByte(kept, ' ')])
		if p := polCurrent(t, api); p.GetVersion() != 2 || strings.Contains(p.GetDocument(), "allow = 25.0") {
			t.Errorf("in force: v%d; want the other change (v2), without this edit", p.GetVersion())
		}
	})
}

func TestPolicyExplain(t *testing.T) {
	run, api := polDaemon(t)
	// p comes from the predictor's prior, which is not this test's to pin:
	// read it from a dry run and check that explain prints it and the
	// arithmetic that follows from it.
	p := func(a *limenv1.Action) float64 {
		resp, err := api.API.Decide(t.Context(), &limenv1.DecideRequest{Action: a, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		return resp.GetDecision().GetP()
	}
	cwd, _ := os.Getwd()
	gitStatus := p(&limenv1.Action{Tool: "Bash", InputJson: `{"command":"git status"}`, Cwd: cwd})
	envRead := p(&limenv1.Action{Tool: "Read", InputJson: `{"file_path":".env"}`, Cwd: "/srv/shop"})
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"prediction", []string{"git", "status"}, []string{
			"(decided by prediction, policy v1)",
			"   PART        CLASS      VERDICT  P      KEY", fmt.Sprintf("▶  git status  read-only  ask      %.3f  Bash:git status", gitStatus),
			"risk class     read-only: C_allow 20, C_block 2, C_ask 1",
			fmt.Sprintf("p(approve)     %.3f", gitStatus), "thresholds     block below 0.500, allow above 0.950",
			fmt.Sprintf("allow  (1-p)·C_allow  = %.3f × 20  = %.3f", 1-gitStatus, (1-gitStatus)*20),
			fmt.Sprintf("block  p·C_block      = %.3f × 2   = %.3f", gitStatus, gitStatus*2),
			"← chosen", "why: ",
		}},
		{"rule", []string{"rm -rf /"}, []string{
			"verdict  block  (decided by rule, policy v1)", "block Bash(rm -rf /)", "why: a hard rule decides before any cost is weighed",
		}},
		{"compound", []string{"ls -la && rm -rf build"}, []string{
			"ls -la        read-only", "rm -rf build  destructive", "the action gets the most cautious verdict of its parts",
		}},
		{"a compound command with one part blocked", []string{"ls && rm -rf /"}, []string{
			"verdict  block  (decided by rule, policy v1)", "ls        read-only    -        -  Bash:ls        -", "▶  rm -rf /  destructive  block    -  Bash:rm -rf /  block Bash(rm -rf /)",
		}},
		{"file tool", []string{"--tool", "Read", "--input", `{"file_path":".env"}`, "--cwd", "/srv/shop"}, []string{
			"/srv/shop/.env  secrets", "C_allow 100", fmt.Sprintf("= %.3f × 100", 1-envRead),
		}},
		{"flags after the command are the command's", []string{"--user", "bob", "git", "push", "--force"}, []string{
			"git push --force", "destructive",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(append([]string{"policy", "explain"}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("explain: exit %d: %s", code, errOut)
			}
			polContains(t, "explain", out, tt.want...)
		})
	}

	out, _, code := run("--json", "policy", "explain", "git", "push", "--force")
	var ex struct {
		Decision struct {
			Verdict string `json:"verdict"`
		} `json:"decision"`
		Parts    []partView    `json:"parts"`
		Expected *verdictCosts `json:"expected_cost"`
		Cheapest string        `json:"cheapest"`
	}
	if err := json.Unmarshal([]byte(out), &ex); code != exitOK || err != nil {
		t.Fatalf("explain --json: exit %d, %v:\n%s", code, err, out)
	}
	if ex.Decision.Verdict != "VERDICT_ASK" || ex.Cheapest != "ask" || ex.Expected == nil || ex.Expected.Ask != 1 || len(ex.Parts) != 1 || ex.Parts[0].Class != "destructive" {
		t.Errorf("explain --json = %+v", ex)
	}

	// A dry run: nothing recorded, nothing queued.
	h, err := api.API.History(t.Context(), &limenv1.HistoryRequest{})
	if err != nil || len(h.GetDecisions()) != 0 {
		t.Errorf("history after explain: %d decisions, %v; want none", len(h.GetDecisions()), err)
	}
	if _, errOut, code := run("policy", "explain"); code != exitUsage || !strings.Contains(errOut, "nothing to explain") {
		t.Errorf("explain without an action: exit %d, %s", code, errOut)
	}
}

func TestPolicyHistoryDiffRollback(t *testing.T) {
	run, api := polDaemon(t)
	v1 := polCurrent(t, api).GetDocument()
	if out, _, _ := run("policy", "diff"); !strings.Contains(out, "only version 1 exists") {
		t.Errorf("diff with one version: %q", out)
	}
	if _, errOut, code := run("policy", "set", "--costs", "allow=40"); code != exitOK {
		t.Fatalf("set --costs: exit %d: %s", code, errOut)
	}

	out, _, code := run("policy", "history")
	if code != exitOK {
		t.Fatalf("history: exit %d", code)
	}
	polContains(t, "history", out, "VERSION", "first version", "+1 -1 lines  (in force)")

	out, _, _ = run("policy", "diff")
	polContains(t, "diff", out, "--- policy v1 (set by limend", "+++ policy v2 (set by", "@@ -14,7 +14,7 @@", "-allow = 20.0", "+allow = 40  # a wrong allow: something ran that you would have refused", " [costs]")

	out, errOut, code := run("policy", "rollback", "1")
	if code != exitOK {
		t.Fatalf("rollback: exit %d: %s", code, errOut)
	}
	polContains(t, "rollback", out, "policy is now version 3: the document of policy v1", "(+1 -1 lines from v2)")
	if p := polCurrent(t, api); p.GetVersion() != 3 || p.GetDocument() != v1 {
		t.Errorf("after rollback 1: v%d, document of v1: %v", p.GetVersion(), p.GetDocument() == v1)
	}
	if out, _, _ := run("policy", "diff", "1", "3"); !strings.Contains(out, "versions 1 and 3 have the same document") {
		t.Errorf("diff 1 3: %q", out)
	}
	if out, _, _ := run("policy", "rollback", "v3"); !strings.Contains(out, "version 3 is the one in force") {
		t.Errorf("rollback to the version in force: %q", out)
	}
	if out, _, _ := run("policy", "rollback", "1"); !strings.Contains(out, "same document as version 3") {
		t.Errorf("rollback to a version with the same document: %q", out)
	}
	if _, errOut, code := run("policy", "rollback", "99"); code != exitRefused || !strings.Contains(errOut, "there is no policy version 99: the versions are 1 to 3") {
		t.Errorf("rollback 99: exit %d, %s", code, errOut)
	}
	if _, errOut, code := run("policy", "diff", "x"); code != exitUsage || !strings.Contains(errOut, `"x" is not a policy version`) {
		t.Errorf("diff x: exit %d, %s", code, errOut)
	}
}

func TestPolicySimulate(t *testing.T) {
	run, api := polDaemon(t)
	if out, _, _ := run("policy", "simulate", polWriteFile(t, "p.toml", policy.DefaultDocument, 0o600)); !strings.Contains(out, "no decisions recorded yet") {
		t.Errorf("simulate on an empty log: %q", out)
	}
	for _, cmd := range []string{"git status", "make build", "rm -rf /", "npm run test"} {
		if _, errOut, code := run("decide", "--user", "ana", cmd); code != exitOK && code != exitAsk && code != exitBlock {
			t.Fatalf("decide %s: exit %d: %s", cmd, code, errOut)
		}
	}
	candidate := strings.Replace(policy.DefaultDocument, "allow = []", `allow = ["Bash(npm run test)", "Bash(git status)"]`, 1)
	file := polWriteFile(t, "candidate.toml", candidate, 0o600)

	out, errOut, code := run("policy", "simulate", file)
	if code != exitOK {
		t.Fatalf("simulate: exit %d: %s", code, errOut)
	}
	polContains(t, "simulate", out, "replayed 4 recorded decisions", "CURRENT (v1)", "CANDIDATE", "the candidate costs")
	// The table holds what the API says, row by row.
	sim, err := api.API.SimulatePolicy(t.Context(), &limenv1.SimulatePolicyRequest{Document: candidate})
	if err != nil {
		t.Fatal(err)
	}
	cur, cand := sim.GetCurrent(), sim.GetCandidate()
	for _, row := range []struct {
		name     string
		cur, can string
	}{
		{"allows", fmt.Sprint(cur.GetAllows()), fmt.Sprint(cand.GetAllows())},
		{"asks", fmt.Sprint(cur.GetAsks()), fmt.Sprint(cand.GetAsks())},
		{"blocks", fmt.Sprint(cur.GetBlocks()), fmt.Sprint(cand.GetBlocks())},
		{"estimated wrong allows", fmt.Sprintf("%.2f", cur.GetEstimatedWrongAllows()), fmt.Sprintf("%.2f", cand.GetEstimatedWrongAllows())},
		{"estimated wrong blocks", fmt.Sprintf("%.2f", cur.GetEstimatedWrongBlocks()), fmt.Sprintf("%.2f", cand.GetEstimatedWrongBlocks())},
		{"expected cost", fmt.Sprintf("%.2f", cur.GetExpectedCost()), fmt.Sprintf("%.2f", cand.GetExpectedCost())},
	} {
		var fields []string
		for _, line := range strings.Split(out, "\n") {
			if rest, ok := strings.CutPrefix(line, row.name+"  "); ok {
				fields = strings.Fields(rest)
			}
		}
		if len(fields) != 3 || fields[0] != row.cur || fields[1] != row.can {
			t.Errorf("row %q = %q; want %s and %s (then the change)", row.name, fields, row.cur, row.can)
		}
	}
	if cand.GetAllows() < 2 {
		t.Errorf("the candidate has two allow rules for recorded actions, yet allows %d", cand.GetAllows())
	}

	out, _, _ = run("--json", "policy", "simulate", file)
	var got map[string]map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil || got["candidate"]["allows"] != fmt.Sprint(cand.GetAllows()) {
		t.Errorf("simulate --json: %v\n%s", err, out)
	}
	if v := polCurrent(t, api).GetVersion(); v != 1 {
		t.Errorf("simulate changed the policy to v%d", v)
	}
	bad := polWriteFile(t, "bad.toml", "[costs]\nblock = -1.0\n", 0o600)
	if _, errOut, code := run("policy", "simulate", bad); code != exitRefused || !strings.Contains(errOut, "costs.block") {
		t.Errorf("simulate of an invalid policy: exit %d: %s", code, errOut)
	}
}

func TestPolicyImportClaude(t *testing.T) {
	run, api := polDaemon(t)
	settings := filepath.Join("..", "..", "policy", "testdata", "claude-settings.json")
	out, errOut, code := run("policy", "import-claude", settings)
	if code != exitOK {
		t.Fatalf("import-claude: exit %d: %s", code, errOut)
	}
	polContains(t, "import-claude", out, "added to  rules.allow  Bash(gh:*)", "rules.allow  WebFetch(domain:github.com)",
		"policy is now version 2 (was 1); undo with limenctl policy rollback 1")
	p := polCurrent(t, api)
	pol, err := policy.Parse(p.GetDocument())
	if err != nil {
		t.Fatalf("imported policy does not parse: %v", err)
	}
	if shipped := len(policy.Default().Block); len(pol.Allow) != 6 || len(pol.Block) != shipped {
		t.Errorf("after import: %d allow rules, %d block rules; want 6 and the %d shipped", len(pol.Allow), len(pol.Block), shipped)
	}
	polContains(t, "imported document", p.GetDocument(), "# Hard rules, in Claude Code's permission syntax", "# Risk classes: each has its own costs")

	out, _, _ = run("policy", "import-claude", settings)
	polContains(t, "second import", out, "already in  rules.allow  Bash(gh:*)", "nothing to change; the policy stays at version 2")

	mixed := polWriteFile(t, "settings.json", `{"permissions": {"allow": ["Bash(ls", "Read(/src/**)"], "deny": ["Bash(curl:*)"]}}`, 0o600)
	out, _, _ = run("policy", "import-claude", "--dry-run", mixed)
	polContains(t, "dry run", out, "added to  rules.block  Bash(curl:*)", `refused: permissions.allow[0] "Bash(ls": missing ")"`,
		"note: Read(/src/**): limen reads /path as absolute", "dry run: nothing was set; the policy stays at version 2")
	if v := polCurrent(t, api).GetVersion(); v != 2 {
		t.Errorf("dry run changed the policy to v%d", v)
	}
	// Replacing the lists keeps the shipped block rules: an agent must not
	// be able to answer its own asks because a settings file was imported.
	out, _, _ = run("policy", "import-claude", "--merge=false", mixed)
	shipped := patterns(policy.Default().Block)
	polContains(t, "replace", out, "removed from  rules.allow  Bash(gh:*)", fmt.Sprintf("kept %d shipped block rules", len(shipped)), "policy is now version 3")
	if strings.Contains(out, "removed from  rules.block") {
		t.Errorf("--merge=false dropped shipped block rules:\n%s", out)
	}
	pol, _ = policy.Parse(polCurrent(t, api).GetDocument())
	if got := patterns(pol.Block); !slices.Equal(got, append(shipped, "Bash(curl:*)")) || len(pol.Allow) != 1 {
		t.Errorf("after --merge=false: block %q, allow %q; want the shipped block rules and Bash(curl:*)", got, patterns(pol.Allow))
	}

	notSettings := polWriteFile(t, "x.json", `{"permissions": {"allow": "Bash"}}`, 0o600)
	if _, errOut, code := run("policy", "import-claude", notSettings); code != exitUsage || !strings.Contains(errOut, "is not a Claude Code settings file") {
		t.Errorf("import of a malformed file: exit %d: %s", code, errOut)
	}
}

// TestExplainWhy pins the reasoning explain prints for each way a verdict
// comes about, on decisions made up here, so that it does not depend on
// what the predictor says.
func TestExplainWhy(t *testing.T) {
	pol := &limenv1.Policy{Version: 1, Document: policy.DefaultDocument}
	bash := func(cmd string) *limenv1.Action {
		return &limenv1.Action{User: "ana", Tool: "Bash", InputJson: `{"command":"` + cmd + `"}`, Cwd: "/home/ana/shop"}
	}
	pred := func(cmd, class string, p float64, v limenv1.Verdict, reason string) *limenv1.Decision {
		return &limenv1.Decision{Action: bash(cmd), Verdict: v, P: p, RiskClass: class, DecidedBy: limenv1.Decider_DECIDER_PREDICTION, Reason: reason}
	}
	ask, allow, block := limenv1.Verdict_VERDICT_ASK, limenv1.Verdict_VERDICT_ALLOW, limenv1.Verdict_VERDICT_BLOCK
	tests := []struct {
		name     string
		d        *limenv1.Decision
		cheapest string
		why      string
	}{
		{"a tie at the allow threshold goes to ask", pred("git status", "read-only", 0.95, ask, ""), "ask",
			"ask and allow cost the same (1.000), and ties go to ask: a person decides"},
		{"ask is cheapest", pred("git push --force", "destructive", 0.8, ask, ""), "ask",
			"ask costs 1.000, less than allow (40.000) and block (1.600)"},
		{"allow is cheapest", pred("make build", "unknown", 0.99, allow, ""), "allow",
			"allow costs 0.200, less than ask (1.000) and block (1.980)"},
		{"block is cheapest", pred("make build", "unknown", 0.1, block, ""), "block",
			"block costs 0.200, less than allow (18.000) and ask (1.000)"},
		{"an unparsable command is asked even when allow is cheapest", pred("ls", "read-only", 0.99, ask, "limen could not parse this command"), "allow",
			"allow would be the cheapest (0.200), but ask: limen could not parse this command"},
		{"a compound action says which part decided", pred("ls && rm -rf build", "destructive", 0.8, ask, ""), "ask",
			"ask costs 1.000, less than allow (40.000) and block (1.600); the action gets the most cautious verdict of its parts, and this part decided it"},
		{"a rule", &limenv1.Decision{Action: bash("rm -rf /"), Verdict: block, DecidedBy: limenv1.Decider_DECIDER_RULE}, "",
			"a hard rule decides before any cost is weighed: block rules win over ask rules, ask rules over allow rules, and allow rules over the prediction"},
		{"a session grant", &limenv1.Decision{Action: bash("make"), Verdict: allow, DecidedBy: limenv1.Decider_DECIDER_HUMAN}, "",
			"a person already approved this action for the session"},
		{"the failsafe", &limenv1.Decision{Action: bash("make"), Verdict: ask, DecidedBy: limenv1.Decider_DECIDER_FAILSAFE, Reason: "the prediction took longer than 20ms"}, "",
			"nothing was weighed: the prediction took longer than 20ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := explain(tt.d, pol)
			if ex.Why != tt.why || ex.Cheapest != tt.cheapest {
				t.Errorf("explain: cheapest %q, why %q\nwant %q, %q", ex.Cheapest, ex.Why, tt.cheapest, tt.why)
			}
		})
	}
	if ex := explain(pred("ls", "read-only", 0.9, ask, ""), &limenv1.Policy{Document: "[costs\n"}); !strings.Contains(ex.Why, "does not parse") {
		t.Errorf("explain under a broken policy: %q", ex.Why)
	}
}

// status --json carries what its table shows, the thresholds per class
// included.
func TestStatusJSONHasTheClasses(t *testing.T) {
	run, _ := polDaemon(t)
	out, errOut, code := run("--json", "status")
	if code != exitOK {
		t.Fatalf("status --json: exit %d: %s", code, errOut)
	}
	var st struct {
		Classes []struct {
			Name       string  `json:"name"`
			AllowAbove float64 `json:"allow_above"`
			BlockBelow float64 `json:"block_below"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json is not JSON: %v\n%s", err, out)
	}
	if len(st.Classes) != len(policy.Default().Classes) || st.Classes[len(st.Classes)-1].Name != policy.UnknownClass ||
		st.Classes[len(st.Classes)-1].AllowAbove != 0.95 || st.Classes[len(st.Classes)-1].BlockBelow != 0.5 {
		t.Errorf("classes = %+v; want the default policy's, unknown last at 0.5/0.95", st.Classes)
	}
}
