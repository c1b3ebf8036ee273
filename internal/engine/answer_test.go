package engine

import (
	"errors"
	"testing"

	"github.com/limenhq/limen/policy"
)

func TestCheckApproval(t *testing.T) {
	env := policy.Env{Cwd: "/home/ana/shop", Home: "/home/ana"}
	pol := withRules(t, `"Bash(make:*)"`, `"Bash(git push:*)"`, `"Bash(make deploy:*)"`)
	tests := []struct {
		cmd  string
		rule string // "" when the approval stands
	}{
		{"make deploy --prod", "Bash(make deploy:*)"},
		{"ls && make deploy", "Bash(make deploy:*)"}, // one blocked part is enough
		{"make test", ""},            // an allow rule does not refuse
		{"git push origin main", ""}, // nor does an ask rule
		{"ls -la", ""},
	}
	for _, tt := range tests {
		err := CheckApproval(pol, parts(t, "Bash", tt.cmd), env)
		var b *BlockedApproval
		switch {
		case tt.rule == "" && err != nil:
			t.Errorf("CheckApproval(%q) = %v; want nil", tt.cmd, err)
		case tt.rule != "" && (!errors.As(err, &b) || b.Rule != tt.rule):
			t.Errorf("CheckApproval(%q) = %v; want blocked by %s", tt.cmd, err, tt.rule)
		}
	}
	if err := CheckApproval(nil, parts(t, "Bash", "make deploy"), env); err != nil {
		t.Errorf("CheckApproval without a policy = %v; want nil (the person decides)", err)
	}
}

func TestGrants(t *testing.T) {
	var g Grants
	ps := parts(t, "Bash", "make build && make test")
	g.Approve("ana", "s1", ps)
	for _, p := range ps {
		if !g.For("ana", "s1")(p.Keys.Exact()) {
			t.Errorf("%s not granted in the approving session", p.Keys.Exact())
		}
		if g.For("ana", "s2")(p.Keys.Exact()) || g.For("bob", "s1")(p.Keys.Exact()) {
			t.Errorf("%s granted to another session or user", p.Keys.Exact())
		}
	}
	if g.For("ana", "s1")(parts(t, "Bash", "make deploy")[0].Keys.Exact()) {
		t.Error("a part nobody approved is granted")
	}

	opaque := parts(t, "Bash", `eval "$X"`)
	if len(opaque) != 1 || !opaque[0].Opaque {
		t.Fatalf("eval \"$X\" gave %+v; want one opaque part", opaque)
	}
	g.Approve("ana", "s1", opaque)
	if g.For("ana", "s1")(opaque[0].Keys.Exact()) {
		t.Error("an opaque part was granted")
	}
	g.Approve("ana", "", parts(t, "Bash", "make deploy"))
	if g.For("ana", "")(parts(t, "Bash", "make deploy")[0].Keys.Exact()) {
		t.Error("an approval without a session granted something")
	}
}
