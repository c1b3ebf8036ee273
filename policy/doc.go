// Package policy turns an organisation's costs into limen's verdicts and
// holds the hard rules and risk classes that sit above the prediction.
//
// # Basics
//
// Costs give Thresholds (DESIGN §1): allow when p > 1 − C_ask/C_allow, block
// when p < C_ask/C_block, ask otherwise and at either threshold. Each risk
// Class has its own costs, so destructive commands need a far surer
// prediction than reads. Hard rules (Allow, Ask, Block) use Claude Code's
// permission syntax and win over the prediction: block over ask over allow.
//
// A Policy comes only from Parse (or Default), which validates the whole
// document and returns every problem it finds, each naming its field.
//
// # Caveats
//
//   - Verdict's zero value is Ask, and everything that cannot be decided
//     (NaN p, invalid costs, an unparsable or privileged command under an
//     allow rule) ends in ask: the package fails closed.
//   - Rules are matched on one simple command (action.Part) at a time; a
//     pattern that joins commands with |, && or ; is refused at parse time.
//   - /path in a rule is absolute here, as it reads; in Claude Code it is
//     relative to the settings file. //path means the same in both.
//   - Relative and ~ patterns match nothing when Env lacks Cwd or Home.
//
// The package is pure: no I/O, no logging, no gRPC.
package policy
