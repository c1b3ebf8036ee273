package predictor

// Prediction is the approval probability of an action and the evidence
// behind it.
type Prediction struct {
	// P is the probability that the user approves, strictly between 0 and 1.
	P float64
	// Key is the most specific key of the part that decided P (for a
	// compound action, its least likely part).
	Key string
	// Level is the key on that part's ladder whose counts decided P.
	Level string
	// Approvals and Denials are the decayed counts seen at Level.
	Approvals, Denials float64
	// RiskyDenials is the part of Denials that refused a riskier variant
	// below Level (`rm -rf x` under `Bash:rm`), not Level itself.
	RiskyDenials float64
	// Effective is the weight of evidence behind P, prior included.
	Effective float64
	// Specific says some answer concerns this action's own kind: the
	// person's own answers to a key of its ladder below the tool, or
	// other people's answers to such a key when it was new to them.
	// Without it P rests only on general rates (how this person treats
	// new commands, say), which can say ask but are too thin to block on,
	// or to allow on: the root is no evidence about a program nobody
	// has answered.
	Specific bool
	// OwnDepth is the index on the ladder of the most specific key this
	// person has answered themselves; 0 when they answered nothing below
	// the root (or nothing at all).
	OwnDepth int
	// OwnExact says this person has approved the exact key and never
	// refused it: what an opaque part needs before it can be allowed.
	OwnExact bool
}
