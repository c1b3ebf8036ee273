package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// TestHelpSaysWhoMayDoWhat: --help tells who may change the policy, what an
// anonymous TCP caller may do, and where answers come from (issue 12 §4).
func TestHelpSaysWhoMayDoWhat(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	code := run([]string{"--help"})
	os.Stdout = stdout
	w.Close()
	out, _ := io.ReadAll(r)
	if code != 0 {
		t.Fatalf("--help exited %d", code)
	}
	help := strings.Join(strings.Fields(string(out)), " ")
	for _, want := range []string{
		"you (limend's own uid, over the Unix socket): everything, including changing the policy",
		"an admin gateway (--tcp with TLS and --tls-client-ca or --token-file)",
		"it never changes the policy",
		"(plain TCP on loopback, --http-tcp): may Decide and Await its own asks, nothing else",
		"limend refuses them from any process that runs under an agent runtime it has seen",
		"answer in limenctl tui in your own terminal",
		"whose callers are anonymous and may only Decide and Await their own asks", // --tcp
	} {
		if !strings.Contains(help, want) {
			t.Errorf("limend --help does not say %q", want)
		}
	}
}
