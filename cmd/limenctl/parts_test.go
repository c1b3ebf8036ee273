package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestEveryViewShowsEveryPart: for `echo hello` and, on the next line,
// `rm -rf ~/important`, decide, pending, history and policy explain show
// both commands (never joined into `echo hello rm -rf …`), the class and
// key of the part that decided (the rm, destructive), and each part with
// its own class, the deciding one marked.
func TestEveryViewShowsEveryPart(t *testing.T) {
	run, _ := polDaemon(t)
	const cmd = "echo hello\nrm -rf ~/important"
	decided := regexp.MustCompile(`▶\s+rm -rf ~/important\s+destructive\s+ask\s+0\.\d{3}\s+Bash:rm -rf ~/important`)
	other := regexp.MustCompile(`\n\s+echo hello\s+read-only\s+ask\s+0\.\d{3}\s+Bash:echo hello`)
	views := []struct {
		name string
		args []string
		want []*regexp.Regexp
	}{
		{"decide", []string{"decide", cmd}, []*regexp.Regexp{
			regexp.MustCompile(`action\s+echo hello\n\s+rm -rf ~/important\n`),
			regexp.MustCompile(`risk class\s+destructive\n`), regexp.MustCompile(`key\s+Bash:rm -rf ~/important\n`),
			decided, other}},
		{"pending", []string{"pending"}, []*regexp.Regexp{
			regexp.MustCompile(`destructive\s+echo hello  \(read-only\)\n\s+▶ rm -rf ~/important  \(destructive\)\n`)}},
		{"history", []string{"history"}, []*regexp.Regexp{
			regexp.MustCompile(`destructive\s+pending\s+echo hello  \(read-only\)\n\s+▶ rm -rf ~/important  \(destructive\)\n`)}},
		{"policy explain", []string{"policy", "explain", cmd}, []*regexp.Regexp{
			regexp.MustCompile(`action\s+echo hello\n\s+rm -rf ~/important\n`),
			regexp.MustCompile(`deciding part\s+Bash:rm -rf ~/important\n`), decided, other}},
	}
	for _, v := range views {
		out, errOut, code := run(v.args...)
		if code != exitOK && code != exitAsk {
			t.Fatalf("%s = %d: %s", v.name, code, errOut)
		}
		for _, re := range v.want {
			if !re.MatchString(out) {
				t.Errorf("%s: no match for %s in:\n%s", v.name, re, out)
			}
		}
		if strings.Contains(out, "echo hello rm") {
			t.Errorf("%s joins the command's two lines into one:\n%s", v.name, out)
		}
	}
}
