package action

import (
	"maps"
	"slices"
	"testing"
)

// chdirCases has at least one command per row of wrapperChdir and
// programChdir, run in /home/ana/shop: elsewhere says whether the part
// that does the work is marked as run outside the project.
var chdirCases = map[string][]struct {
	cmd       string
	elsewhere bool
}{
	"env":       {{"env -C /etc cat passwd", true}, {"env --chdir=/tmp ls", true}, {"env --ch /tmp ls", true}, {"env -iC/tmp ls", true}, {"env -u HOME -C /tmp ls", true}, {"env -C src ls", false}, {"env -uC ls", false}},
	"sudo":      {{"sudo -D /srv make", true}, {"sudo --chdir=/srv make", true}},
	"run0":      {{"run0 -D /srv ls", true}},
	"unshare":   {{"unshare --wd=/srv ls", true}, {"unshare -w /srv ls", true}},
	"nsenter":   {{"nsenter --wd=/srv ls", true}, {"nsenter -w/srv ls", true}},
	"conda":     {{"conda run --cwd /srv python3 x.py", true}},
	"mamba":     {{"mamba run --cwd /srv python3 x.py", true}},
	"git":       {{"git -C /tmp/evil log", true}, {"git -C sub -C .. status", false}, {"git -c x.y=1 -C /srv status", true}, {"git --git-dir=/srv/x/.git log", true}, {"git --work-tree /srv status", true}, {"git log -C", false}},
	"make":      {{"make -C /tmp/evil", true}, {"make --directory=/srv test", true}, {"make -C sub test", false}, {"make -j4 -C/srv", true}},
	"gmake":     {{"gmake -C /srv", true}},
	"go":        {{"go -C /tmp/evil test ./...", true}, {"go -C=/srv build", true}, {"go test -C /srv", true}, {"go vet -C /srv ./...", true}},
	"ninja":     {{"ninja -C /srv", true}, {"ninja -C build", false}},
	"npm":       {{"npm --prefix /srv test", true}, {"npm -C /srv run build", true}, {"npm --prefix web test", false}},
	"pnpm":      {{"pnpm --dir /srv test", true}, {"pnpm -C /srv build", true}},
	"yarn":      {{"yarn --cwd /srv test", true}},
	"bun":       {{"bun --cwd /srv test", true}},
	"uv":        {{"uv run --directory /srv pytest", true}, {"uv run --project /srv pytest", true}},
	"poetry":    {{"poetry -C /srv run pytest", true}, {"poetry --directory=/srv install", true}},
	"just":      {{"just -d /srv build", true}, {"just --justfile /srv/justfile build", true}},
	"task":      {{"task -d /srv build", true}},
	"terraform": {{"terraform -chdir=/srv apply", true}, {"terraform -chdir=infra plan", false}},
	"tofu":      {{"tofu -chdir=/srv apply", true}},
	"gradle":    {{"gradle -p /srv build", true}},
	"cargo":     {{"cargo -C /srv build", true}, {"cargo build --manifest-path /srv/x/Cargo.toml", true}, {"cargo build --manifest-path sub/Cargo.toml", false}},
	"meson":     {{"meson compile -C /srv", true}},
	"rake":      {{"rake -C /srv test", true}},
	"pytest":    {{"pytest --rootdir=/srv", true}},
}

func TestChdirRows(t *testing.T) {
	rows := slices.Sorted(maps.Keys(wrapperChdir))
	rows = append(rows, slices.Sorted(maps.Keys(programChdir))...)
	for _, row := range rows {
		cases := chdirCases[row]
		if len(cases) == 0 {
			t.Errorf("chdir row %q has no test case", row)
		}
		for _, c := range cases {
			checkMark(t, c.cmd, elsewhereMark, c.elsewhere)
		}
	}
}

