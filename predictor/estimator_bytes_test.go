package predictor

import (
	"fmt"
	"testing"
	"time"

	"github.com/limenhq/limen/action"
)

func asBytes(parts []action.Ladder) [][][]byte {
	out := make([][][]byte, len(parts))
	for i, l := range parts {
		for _, k := range l {
			out[i] = append(out[i], []byte(k))
		}
	}
	return out
}

// TestObserveBytesCountsAsObserve: two estimators fed the same answers,
// one as strings and one as bytes, hold the same counts and so predict
// the same, to the bit.
func TestObserveBytesCountsAsObserve(t *testing.T) {
	answers := synthAnswers(20_000, 300)
	byString, byBytes := NewEstimator(DefaultConfig()), NewEstimator(DefaultConfig())
	for i, a := range answers {
		parts, approved := a.ladders, a.approved
		if i%11 == 0 { // compound actions, some denied, some repeating a key
			parts = append(append([]action.Ladder{}, parts...), answers[(i*7)%len(answers)].ladders...)
			approved = i%3 != 0
		}
		byString.Observe(a.user, parts, approved, a.at)
		byBytes.ObserveBytes([]byte(a.user), asBytes(parts), approved, a.at)
	}
	if len(byString.keys) != len(byBytes.keys) || len(byString.users) != len(byBytes.users) {
		t.Fatalf("%d keys and %d users from strings, %d and %d from bytes",
			len(byString.keys), len(byString.users), len(byBytes.keys), len(byBytes.users))
	}
	now := answers[len(answers)-1].at.Add(time.Hour)
	for i := 0; i < len(answers); i += 7 {
		q := answers[i]
		user := q.user
		if i%5 == 0 {
			user = fmt.Sprintf("u%05d", i%400) // some unknown users
		}
		want, got := byString.PredictEach(user, q.ladders, now), byBytes.PredictEach(user, q.ladders, now)
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("answer %d part %d: from bytes %+v, from strings %+v", i, j, got[j], want[j])
			}
		}
	}
}

// TestObserveBytesCopiesOnlyNewKeys: replaying answers whose user and keys
// are known allocates nothing, and the estimator keeps no reference to the
// caller's bytes.
func TestObserveBytesCopiesOnlyNewKeys(t *testing.T) {
	e := NewEstimator(DefaultConfig())
	user := []byte("ana")
	parts := asBytes([]action.Ladder{{"Bash", "Bash:git", "Bash:git push"}, {"Bash", "Bash:make"}})
	e.ObserveBytes(user, parts, true, t0)
	if n := testing.AllocsPerRun(100, func() { e.ObserveBytes(user, parts, false, t0) }); n != 0 {
		t.Errorf("ObserveBytes of known keys allocates %v times", n)
	}
	before := e.Predict("ana", []action.Ladder{{"Bash", "Bash:git", "Bash:git push"}}, t0)
	user[0], parts[0][2][0] = 'X', 'X'
	if after := e.Predict("ana", []action.Ladder{{"Bash", "Bash:git", "Bash:git push"}}, t0); after != before {
		t.Errorf("changing the caller's bytes changed a prediction: %+v, then %+v", before, after)
	}
}
