package policy

import (
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestDefaultThresholds(t *testing.T) {
	th := DefaultCosts.Thresholds()
	if math.Abs(th.AllowAbove-0.95) > 1e-12 || th.BlockBelow != 0.5 {
		t.Fatalf("default thresholds = %+v, want allow above 0.95, block below 0.5", th)
	}
}

// bruteForce picks the cheapest verdict by expected cost; ties go to ask.
func bruteForce(c Costs, p float64) Verdict {
	a, q, b := c.Expected(p)
	switch {
	case a < q && a < b:
		return Allow
	case b < q && b < a:
		return Block
	default:
		return Ask
	}
}

func TestThresholdsMatchBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := Costs{
			Allow: rapid.Float64Range(1e-3, 1e3).Draw(t, "allow"),
			Block: rapid.Float64Range(1e-3, 1e3).Draw(t, "block"),
			Ask:   rapid.Float64Range(0, 1e3).Draw(t, "ask"),
		}
		th := c.Thresholds()
		for _, p := range []float64{
			rapid.Float64Range(0, 1).Draw(t, "p"),
			th.AllowAbove, th.BlockBelow, 0, 1,
			math.Nextafter(th.AllowAbove, 2), math.Nextafter(th.BlockBelow, -1),
		} {
			if p < 0 || p > 1 {
				continue
			}
			got, want := th.Verdict(p), bruteForce(c, p)
			if got == want {
				continue
			}
			// Within rounding of a threshold the two computations may
			// disagree; they must not anywhere else.
			a, q, b := c.Expected(p)
			tol := 1e-9 * (c.Allow + c.Block + c.Ask)
			near := math.Abs(a-q) < tol || math.Abs(b-q) < tol || math.Abs(a-b) < tol
			if !near {
				t.Fatalf("costs %+v p=%v: thresholds %+v say %v, expected costs (allow %v, ask %v, block %v) say %v",
					c, p, th, got, a, q, b, want)
			}
			if p == th.AllowAbove || p == th.BlockBelow {
				if got != Ask {
					t.Fatalf("costs %+v: p exactly at a threshold (%v) must be ask, got %v", c, p, got)
				}
			}
		}
	})
}

func TestThresholdsExactTies(t *testing.T) {
	tests := []struct {
		name string
		c    Costs
		p    float64
		want Verdict
		th   Thresholds
	}{
		{"two thresholds, at t_hi", Costs{Allow: 4, Block: 4, Ask: 1}, 0.75, Ask, Thresholds{0.75, 0.25}},
		{"two thresholds, at t_lo", Costs{Allow: 4, Block: 4, Ask: 1}, 0.25, Ask, Thresholds{0.75, 0.25}},
		{"two thresholds, above", Costs{Allow: 4, Block: 4, Ask: 1}, 0.76, Allow, Thresholds{0.75, 0.25}},
		{"two thresholds, below", Costs{Allow: 4, Block: 4, Ask: 1}, 0.24, Block, Thresholds{0.75, 0.25}},
		{"single threshold, at t*", Costs{Allow: 1, Block: 1, Ask: 1}, 0.5, Ask, Thresholds{0.5, 0.5}},
		{"single threshold, above", Costs{Allow: 1, Block: 3, Ask: 2}, 0.26, Allow, Thresholds{0.25, 0.25}},
		{"single threshold, below", Costs{Allow: 1, Block: 3, Ask: 2}, 0.24, Block, Thresholds{0.25, 0.25}},
		{"all three tie", Costs{Allow: 2, Block: 2, Ask: 1}, 0.5, Ask, Thresholds{0.5, 0.5}},
		{"free asks ask everything", Costs{Allow: 2, Block: 2, Ask: 0}, 1, Ask, Thresholds{1, 0}},
		{"free asks, p=0", Costs{Allow: 2, Block: 2, Ask: 0}, 0, Ask, Thresholds{1, 0}},
		{"invalid costs ask", Costs{Allow: 0, Block: 2, Ask: 1}, 1, Ask, Thresholds{1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := tt.c.Thresholds()
			if th != tt.th {
				t.Errorf("Thresholds() = %+v, want %+v", th, tt.th)
			}
			if got := th.Verdict(tt.p); got != tt.want {
				t.Errorf("Verdict(%v) = %v, want %v", tt.p, got, tt.want)
			}
			if tt.c.Validate() == nil {
				if got := bruteForce(tt.c, tt.p); got != tt.want {
					t.Errorf("brute force at %v = %v, want %v", tt.p, got, tt.want)
				}
			}
		})
	}
}

func TestVerdictOutOfRange(t *testing.T) {
	th := Thresholds{AllowAbove: 0.9, BlockBelow: 0.1}
	for _, p := range []float64{math.NaN(), -0.1, 1.1, math.Inf(1), math.Inf(-1)} {
		if got := th.Verdict(p); got != Ask {
			t.Errorf("Verdict(%v) = %v, want ask", p, got)
		}
	}
	var zero Verdict
	if zero != Ask || zero.String() != "ask" || Allow.String() != "allow" || Block.String() != "block" {
		t.Errorf("verdict names: zero=%v allow=%v block=%v", zero, Allow, Block)
	}
	for _, v := range []Verdict{Ask, Allow, Block} {
		if got, err := ParseVerdict(v.String()); err != nil || got != v {
			t.Errorf("ParseVerdict(%q) = %v, %v", v.String(), got, err)
		}
	}
}

func TestCostsValidate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name    string
		c       Costs
		wantErr string // "" means valid
	}{
		{"default", DefaultCosts, ""},
		{"zero ask is fine", Costs{Allow: 1, Block: 1, Ask: 0}, ""},
		{"zero allow", Costs{Allow: 0, Block: 1, Ask: 1}, "costs.allow must be a positive finite number (got 0): a wrong allow must cost something"},
		{"zero block", Costs{Allow: 1, Block: 0, Ask: 1}, "costs.block must be a positive finite number (got 0)"},
		{"negative allow", Costs{Allow: -1, Block: 1, Ask: 1}, "costs.allow"},
		{"negative ask", Costs{Allow: 1, Block: 1, Ask: -1}, "costs.ask must be a non-negative finite number (got -1)"},
		{"NaN allow", Costs{Allow: nan, Block: 1, Ask: 1}, "costs.allow must be a positive finite number (got NaN)"},
		{"NaN block", Costs{Allow: 1, Block: nan, Ask: 1}, "costs.block must be a positive finite number (got NaN): a wrong block must cost something; NaN is not a number"},
		{"NaN ask", Costs{Allow: 1, Block: 1, Ask: nan}, "costs.ask"},
		{"+Inf allow", Costs{Allow: inf, Block: 1, Ask: 1}, "costs.allow must be a positive finite number (got +Inf)"},
		{"-Inf block", Costs{Allow: 1, Block: -inf, Ask: 1}, "costs.block"},
		{"+Inf ask", Costs{Allow: 1, Block: 1, Ask: inf}, "costs.ask must be a non-negative finite number (got +Inf): interrupting a person cannot earn anything; infinity is not a cost limen can compute with"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
	err := Costs{Allow: 0, Block: 0, Ask: -1}.Validate()
	for _, f := range []string{"costs.allow", "costs.block", "costs.ask"} {
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("all-bad costs: error %v does not name %s", err, f)
		}
	}
}
