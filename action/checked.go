package action

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

// The opaque parts Parts leaves where it stopped short of a command: too
// long to parse, nested too deep, or past maxParts. Capped tells them from
// a command that does not parse (which CheckedParts could read no better).
const (
	capTooLong = "<too long>"
	capTooDeep = "<too deep>"
	capTooMany = "<too many parts>"
)

// Capped reports whether p is where Parts stopped short of a command
// within its bounds: what lies beyond has parts that only CheckedParts
// finds.
func Capped(p Part) bool {
	if !p.Opaque || len(p.Keys) < 2 {
		return false
	}
	switch p.Keys[1] {
	case "Bash:" + capTooLong, "Bash:" + capTooDeep, "Bash:" + capTooMany:
		return true
	}
	return false
}

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
	return append(parts, shellPatchParts(a, parts)...), !capped
}
