package predictor

// The bounds of CheckedParts. They are far above Parts' (64 parts, 32 KiB,
// 3 levels of `bash -c`), and the action's input is at most 1 MiB (limend
// refuses more), so only a command built to be unreadable exceeds them.
const (
	// MaxCheckedParts is the most parts CheckedParts splits a command into.
	MaxCheckedParts = 4096
	// MaxCheckedLen is the longest command text CheckedParts parses.
	MaxCheckedLen = 1 << 20
	// MaxCheckedDepth is how deep it reads `bash -c '…'` and `eval` strings.
	MaxCheckedDepth = 16
)

// CheckedParts returns every part of a for the policy's hard rules to meet,
// not only the first ones Parts keeps for learning: a command padded past
// Parts' bounds (`rm -rf / ;` then a hundred `true;`, or 40 KiB with
// `limenctl answer 1 --approve` at the end) must still meet its block rules
// on every part, or making a command longer would turn a block into an ask.
//
// complete is false when even these bounds cut the command short: some of
// it was never split into parts, so a block rule could not be checked on
// it, and the caller should refuse it rather than ask about it. For tools
// other than Bash, CheckedParts is Parts, and complete.
func CheckedParts(a Action) (parts []Part, complete bool) {
	if a.Tool != "Bash" {
		return Parts(a), true
	}
	parts, capped := bashPartsUpTo(a, shellLimits{parts: MaxCheckedParts, length: MaxCheckedLen, depth: MaxCheckedDepth})
	return parts, !capped
}
