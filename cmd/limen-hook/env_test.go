package main

import (
	"strings"
	"testing"
)

// TestEnvInHelp: every variable in limen-hook's table is named on the
// --help line of the flag it is the default of.
func TestEnvInHelp(t *testing.T) {
	lines := strings.Split(flagDefaults, "\n")
	for _, e := range envVars {
		found := false
		for _, l := range lines {
			if strings.Contains(l, "--"+e.flag+" ") && strings.Contains(l, "$"+e.name) {
				found = true
			}
		}
		if !found {
			t.Errorf("limen-hook --help does not name $%s on the line of --%s:\n%s", e.name, e.flag, flagDefaults)
		}
	}
}
