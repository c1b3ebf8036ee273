package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
)

// learner is a real estimator and the engine deciding on it.
type learner struct {
	t   *testing.T
	est *predictor.Estimator
	pol *policy.Policy
	now time.Time
}

func newLearner(t *testing.T) *learner {
	pol, err := policy.Parse(strings.Replace(policy.DefaultDocument, "exploration = 0.01", "exploration = 0.0", 1))
	if err != nil {
		t.Fatal(err)
	}
	pol.PredictTimeout = 10 * time.Second
	return &learner{t: t, est: predictor.NewEstimator(predictor.DefaultConfig()), pol: pol, now: time.Unix(1_800_000_000, 0)}
}

func (l *learner) parts(user, cmd string) []action.Part {
	return action.Parts(action.Action{User: user, Tool: "Bash", Input: map[string]any{"command": cmd}, Cwd: "/home/" + user + "/shop"})
}

func (l *learner) decide(user, cmd string) Result {
	l.t.Helper()
	predict := func(_ context.Context, ls []action.Ladder) ([]predictor.Prediction, error) {
		return l.est.PredictEach(user, ls, l.now), nil
	}
	return Decide(l.t.Context(), Input{Parts: l.parts(user, cmd), Policy: l.pol, Draw: 1}, predict)
}

func (l *learner) answer(user, cmd string, approve bool) {
	ps := l.parts(user, cmd)
	ls := make([]action.Ladder, len(ps))
	for i, p := range ps {
		ls[i] = p.Keys
	}
	l.now = l.now.Add(time.Minute)
	l.est.Observe(user, ls, approve, l.now)
}

// ordinary approves about 150 ordinary commands, among them 60 programs
// each approved the first time it was seen: a person who says yes to new
// programs.
func (l *learner) ordinary(user string) {
	progs := []string{"jq", "tree", "du", "df", "date", "whoami", "uname", "which", "sort", "uniq", "diff",
		"tail", "file", "stat", "basename", "dirname", "realpath", "hostname", "id", "uptime", "free", "lsof",
		"tsc", "eslint", "prettier", "pytest", "cargo", "gofmt", "seq", "base64", "sha256sum", "md5sum", "xxd",
		"column", "cut", "gzip", "zip", "unzip", "true", "sleep", "nproc", "tput", "cal", "bc", "wc", "head",
		"grep", "ls", "cat", "echo", "pwd", "touch", "mkdir", "cp", "mv", "make", "go", "npm", "git", "rm"}
	n := 0
	for round := 0; n < 150; round++ {
		for _, p := range progs {
			if n >= 150 {
				break
			}
			l.answer(user, fmt.Sprintf("%s file%d.txt", p, round), true)
			n++
		}
	}
}

func TestNewProgramIsNotAllowedOnTheRootRate(t *testing.T) {
	l := newLearner(t)
	l.ordinary("ana")
	// The history is one that allows: a known program with new arguments is.
	if r := l.decide("ana", "jq . other.json"); r.Verdict != policy.Allow {
		t.Fatalf("jq . other.json after approving jq: %v (%s); want allow", r.Verdict, r.Reason)
	}
	for _, cmd := range []string{"newtool", "frobnicate --all", "shred main.go", "terraform apply", "./deploy.sh", "nc -l 4444"} {
		r := l.decide("ana", cmd)
		if r.Verdict == policy.Allow {
			t.Errorf("%s, a program ana never answered: allowed (%s)", cmd, r.Reason)
		}
		if r.Prediction.P <= r.Thresholds.AllowAbove {
			t.Logf("%s: p=%.3f is below the allow threshold by itself; the test checks the gate only when p is above", cmd, r.Prediction.P)
		}
	}
	// Once ana has answered the program, her answers speak for it.
	l.answer("ana", "newtool", true)
	l.answer("ana", "newtool", true)
	if r := l.decide("ana", "newtool"); r.Verdict != policy.Allow {
		t.Errorf("newtool after ana approved it twice: %v (%s); want allow", r.Verdict, r.Reason)
	}
}

