package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func TestPlansCacheByActionAndPolicy(t *testing.T) {
	ps := &policyState{pol: policy.Default()}
	now := time.Now()
	bash := func(user, cmd, cwd string) *limenv1.Action {
		return &limenv1.Action{User: user, Tool: "Bash", InputJson: fmt.Sprintf(`{"command":%q}`, cmd), Cwd: cwd}
	}
	var c planCache
	first, err := c.get(ps, bash("ana", "git status", "/home/ana/shop"), now)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.parts) != 1 || first.parts[0].Keys.Exact() == "" || first.env.Cwd != "/home/ana/shop" {
		t.Fatalf("plan of git status: %+v", first)
	}
	again, _ := c.get(ps, bash("ana", "git status", "/home/ana/shop"), now)
	if again != first {
		t.Errorf("the same action under the same policy was planned again")
	}
	for name, a := range map[string]*limenv1.Action{
		"another user":  bash("bo", "git status", "/home/ana/shop"),
		"another cwd":   bash("ana", "git status", "/home/ana/other"),
		"another input": bash("ana", "git status -s", "/home/ana/shop"),
		"another tool":  {User: "ana", Tool: "Read", InputJson: `{"command":"git status"}`, Cwd: "/home/ana/shop"},
	} {
		if p, _ := c.get(ps, a, now); p == first {
			t.Errorf("%s: got the cached plan of another action", name)
		}
	}
	newer := &policyState{pol: policy.Default()}
	if p, _ := c.get(newer, bash("ana", "git status", "/home/ana/shop"), now); p == first || p.plan == first.plan {
		t.Errorf("a new policy reused the old policy's plan")
	}
	if len(c.m) != 1 {
		t.Errorf("after a policy change the cache holds %d planCache, want only the new one", len(c.m))
	}

	t.Run("bad input is an error and is not cached", func(t *testing.T) {
		a := &limenv1.Action{User: "ana", Tool: "Bash", InputJson: `{"command":`}
		for range 2 {
			if _, err := c.get(ps, a, now); err == nil || !strings.Contains(err.Error(), "input_json") {
				t.Errorf("err = %v, want one naming input_json", err)
			}
		}
	})
	t.Run("long input is planned but not cached", func(t *testing.T) {
		a := bash("ana", "echo "+strings.Repeat("x", maxPlanInput), "/home/ana/shop")
		p1, err := c.get(ps, a, now)
		if err != nil {
			t.Fatal(err)
		}
		if p2, _ := c.get(ps, a, now); p2 == p1 {
			t.Errorf("a long input was cached")
		}
	})
	t.Run("bounded", func(t *testing.T) {
		var c planCache
		for i := range maxPlans + 100 {
			if _, err := c.get(ps, bash("ana", fmt.Sprintf("echo %d", i), "/home/ana"), now); err != nil {
				t.Fatal(err)
			}
		}
		if len(c.m) != maxPlans {
			t.Errorf("cache holds %d planCache, want the bound %d", len(c.m), maxPlans)
		}
	})
}
