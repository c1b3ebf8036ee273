package main

import (
	"path/filepath"
	"testing"
)

func TestDebugAddrIsLoopbackOnly(t *testing.T) {
	dir := t.TempDir()
	code := run([]string{"--debug-addr", "0.0.0.0:6060", "--socket", filepath.Join(dir, "s.sock"), "--db", filepath.Join(dir, "db")})
	if code != 1 {
		t.Fatalf("limend --debug-addr 0.0.0.0:6060 exited %d; want 1 (refused)", code)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
		t.Errorf("a refused start left %v behind", m)
	}
}

func TestBadFlagsAreUsageErrors(t *testing.T) {
	if code := run([]string{"--log-level", "loud"}); code != 2 {
		t.Errorf("--log-level loud exited %d; want 2", code)
	}
	if code := run([]string{"--no-such-flag"}); code != 2 {
		t.Errorf("--no-such-flag exited %d; want 2", code)
	}
}

func TestEnvironmentSetsFlagDefaults(t *testing.T) {
	t.Setenv("LIMEN_MAX_PENDING", "many")
	if code := run([]string{"--help"}); code != 2 {
		t.Errorf("LIMEN_MAX_PENDING=many exited %d; want 2 (a usage error naming the variable)", code)
	}
}

// Limits that would switch a protection off by accident are refused before
// anything is created: a rate of 0 or below used to mean "no limit".
func TestLimitsThatSwitchProtectionOffAreRefused(t *testing.T) {
	for _, env := range [][2]string{
		{"LIMEN_RATE", "0"}, {"LIMEN_RATE", "-5"}, {"LIMEN_RATE", "NaN"},
		{"LIMEN_MAX_PENDING", "-1"}, {"LIMEN_MAX_PENDING", "0"}, {"LIMEN_MAX_AWAITS", "0"},
	} {
		t.Run(env[0]+"="+env[1], func(t *testing.T) {
			t.Setenv(env[0], env[1])
			dir := t.TempDir()
			if code := run([]string{"--socket", filepath.Join(dir, "s.sock"), "--db", filepath.Join(dir, "db")}); code != 2 {
				t.Errorf("exited %d; want 2 (usage)", code)
			}
			if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
				t.Errorf("a refused start left %v behind", m)
			}
		})
	}
}

// TestEnvironmentNamesEveryFlag: the variables whose flags used to read
// them one by one (and LIMEN_TCP, read in the daemon's defaults) take
// effect through the one LIMEN_<FLAG> rule: each of these is refused as
// its flag would be.
func TestEnvironmentNamesEveryFlag(t *testing.T) {
	for _, env := range [][2]string{
		{"LIMEN_DEBUG_ADDR", "0.0.0.0:6060"}, // loopback only
		{"LIMEN_LOG_LEVEL", "loud"},          // not a level
		{"LIMEN_TCP", "192.0.2.1:7411"},      // beyond loopback without TLS
	} {
		t.Run(env[0], func(t *testing.T) {
			t.Setenv(env[0], env[1])
			dir := t.TempDir()
			if code := run([]string{"--socket", filepath.Join(dir, "s.sock"), "--db", filepath.Join(dir, "db")}); code == 0 {
				t.Errorf("%s=%s: limend started; want it refused as --%s would be", env[0], env[1], env[0])
			}
		})
	}
}