func TestRiskMarksNeedTheirOwnAnswers(t *testing.T) {
	l := newLearner(t)
	l.ordinary("ana")
	for i := range 30 {
		l.answer("ana", fmt.Sprintf("rm notes%d.txt", i), true)
	}
	r := l.decide("ana", "rm -rf ~/projects")
	if r.Verdict == policy.Allow {
		t.Fatalf("rm -rf after approving only rm of files: allowed (%s)", r.Reason)
	}
	// The same in a class whose threshold alone would let it through.
	for i := range 30 {
		l.answer("ana", fmt.Sprintf("kill %d", 100+i), true)
	}
	if r := l.decide("ana", "kill -9 1"); r.Verdict == policy.Allow {
		t.Errorf("kill -9 after approving only kill: allowed (%s)", r.Reason)
	}
	if r := l.decide("ana", "rm notes99.txt"); r.Verdict != policy.Allow {
		t.Errorf("rm of a file after 30 approvals of it: %v (%s); want allow", r.Verdict, r.Reason)
	}
}

func TestOpaqueNeedsTheSamePersonsExactApproval(t *testing.T) {
	l := newLearner(t)
	l.ordinary("ana")
	l.ordinary("bob")
	const code = `python3 -c 'print(sum(range(10)))'`
	if r := l.decide("ana", code); r.Verdict == policy.Allow {
		t.Fatalf("opaque %s before any answer: allowed (%s)", code, r.Reason)
	}
	// Someone else's approvals vouch for nothing.
	for range 5 {
		l.answer("bob", code, true)
	}
	if r := l.decide("ana", code); r.Verdict == policy.Allow {
		t.Fatalf("opaque %s approved only by bob: allowed for ana (%s)", code, r.Reason)
	}
	// Nor do ana's approvals of other opaque texts.
	for i := range 20 {
		l.answer("ana", fmt.Sprintf(`python3 -c 'print(%d)'`, i), true)
	}
	r := l.decide("ana", code)
	if r.Verdict == policy.Allow {
		t.Fatalf("opaque %s after ana approved other code: allowed (%s)", code, r.Reason)
	}
	if !strings.Contains(r.Reason, "exact") && r.Prediction.P > r.Thresholds.AllowAbove {
		t.Errorf("reason %q does not say that only an exact approval allows it", r.Reason)
	}
	// Her own approval of this very text does.
	l.answer("ana", code, true)
	l.answer("ana", code, true)
	if r := l.decide("ana", code); r.Verdict != policy.Allow {
		t.Fatalf("opaque %s after ana approved it twice: %v (%s); want allow", code, r.Verdict, r.Reason)
	}
	// A refusal of it takes that back.
	l.answer("ana", code, false)
	if r := l.decide("ana", code); r.Verdict == policy.Allow {
		t.Errorf("opaque %s after ana refused it: allowed (%s)", code, r.Reason)
	}
	// The exact text is the whole command: the same code in another
	// command line is not it.
	if r := l.decide("ana", "cd src && "+code); r.Verdict == policy.Allow {
		t.Errorf("cd src && %s: allowed on the approval of another command line (%s)", code, r.Reason)
	}
}

func TestOpaqueIsNotBlockedOnOtherRefusals(t *testing.T) {
	l := newLearner(t)
	for i := range 20 {
		l.answer("ana", fmt.Sprintf(`python3 -c 'print(%d)'`, i), false)
	}
	const code = `python3 -c 'print("new")'`
	if r := l.decide("ana", code); r.Verdict != policy.Ask {
		t.Errorf("opaque %s after refusals of other code: %v (%s); want ask", code, r.Verdict, r.Reason)
	}
	l.answer("ana", code, false)
	l.answer("ana", code, false)
	if r := l.decide("ana", code); r.Verdict != policy.Block {
		t.Errorf("opaque %s after ana refused it twice: %v (%s); want block", code, r.Verdict, r.Reason)
	}
}

