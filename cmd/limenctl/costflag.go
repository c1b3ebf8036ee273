package main

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// costWhy says what each cost is, for errors about a value given for it.
var costWhy = map[string]struct {
	positive bool
	why      string
}{
	"allow": {true, "a wrong allow must cost something"},
	"block": {true, "a wrong block must cost something"},
	"ask":   {false, "interrupting a person cannot earn anything"},
}

// parseCostValue reads the value of one --costs pair, name=raw, and words
// every error as the flag the user wrote, not as the policy document's
// costs.NAME that --costs turns into: a number too large for a float64
// (1e400), NaN and infinity are refused with why.
func parseCostValue(name, raw string) (float64, error) {
	pair := "--costs " + name + "=" + raw
	c, ok := costWhy[name]
	if !ok {
		return 0, usagef("--costs: unknown cost %q; the costs are allow, block and ask, as allow=20,block=2,ask=1", name)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, usagef("%s: %s is too large for limen to compute with (the largest is about 1.8e308); only the ratios of the costs matter, so write smaller ones, such as allow=20,block=2,ask=1", pair, raw)
	case err != nil:
		return 0, usagef("%s: %q is not a number; write one such as %s=20", pair, raw, name)
	case math.IsNaN(v):
		return 0, usagef("%s: NaN (not a number) is no cost; write a number such as %s=20", pair, name)
	case math.IsInf(v, 0):
		return 0, usagef("%s: infinity is no cost limen can compute with; only the ratios matter, so write a large finite one, such as %s=1000", pair, name)
	case v < 0 || (c.positive && v == 0):
		kind := "zero or more"
		if c.positive {
			kind = "more than zero"
		}
		return 0, usagef("%s: the cost must be %s: %s", pair, kind, c.why)
	}
	return v, nil
}
