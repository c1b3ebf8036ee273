// Package convert is where an API message becomes a domain value: a
// limenv1.Action becomes an action.Action (and the policy.Env its rules are
// matched in), a limenv1.Verdict a policy.Verdict, and back. limend's
// service, the TUI and limenctl all convert here, so a decoding rule, the
// meaning of `~` or "an unknown verdict is ask" is written once.
package convert