// A prediction blocks only on the person's own repeated, consistent
// refusals (docs/policy.md, "When a prediction blocks"): a block asks
// nobody, so a wrong one would never heal.
func TestBlockNeedsOwnRepeatedRefusals(t *testing.T) {
	l := newLearner(t)
	l.ordinary("ana")
	l.ordinary("bob")
	wantVerdict := func(when, user, cmd string, want policy.Verdict) {
		t.Helper()
		if r := l.decide(user, cmd); r.Verdict != want {
			t.Errorf("%s: %s for %s is %v (%s); want %v", when, cmd, user, r.Verdict, r.Reason, want)
		}
	}
	// One refusal of ls -la /etc blocks nothing, not even itself.
	l.answer("ana", "ls -la /etc", false)
	for _, cmd := range []string{"ls -la /etc", "ls", "ls -la /var"} {
		wantVerdict("after one refusal of ls -la /etc", "ana", cmd, policy.Ask)
	}
	// Other people's refusals block nothing for ana.
	for range 3 {
		l.answer("bob", "make deploy", false)
	}
	for _, cmd := range []string{"make test", "make deploy"} {
		if r := l.decide("ana", cmd); r.Verdict == policy.Block {
			t.Errorf("after bob refused make deploy: %s for ana is blocked (%s)", cmd, r.Reason)
		}
	}
	// Her own two refusals of the same key do.
	l.answer("ana", "terraform apply", false)
	l.answer("ana", "terraform apply", false)
	wantVerdict("after ana refused terraform apply twice", "ana", "terraform apply", policy.Block)
	// Two refusals of other actions like it do not refuse a third: a new
	// user denied two reads and found every read blocked.
	l.answer("ana", "ffmpeg -i talk.mp4 talk.mp3", false)
	l.answer("ana", "ffmpeg -i demo.mp4 demo.gif", false)
	for _, cmd := range []string{"ffmpeg -i intro.mp4 intro.mp3", "ffmpeg -version"} {
		wantVerdict("after two refused ffmpeg runs on other files", "ana", cmd, policy.Ask)
	}
	wantVerdict("after ana refused ffmpeg -i talk.mp4 talk.mp3 once", "ana", "ffmpeg -i talk.mp4 talk.mp3", policy.Ask)
	// Refusals mixed with approvals do not.
	l.answer("ana", "docker compose up", true)
	l.answer("ana", "docker compose up", false)
	l.answer("ana", "docker compose up", false)
	if r := l.decide("ana", "docker compose up"); r.Verdict == policy.Block {
		t.Errorf("docker compose up after one approval and two refusals: blocked (%s); want ask or allow", r.Reason)
	}
}

// Refusing a risky variant does not make the program refused: after two
// refusals of uploads with curl, an ordinary curl is asked, not blocked.
func TestRiskyVariantRefusalsDoNotBlockTheProgram(t *testing.T) {
	l := newLearner(t)
	l.ordinary("ana")
	l.answer("ana", "curl -d @report.txt https://paste.example", false)
	l.answer("ana", "curl -d @notes.txt https://paste.example", false)
	r := l.decide("ana", "curl -s https://api.github.com/repos/golang/go")
	if r.Verdict != policy.Ask || !strings.Contains(r.Reason, "riskier variants") {
		t.Fatalf("curl -s after two refused uploads: %v (%s); want ask, since only riskier variants were refused", r.Verdict, r.Reason)
	}
	// The uploads themselves, refused twice at their marked key (the same
	// host), are blocked; to a host not refused, they are asked.
	if r := l.decide("ana", "curl -d @draft.txt https://other.example"); r.Verdict != policy.Ask {
		t.Errorf("an upload to another host after two refused uploads: %v (%s); want ask", r.Verdict, r.Reason)
	}
	if r := l.decide("ana", "curl -d @draft.txt https://paste.example"); r.Verdict != policy.Block {
		t.Errorf("another upload after two refused uploads: %v (%s); want block", r.Verdict, r.Reason)
	}
}
