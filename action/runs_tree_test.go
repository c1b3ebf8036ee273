package action

import (
	"slices"
	"testing"
)

// TestWhoRunsTheTree: a program runs every file below where it runs but
// data unless limen knows it runs none; asking only for its help or
// version runs none, but a "help" target or a -v (pytest's verbose run)
// does.
func TestWhoRunsTheTree(t *testing.T) {
	const code = "/home/ana/shop/src/a.go"
	runsCode := func(cmd string) bool {
		for _, p := range partsOf(cmd) {
			if slices.ContainsFunc(p.Runs, func(r string) bool { return RunsMatch(r, code) }) {
				return true
			}
		}
		return false
	}
	for _, cmd := range []string{"pytest -v", "make help", "jest -v", "bazel test //...", "mytool check", "go build ./...", "go vet ./...",
		"cd src && go test ./...", "go -C cmd/x test .", "python3 -c 'import a'", "npm run build", "./scripts/x.sh"} {
		if !runsCode(cmd) {
			t.Errorf("%s does not count as running %s", cmd, code)
		}
	}
	for _, cmd := range []string{"cat src/a.go", "grep -rn TODO src", "git status", "ls -la", "make --version", "kubectl get pods", "go mod tidy",
		"rm -rf build", "curl -s https://api.github.com"} {
		if runsCode(cmd) {
			t.Errorf("%s counts as running %s; it runs nothing of the tree", cmd, code)
		}
	}
}
