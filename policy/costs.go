package policy

import (
	"errors"
	"fmt"
	"math"
)

// Verdict is limen's answer to one action.
type Verdict int8

// The verdicts. The zero value is Ask, so a Verdict that was never set fails
// closed: a person is asked, nothing is allowed by accident.
const (
	Ask Verdict = iota
	Allow
	Block
)

// String returns "ask", "allow" or "block" (and "ask" for any other value,
// since that is how an unknown verdict is treated).
func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Block:
		return "block"
	default:
		return "ask"
	}
}

// ParseVerdict is the inverse of String.
func ParseVerdict(s string) (Verdict, error) {
	switch s {
	case "ask":
		return Ask, nil
	case "allow":
		return Allow, nil
	case "block":
		return Block, nil
	}
	return Ask, fmt.Errorf("unknown verdict %q: want allow, ask or block", s)
}

// Costs are what the organisation says each kind of mistake costs (DESIGN §1).
// Only their ratios matter.
type Costs struct {
	// Allow is C_allow: allowing an action the user would have refused.
	Allow float64
	// Block is C_block: blocking an action the user would have approved.
	Block float64
	// Ask is C_ask: interrupting a person, whose answer is taken as right.
	Ask float64
}

// DefaultCosts are the top-level costs of the default policy: allow above
// 0.95, block below 0.5.
var DefaultCosts = Costs{Allow: 20, Block: 2, Ask: 1}

// Validate reports every field that is not a usable cost: all must be finite
// and non-negative, and Allow and Block must be positive (a free mistake would
// make its verdict win whatever p is). Ask may be zero: asking is then always
// at least as cheap as guessing, so every action is asked.
func (c Costs) Validate() error {
	var errs []error
	check := func(name string, v float64, positive bool, why string) {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (positive && v == 0):
			kind := "a non-negative finite number"
			if positive {
				kind = "a positive finite number"
			}
			switch {
			case math.IsNaN(v):
				why += "; NaN is not a number: write one, such as 20"
			case math.IsInf(v, 0):
				why += "; infinity is not a cost limen can compute with: only the ratios of the costs matter, so write a large finite one, such as 1000"
			}
			errs = append(errs, fmt.Errorf("costs.%s must be %s (got %v): %s", name, kind, v, why))
		}
	}
	check("allow", c.Allow, true, "a wrong allow must cost something")
	check("block", c.Block, true, "a wrong block must cost something")
	check("ask", c.Ask, false, "interrupting a person cannot earn anything")
	return errors.Join(errs...)
}

// Thresholds turns the costs into the two thresholds of DESIGN §1:
//
//	allow when p > 1 − C_ask/C_allow
//	block when p < C_ask/C_block
//
// When the block threshold is not below the allow threshold, asking is never
// the cheapest verdict and one threshold t* = C_allow/(C_allow+C_block)
// splits allow from block; p == t* is still asked, because ties go to ask.
//
// Costs that do not Validate give thresholds that ask for every p: a broken
// policy never allows.
func (c Costs) Thresholds() Thresholds {
	if c.Validate() != nil {
		return alwaysAsk
	}
	hi := 1 - c.Ask/c.Allow
	lo := c.Ask / c.Block
	if lo >= hi {
		t := c.Allow / (c.Allow + c.Block)
		return Thresholds{AllowAbove: t, BlockBelow: t}
	}
	return Thresholds{AllowAbove: hi, BlockBelow: lo}
}

// Expected returns the expected cost of each verdict when the user approves
// with probability p: (1−p)·C_allow, C_ask and p·C_block.
func (c Costs) Expected(p float64) (allow, ask, block float64) {
	return (1 - p) * c.Allow, c.Ask, p * c.Block
}

// Thresholds separate allow, ask and block on the approval probability p.
type Thresholds struct {
	// AllowAbove: p strictly above it is allowed.
	AllowAbove float64
	// BlockBelow: p strictly below it is blocked.
	BlockBelow float64
}

// alwaysAsk holds for no p in [0, 1] on either side.
var alwaysAsk = Thresholds{AllowAbove: 1, BlockBelow: 0}

// Verdict returns allow if p > AllowAbove, block if p < BlockBelow and ask
// otherwise; a p that is NaN or outside [0, 1] is asked, never guessed.
func (t Thresholds) Verdict(p float64) Verdict {
	if math.IsNaN(p) || p < 0 || p > 1 {
		return Ask
	}
	switch {
	case p > t.AllowAbove:
		return Allow
	case p < t.BlockBelow:
		return Block
	default:
		return Ask
	}
}
