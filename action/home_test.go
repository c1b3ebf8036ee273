package action

import "testing"

func TestUserHome(t *testing.T) {
	lookup := func(user string) (string, bool) {
		if user == "svc" {
			return "/var/lib/svc", true
		}
		if user == "nohome" {
			return "", true
		}
		return "", false
	}
	tests := []struct {
		user string
		want string
	}{
		{"svc", "/var/lib/svc"},    // the account database wins
		{"ana", "/home/ana"},       // not a local account
		{"nohome", "/home/nohome"}, // an account with no home recorded
		{"", ""},                   // nobody: ~ matches nothing
		{"../etc", ""},             // never /home/../etc
		{"gateway:tls:a/b", ""},    // a gateway name holding '/'
		{"..", ""},
		{"a\x00b", ""},
	}
	for _, tt := range tests {
		if got := UserHome(tt.user, lookup); got != tt.want {
			t.Errorf("UserHome(%q) = %q, want %q", tt.user, got, tt.want)
		}
	}
	if got := UserHome("svc", nil); got != "/home/svc" {
		t.Errorf("UserHome(svc, nil) = %q, want /home/svc", got)
	}
}
