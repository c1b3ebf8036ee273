package action

import (
	"strings"
	"testing"
)

// TestDestroyingSubs has a case per row of destroyingSubs: the row, as
// written with an option or two, is marked destroys.
func TestDestroyingSubs(t *testing.T) {
	for row := range destroyingSubs {
		cmd := row
		if strings.HasPrefix(row, "docker ") || strings.HasPrefix(row, "podman ") {
			cmd += " -f"
		}
		checkMark(t, cmd, "destroys", true)
	}
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{"git stash drop stash@{0}", true},
		{"git stash clear", true},
		{"git -C . stash drop", true},
		{"git reflog expire --expire=now --all", true},
		{"git reflog delete HEAD@{1}", true},
		{"git worktree remove --force ../wt", true},
		{"git notes remove HEAD", true},
		{"git remote rm origin", true},
		{"git filter-repo --invert-paths --path src", true},
		{"docker compose -f x.yml down -v", true},
		{"docker-compose down", true},
		{"git stash", false},
		{"git stash list", false},
		{"git stash pop", false},
		{"git reflog", false},
		{"git remote -v", false},
		{"git worktree list", false},
		{"docker ps", false},
		{"docker compose ps", false},
	} {
		checkMark(t, c.cmd, "destroys", c.want)
	}
	// Flags that destroy are riskyTable's: marked all the same.
	for _, c := range []struct{ cmd, mark string }{
		{"git gc --prune=now", "--prune"},
		{"git branch -D feature/x", "-D"},
		{"git branch --delete --force feature/x", "-d"},
		{"git tag -d v1", "-d"},
		{"git update-ref -d refs/heads/x", "-d"},
		{"git update-ref --stdin", "--stdin"},
		{"git symbolic-ref --delete HEAD", "-d"},
		{"git replace -d abc", "-d"},
		{"git checkout -- src/app.js", "--"},
	} {
		checkMark(t, c.cmd, c.mark, true)
	}
}

// TestDiscardsChanges: git checkout and git restore of paths overwrite
// uncommitted work; of a branch they do not.
func TestDiscardsChanges(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{"git checkout src/app.js", true},
		{"git checkout Makefile", true},
		{"git checkout ./src", true},
		{"git checkout src/", true},
		{"git checkout HEAD .", true},
		{"git checkout HEAD src/app.js", true},
		{"git checkout .", true},
		{"git checkout --ours src/app.js", true},
		{"git checkout --theirs x", true},
		{"git checkout --pathspec-from-file=list", true},
		{"git checkout '*.js'", true},
		{"git -C . checkout src/app.js", true},
		{"git restore src/app.js", true},
		{"git restore .", true},
		{"git restore -s HEAD~3 src/app.js", true},
		{"git restore --staged --worktree src/app.js", true},
		{"git restore --staged src/app.js", false},
		{"git checkout feature/cart", false},
		{"git checkout main", false},
		{"git checkout -b feature/login", false},
		{"git checkout -B x origin/x", false},
		{"git checkout", false},
	} {
		checkMark(t, c.cmd, "discards-changes", c.want)
	}
}

// TestComposeReads: compose config and convert print the compose file
// with the project's .env filled in.
func TestComposeReads(t *testing.T) {
	for verb := range composeReads {
		checkMark(t, "docker compose "+verb, "secret-file", true)
		checkMark(t, "docker-compose -f x.yml "+verb, "secret-file", true)
		checkMark(t, "podman compose "+verb, "secret-file", true)
	}
	checkMark(t, "docker compose ps", "secret-file", false)
	for verb := range composeRuns {
		seen(t, "docker compose "+verb+" web", opaque)
	}
}

// TestPytestOutside: tests, a rootdir or a config outside the workspace
// (/tmp included) are another directory's code.
func TestPytestOutside(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{"pytest /tmp/evil", true},
		{"pytest ../other/tests", true},
		{"pytest ~/x/test_a.py::test_b", true},
		{"pytest --rootdir=/tmp/x", true},
		{"pytest --rootdir /tmp/x tests", true},
		{"pytest --confcutdir=/", true},
		{"pytest -c /tmp/p.ini", true},
		{"python3 -m pytest /tmp/evil", true},
		{"py.test /tmp/evil", true},
		{"pytest \"$DIR\"", true},
		{"pytest", false},
		{"pytest tests/test_a.py::test_b -k 'foo and not bar' -x", false},
		{"pytest -m slow --maxfail 2 tests", false},
		{"pytest --rootdir=. tests", false},
	} {
		checkMark(t, c.cmd, "tests-outside", c.want)
	}
}
