package action

import "testing"

// TestHoldsRecords: limend's database where limend really keeps it, by
// any path that resolves there; a directory above it only for a
// recursive read.
func TestHoldsRecords(t *testing.T) {
	self := &Self{DB: "/srv/limen-data/limen/limen.db"}
	for _, c := range []struct {
		t    string
		tree bool
		want bool
	}{
		{"/srv/limen-data/limen/limen.db", false, true},
		{"../../../srv/limen-data/limen/limen.db", false, true}, // from /home/ana/shop
		{"/srv/limen-data/limen/limen.d?", false, true},
		{"/srv/limen-data/limen/*", false, true},
		{"/srv/limen-data/limen/limen.db-journal", false, true},
		{"/srv/limen-data/*/limen.db", false, true},
		{"/srv/limen-data//limen/./limen.db", false, true},
		{"/srv/limen-data", true, true},
		{"/srv", true, true},
		{"/srv", false, false},
		{"/srv/other/x", false, false},
		{"src/app.js", false, false},
	} {
		if got := self.holdsRecords(c.t, "/home/ana/shop", "/home/ana", c.tree); got != c.want {
			t.Errorf("holdsRecords(%q, tree=%v) = %v, want %v", c.t, c.tree, got, c.want)
		}
	}
	var none *Self
	if none.holdsRecords("/srv/limen-data/limen/limen.db", "/", "/root", true) {
		t.Error("a nil Self holds records")
	}
	parts := Parts(Action{Tool: "Bash", Input: map[string]any{"command": "grep -rn allow /srv/limen-data"}, Cwd: "/home/ana/shop", Self: self})
	if !hasMark(parts, "secret-file") {
		t.Errorf("grep -rn allow /srv/limen-data: no secret-file mark (%v)", parts)
	}
}

// TestReadOfRecords: the file tools read limend's database as a secret
// too, where this limend keeps it.
func TestReadOfRecords(t *testing.T) {
	self := &Self{DB: "/srv/limen-data/limen/limen.db"}
	for _, tool := range []string{"Read", "read_file"} {
		parts := Parts(Action{Tool: tool, Input: map[string]any{"file_path": "/srv/limen-data/limen/limen.db", "absolute_path": "/srv/limen-data/limen/limen.db"}, Cwd: "/home/ana/shop", Self: self})
		if len(parts) == 0 || !ReadsSecret(parts[0]) {
			t.Errorf("%s of limend's database: not a secret read (%v)", tool, parts)
		}
	}
	parts := Parts(Action{Tool: "Read", Input: map[string]any{"file_path": "/srv/limen-data/limen/notes.txt"}, Cwd: "/home/ana/shop"})
	if len(parts) == 0 || ReadsSecret(parts[0]) {
		t.Errorf("Read with no Self: a secret read (%v)", parts)
	}
}

// TestReadOfEtcdKeys: limend's client key for a team's etcd (Self.Keys)
// is a secret to read and a control to change: with it an agent could
// write answers and policy past limend.
func TestReadOfEtcdKeys(t *testing.T) {
	self := &Self{Keys: []string{"/etc/limen/etcd-identity"}, Files: []string{"/etc/limen/etcd-identity"}}
	parts := func(cmd string) []Part {
		return Parts(Action{Tool: "Bash", Input: map[string]any{"command": cmd}, Cwd: "/home/ana/shop", Self: self})
	}
	for _, cmd := range []string{"cat /etc/limen/etcd-identity", "cat /etc/limen/etcd-identit?", "grep -r BEGIN /etc/limen", "base64 /etc/limen/*"} {
		if !hasMark(parts(cmd), "secret-file") {
			t.Errorf("%s: no secret-file mark (%v)", cmd, ladders(parts(cmd)))
		}
	}
	if p := parts("rm /etc/limen/etcd-identity"); p[0].Control == "" {
		t.Errorf("rm of the etcd key is no control: %v", p)
	}
	if hasMark(parts("cat /etc/hosts"), "secret-file") {
		t.Error("cat /etc/hosts reads a secret")
	}
}
