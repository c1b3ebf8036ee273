// Package eval replays labelled action streams (their format and the
// protocol are in docs/evaluation.md) through approval strategies —
// limen's own and the baselines people use today — and measures how often
// each asks, how often it lets through what the person would have refused,
// and what that costs under a policy.
//
// It is a domain package: it reads a stream from an io.Reader and returns
// plain values; it prints nothing.
//
// The protocol is enforced by the types, not by convention: a stream line's
// truth is parsed into an unexported field that only the replayer reads.
// A Strategy is handed an Action, which has no truth in it, and learns a
// label only through Learn, which the replayer calls after — and only
// after — the strategy answered ask for that very action. The one
// exception is an Oracle (Floor), which is told every answer by design: it
// is a floor to measure strategies against, not one of them.
package eval
