package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/engine"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// HardMaxInputBytes is the largest input_json limend reads at all: the
// hook API's body limit. Between MaxInputBytes and it, an action is
// oversized (see limitBeyondCaps); beyond it, Decide refuses the request,
// which every client turns into ask (and the hook routes into a deny, since
// a block rule could not be checked on what was not read).
const HardMaxInputBytes = 1 << 20

// pathTools are the tools whose large arguments are the file content they
// write, not what they act on: an oversized call of one is decided on its
// path (and reported with its size), like any other call of it. Their key
// ladders read the path alone (apply_patch: the files its patch names,
// every one of them, however long the patch).
var pathTools = map[string]bool{
	"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true, "apply_patch": true,
}

// limitBeyondCaps makes sure that no cap on how much of an action limen
// reads can weaken a decision. Parts keeps at most 64 parts of a command and
// parses at most 32 KiB of it, leaving the rest to one opaque part (which
// makes the verdict ask); a block rule on what lies beyond would so become
// an ask by making the command longer. When Parts stopped short of a
// command (action.Capped) or the input is oversized,
// every part action.CheckedParts finds meets the block and ask rules
// here, and a command too big even for it is blocked: what limen cannot
// check, it does not let a person wave through either.
//
// An oversized input that is not a file tool's (a 70 KiB command, a huge
// MCP call) is never allowed: at most ask.
func limitBeyondCaps(pol *policy.Policy, msg *limenv1.Action, parts []action.Part, env policy.Env, res engine.Result, at time.Time) engine.Result {
	if pol == nil || res.Verdict == policy.Block {
		return res
	}
	size := len(msg.GetInputJson())
	big := size > MaxInputBytes
	if !big && !anyCapped(parts) {
		return res
	}
	act, err := convert.Action(msg, at)
	if err != nil {
		return res // Decide decoded it already; this cannot fail
	}
	all, complete := action.CheckedParts(act)
	var ask *engine.Result
	for i, p := range all {
		rule, ok := pol.RuleFor(p, env)
		if !ok || rule.Verdict == policy.Allow {
			continue
		}
		r := engine.Result{Verdict: rule.Verdict, DecidedBy: engine.ByRule, Key: p.Keys.Exact(), Rule: rule.Pattern, Class: pol.ClassOf(p, env).Name}
		where := fmt.Sprintf(" (part %d of %d: limen reads all of a command for its block rules, however long)", i+1, len(all))
		if rule.Verdict == policy.Block {
			r.Reason = "blocked by the policy rule " + rule.Pattern + where
			return r
		}
		if ask == nil {
			r.Reason = "the policy rule " + rule.Pattern + " says a person must decide" + where
			ask = &r
		}
	}
	if r := engine.ControlOf(all); r != nil {
		return *r // limen's own controls, however far into the command
	}
	if !complete {
		return engine.Result{Verdict: policy.Block, DecidedBy: engine.ByRule, Key: res.Key, Class: res.Class,
			Reason: fmt.Sprintf("this command is too big for limen to check against its block rules (more than %d simple commands, %d levels of nested shells or %d KiB), so limen blocks it rather than let a blocked command hide in it: write the script to a file and run that, or split the work",
				action.MaxCheckedParts, action.MaxCheckedDepth, action.MaxCheckedLen>>10)}
	}
	if ask != nil && res.Verdict == policy.Allow {
		return *ask
	}
	switch {
	case big && pathTools[msg.GetTool()]:
		res.Reason += fmt.Sprintf(" (decided on the path: the input is %d KiB, and limen keeps only the start of its content)", size>>10)
	case big && res.Verdict == policy.Allow:
		res.Verdict = policy.Ask
		res.Reason = fmt.Sprintf("the input is %d KiB, more than the %d KiB limen learns from, so a person decides (it would allow: %s)", size>>10, MaxInputBytes>>10, res.Reason)
	}
	return res
}

// limitDeep keeps an action whose input was nested too deep to read whole
// (flattenDeep) from being allowed: what was not read is not vouched for.
func limitDeep(res engine.Result, deep bool, max int) engine.Result {
	if deep && res.Verdict == policy.Allow {
		res.Verdict = policy.Ask
		res.Reason = fmt.Sprintf("the input is nested more than %d levels deep, and limen did not read below that, so a person decides (it would allow: %s)", max, res.Reason)
	}
	return res
}

func anyCapped(parts []action.Part) bool {
	for _, p := range parts {
		if action.Capped(p) {
			return true
		}
	}
	return false
}

// Bounds of what a decision record keeps of an oversized input.
const (
	keptString = 4 << 10 // a longer string value keeps its first keptHead bytes
	keptHead   = 1 << 10
)

// recordedInput is the input_json a decision record (and a pending ask)
// keeps of an oversized action: every string value longer than 4 KiB cut to
// its first 1 KiB, followed by how long it was and its SHA-256, so that a
// 150 KB Write does not put 150 KB into the decision log and the queue of
// asks, while what the person sees still says which content it was. Paths
// are short and kept whole, so the record is keyed as the action was. An
// input within MaxInputBytes is kept as it is.
func recordedInput(raw string) string {
	if len(raw) <= MaxInputBytes {
		return raw
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return digestObject(raw)
	}
	b, err := marshalNoEscape(cutStrings(v))
	if err != nil || len(b) > MaxInputBytes {
		return digestObject(raw)
	}
	return string(b)
}

// cutStrings shortens every long string in a decoded JSON value.
func cutStrings(v any) any {
	switch v := v.(type) {
	case string:
		if len(v) <= keptString {
			return v
		}
		return cutNote(v)
	case map[string]any:
		for k, e := range v {
			v[k] = cutStrings(e)
		}
	case []any:
		for i, e := range v {
			v[i] = cutStrings(e)
		}
	}
	return v
}

// cutNote is the start of s and what was cut.
func cutNote(s string) string {
	head := keptHead
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%s… [limen kept %d of %d bytes; sha256 %s]", s[:head], head, len(s), hex.EncodeToString(sum[:]))
}

// digestObject stands for an input that is still too big once its strings
// are cut (a huge array of small ones, say).
func digestObject(raw string) string {
	b, _ := marshalNoEscape(map[string]any{"limen_input_cut": cutNote(raw)})
	return string(b)
}

func marshalNoEscape(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}