// TestCdFollowed: what runs after a cd runs where the cd went, as far as
// the shell's rules say (a subshell's and a pipe's cd stay there), and
// where limen cannot tell, it says elsewhere.
func TestCdFollowed(t *testing.T) {
	for _, c := range []struct {
		cmd       string
		elsewhere bool
	}{
		{"cd /srv && make", true},
		{"cd /srv; make", true},
		{"cd src && make", false},
		{"cd src; cd ..; make", false},
		{"cd src && cd .. && make", true}, // limen does not follow which cd ran
		{"cd ~ && make", true},
		{"cd && make", true},
		{"(cd /srv); make", false},
		{"(cd /srv && make)", true},
		{"cd /srv | true; make", false},
		{"true && cd src; make", true}, // a cd that runs only sometimes
		{"cd - && make", true},
		{"cd \"$(mktemp -d)\" && make", true},
		{"d=/srv; cd $d && make", true},
		{"pushd /srv && make", true},
		{"pushd /srv; popd; make", true},
		{"cd /srv && bash -c 'make'", true},
		{"bash -c 'cd /srv' && make", false},
		{"for d in a b; do make; cd /srv; done", true},
		{"for d in a b; do make; done", false},
		{"f() { make; }; cd /srv; f", true},
		{"f() { make; }; f", false},
	} {
		parts := partsOf(c.cmd)
		var last Part
		for _, p := range parts {
			if p.Subject == "make" || p.Subject == "bash -c make" || len(p.Keys) > 1 && p.Keys[1] == "Bash:make" {
				last = p
			}
		}
		if last.Keys == nil {
			t.Fatalf("%s: no part runs make: %v", c.cmd, ladders(parts))
		}
		if got := hasMark([]Part{last}, elsewhereMark); got != c.elsewhere {
			t.Errorf("%s: make marked elsewhere %v, want %v (%v)", c.cmd, got, c.elsewhere, last.Keys)
		}
	}
}

// TestChdirPaths: the relative paths of a command run elsewhere are
// checked where they lie, for limen's controls, secrets and the files
// ordinary commands run; and in the working directory too, so a wrong
// guess of where the shell is cannot hide them.
func TestChdirPaths(t *testing.T) {
	for _, c := range []struct {
		cmd, mark string
		control   bool
	}{
		{"env -C ~/.claude rm settings.json", "", true},
		{"env --chdir=/home/ana/.claude mv settings.json x", "", true},
		{"timeout 5 env -C ~/.claude rm settings.json", "", true},
		{"cd ~/.claude; rm settings.json", "", true},
		{"sudo -D /home/ana/.claude rm settings.json", "", true},
		{"cd /tmp && rm .claude/settings.json", "", true}, // the project's own, if the cd failed
		{"env -C ~/.ssh cat id_ed25519", "secret-file", false},
		{"env -C ~/.aws cat credentials", "secret-file", false},
		{"cd ~/.config/gh && cat hosts.yml", "secret-file", false},
		{"env -C ~/.ssh grep -r . .", "secret-file", false},
		{"env -C .git rm config", "runs-config", false},
		{"env -C .git/hooks cp ../../src/app.js pre-commit", "runs-config", false},
		{"cd src && cp x.js ../.git/hooks/pre-commit", "runs-config", false},
		{"cd src && cp x.js ../y.js", "", false},
		{"env -C src rm app.js", "", false},
	} {
		parts := partsOf(c.cmd)
		control := false
		for _, p := range parts {
			if p.Control != "" {
				control = true
			}
		}
		if control != c.control {
			t.Errorf("%s: control %v, want %v (%v)", c.cmd, control, c.control, parts)
		}
		if c.mark != "" && !hasMark(parts, c.mark) {
			t.Errorf("%s: no %s mark: %v", c.cmd, c.mark, ladders(parts))
		}
		if c.mark == "" && !c.control && (hasMark(parts, "write-outside") || hasMark(parts, "runs-config") || hasMark(parts, elsewhereMark)) {
			t.Errorf("%s: marked as if it acted outside the project: %v", c.cmd, ladders(parts))
		}
	}
}

// TestMarkLevelBelowExact: a marked command whose text is its own
// subcommand keeps its marks' level below the exact key, so the mark asks
// for the person's own answer there.
func TestMarkLevelBelowExact(t *testing.T) {
	for _, cmd := range []string{"git prune", "git stash drop", "git worktree prune", "rm -rf build"} {
		for _, p := range partsOf(cmd) {
			if m := MarkLevel(p.Keys); m < 1 || m >= len(p.Keys)-1 {
				t.Errorf("%s: marks' level %d in %v; want one below the exact key", cmd, m, p.Keys)
			}
		}
	}
}
