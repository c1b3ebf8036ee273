package main

import (
	"strings"
	"testing"
)

// TestCostFlagErrors: a bad --costs value is named as the user wrote it, in
// eval and in policy set alike, with why it cannot be a cost; policy set
// changes nothing.
func TestCostFlagErrors(t *testing.T) {
	run, api := polDaemon(t)
	before := polCurrent(t, api).GetVersion()
	for _, tt := range []struct {
		value string
		want  string
	}{
		{"allow=1e400", "--costs allow=1e400: 1e400 is too large for limen to compute with (the largest is about 1.8e308); only the ratios of the costs matter"},
		{"block=-1e400", "--costs block=-1e400: -1e400 is too large"},
		{"allow=0x1p2000", "--costs allow=0x1p2000: 0x1p2000 is too large"},
		{"allow=NaN", "--costs allow=NaN: NaN (not a number) is no cost; write a number such as allow=20"},
		{"ask=nan", "--costs ask=nan: NaN (not a number) is no cost"},
		{"block=+Inf", "--costs block=+Inf: infinity is no cost limen can compute with"},
		{"allow=Infinity", "--costs allow=Infinity: infinity is no cost"},
		{"allow=0", "--costs allow=0: the cost must be more than zero: a wrong allow must cost something"},
		{"allow=1e-400", "--costs allow=1e-400: the cost must be more than zero"},
		{"ask=-1", "--costs ask=-1: the cost must be zero or more: interrupting a person cannot earn anything"},
		{"allow=twenty", `--costs allow=twenty: "twenty" is not a number; write one such as allow=20`},
		{"deny=3", `--costs: unknown cost "deny"; the costs are allow, block and ask`},
	} {
		t.Run(tt.value, func(t *testing.T) {
			for _, args := range [][]string{{"eval", smokeStream, "--costs", tt.value}, {"policy", "set", "--costs", tt.value}} {
				_, errOut, code := run(args...)
				if code != exitUsage || !strings.Contains(errOut, tt.want) {
					t.Errorf("%s = %d, %q; want exit 2 and %q", strings.Join(args, " "), code, errOut, tt.want)
				}
				if strings.Contains(errOut, "costs.") {
					t.Errorf("%s names the document's key, which the user never wrote: %q", strings.Join(args, " "), errOut)
				}
			}
		})
	}
	if v := polCurrent(t, api).GetVersion(); v != before {
		t.Errorf("policy version %d after refused sets; want %d", v, before)
	}
	// ask=0 is a cost: every action is asked.
	if _, errOut, code := run("policy", "set", "--costs", "ask=0"); code != exitOK {
		t.Errorf("policy set --costs ask=0 = %d, %q", code, errOut)
	}
}
