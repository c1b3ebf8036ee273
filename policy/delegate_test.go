package policy

import (
	"strings"
	"testing"
	"time"
)

func TestDelegates(t *testing.T) {
	doc := DefaultDocument + `
[[delegate]]
who = "lena"
users = ["ana"]
classes = ["unknown"]
until = "2030-01-01T00:00:00Z"
`
	p, err := Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	before, after := time.Date(2029, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		who, user, class string
		at               time.Time
		want             bool
	}{
		{"ana", "ana", "unknown", after, true},   // her own, always
		{"lena", "ana", "unknown", before, true}, // delegated
		{"lena", "ana", "unknown", after, false}, // ended
		{"lena", "bo", "unknown", before, false}, // not bo's delegate
		{"lena", "ana", "deploy", before, false}, // not for that class
		{"max", "ana", "unknown", before, false}, // not a delegate
	} {
		if got := p.MayAnswer(c.who, c.user, c.class, c.at); got != c.want {
			t.Errorf("MayAnswer(%s, %s, %s, %v) = %v; want %v", c.who, c.user, c.class, c.at.Year(), got, c.want)
		}
	}
	for _, bad := range []struct{ table, want string }{
		{"who = \"lena\"\nusers = [\"ana\"]\nclasses = [\"*\"]\n", "delegate[0] until is missing"},
		{"who = \"lena\"\nusers = [\"ana\"]\nclasses = [\"nope\"]\nuntil = \"2030-01-01T00:00:00Z\"\n", `delegate[0] classes names "nope"`},
		{"users = [\"ana\"]\nclasses = [\"*\"]\nuntil = \"2030-01-01T00:00:00Z\"\n", "delegate[0] who is missing"},
		{"who = \"lena\"\nusers = [\"ana\"]\nclasses = [\"*\"]\nuntil = \"next year\"\n", "is not an RFC 3339 time"},
	} {
		if _, err := Parse(DefaultDocument + "\n[[delegate]]\n" + bad.table); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Parse of [[delegate]] %q = %v; want an error containing %q", bad.table, err, bad.want)
		}
	}
}
