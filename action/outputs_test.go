package action

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// outputCases has at least one command per row of outputRows: a write
// outside the workspace must carry mark; "" says no part may carry a
// write mark (a write inside the workspace, or no write at all).
var outputCases = map[string][]struct{ cmd, mark string }{
	"gofmt":            {{"gofmt -l -w ~", "write-outside"}, {"gofmt -lw /root", "write-outside"}, {"gofmt -w ../other/x.go", "write-outside"}, {"gofmt -l ~", ""}, {"gofmt -l -w .", ""}, {"gofmt -w .git/hooks/x.go", "runs-config"}},
	"goimports":        {{"goimports -w /etc/x.go", "write-outside"}, {"goimports -l /etc", ""}},
	"gofumpt":          {{"gofumpt -w ~/go/src", "write-outside"}},
	"golines":          {{"golines -w /srv/x.go", "write-outside"}},
	"prettier":         {{"prettier --write ~/.config", "write-outside"}, {"prettier -w /etc/x.json", "write-outside"}, {"prettier --check ~/.config", ""}, {"prettier --write src", ""}},
	"eslint":           {{"eslint --fix /root/x", "write-outside"}, {"eslint /root/x", ""}, {"eslint --fix .", ""}},
	"biome format":     {{"biome format --write ../x", "write-outside"}},
	"biome check":      {{"biome check --apply /srv", "write-outside"}},
	"biome lint":       {{"biome lint --write /srv", "write-outside"}},
	"standard":         {{"standard --fix ../x", "write-outside"}},
	"rubocop":          {{"rubocop -A /srv/app", "write-outside"}, {"rubocop /srv/app", ""}},
	"stylelint":        {{"stylelint -o ~/.bashrc src", "write-outside"}, {"stylelint src", ""}},
	"pandoc":           {{"pandoc -o /etc/motd README.md", "write-outside"}, {"pandoc -o out.html README.md", ""}},
	"rollup":           {{"rollup -c -o ~/.local/bin/x.js", "write-outside"}, {"rollup -c -d dist", ""}},
	"webpack":          {{"webpack -o /srv/www", "write-outside"}, {"webpack --mode production", ""}},
	"babel":            {{"babel src -d /usr/lib/node", "write-outside"}, {"babel src -d lib", ""}},
	"terser":           {{"terser a.js -o ../other/a.min.js", "write-outside"}, {"terser a.js -o a.min.js", ""}},
	"uglifyjs":         {{"uglifyjs a.js -o /tmp/../etc/x.js", "write-outside"}},
	"swc":              {{"swc src -d ~/lib", "write-outside"}},
	"ruff":             {{"ruff check . -o ~/.bashrc", "write-outside"}, {"ruff check --output-file .git/hooks/pre-commit .", "runs-config"}, {"ruff format ../other", "write-outside"}, {"ruff check --fix /srv", "write-outside"}, {"ruff format --check /srv", ""}, {"ruff check /srv", ""}, {"ruff format src", ""}},
	"black":            {{"black /etc", "write-outside"}, {"black -l 100 ~/x.py", "write-outside"}, {"black --check /etc", ""}, {"black .", ""}},
	"isort":            {{"isort /srv", "write-outside"}, {"isort --check-only /srv", ""}},
	"autopep8":         {{"autopep8 -i ~/x.py", "write-outside"}, {"autopep8 ~/x.py", ""}},
	"yapf":             {{"yapf --in-place /srv/x.py", "write-outside"}},
	"autoflake":        {{"autoflake -i /srv/x.py", "write-outside"}},
	"rustfmt":          {{"rustfmt ~/x.rs", "write-outside"}, {"rustfmt --check ~/x.rs", ""}},
	"clang-format":     {{"clang-format -i /usr/include/x.h", "write-outside"}, {"clang-format /usr/include/x.h", ""}},
	"shfmt":            {{"shfmt -w ~/.bashrc", "write-outside"}, {"shfmt -w ~/.bashrc", "runs-config"}, {"shfmt -d ~/.bashrc", ""}},
	"stylua":           {{"stylua ~/.config/nvim", "write-outside"}},
	"dprint fmt":       {{"dprint fmt /srv/x.md", "write-outside"}},
	"taplo fmt":        {{"taplo fmt ~/.cargo/config.toml", "write-outside"}},
	"terraform fmt":    {{"terraform fmt -recursive /srv/infra", "write-outside"}, {"terraform fmt -check /srv", ""}},
	"tofu fmt":         {{"tofu fmt /srv/infra", "write-outside"}},
	"git log":          {{"git log --output=/etc/passwd", "write-outside"}, {"git log --oneline --output out.txt", ""}},
	"git diff":         {{"git diff --output=~/.bashrc", "write-outside"}, {"git diff --stat", ""}},
	"git show":         {{"git show HEAD --output ../x", "write-outside"}},
	"git format-patch": {{"git format-patch -o /etc/x HEAD~1", "write-outside"}, {"git format-patch --output-directory=patches HEAD~1", ""}},
	"git range-diff":   {{"git range-diff --output=/usr/x a b c", "write-outside"}},
	"sort":             {{"sort -o ~/.profile a.txt", "write-outside"}, {"sort --output=/etc/hosts a", "write-outside"}, {"sort -uo/etc/x a", "write-outside"}, {"sort -o out.txt a.txt", ""}, {"sort -o /dev/sda a", "device-write"}},
	"shuf":             {{"shuf -o /etc/x a", "write-outside"}},
	"find":             {{"find src -fprint ~/.bashrc", "write-outside"}, {"find . -maxdepth 0 -fprintf .git/config 'x'", "runs-config"}, {"find . -fls /etc/x", "write-outside"}, {"find . -name '*.go'", ""}},
	"cp":               {{"cp -t .git src/cfg/config", "runs-config"}, {"cp --target-directory=/etc a", "write-outside"}},
	"mv":               {{"mv --target-directory=.git src/config", "runs-config"}, {"mv -t /etc a", "write-outside"}},
	"install":          {{"install -t /usr/local/bin x", "write-outside"}},
	"ln":               {{"ln -s -t .git/hooks ../x", "runs-config"}},
	"pytest": {{"pytest --basetemp=/home/ana", "rm-tree"}, {"pytest --basetemp /home/ana", "write-outside"}, {"pytest --basetemp=tmp/pt", "rm-tree"}, {"pytest --junitxml=/etc/x", "write-outside"}, {"pytest -q", ""}, {"python3 -m pytest --basetemp=/srv", "rm-tree"},
		{"pytest --log-file=/etc/passwd", "write-outside"}, {"pytest --report-log=/home/ana/.bashrc", "write-outside"}, {"pytest --html=.git/hooks/pre-commit", "runs-config"},
		{"pytest --cov-report=xml:/home/ana/.profile", "write-outside"}, {"pytest --cov-report html:/srv/cov", "write-outside"}, {"pytest --cov-report=term-missing", ""},
		{"pytest --alluredir=/srv/a", "write-outside"}, {"pytest --log-file=pytest.log --html=report.html", ""}},
	"py.test":       {{"py.test --basetemp=/srv", "rm-tree"}},
	"curl":          {{"curl -o /etc/x https://a", "write-outside"}, {"curl -sSLo ~/.bashrc https://a", "write-outside"}, {"curl --output=/usr/bin/x https://a", "write-outside"}, {"curl -c ~/.x https://a", "write-outside"}, {"curl -s https://a", ""}},
	"wget":          {{"wget -O ~/.bashrc https://a", "write-outside"}, {"wget -P /usr/local/bin https://a", "write-outside"}, {"wget --output-document=/etc/x https://a", "write-outside"}, {"wget -q https://a", ""}},
	"tar":           {{"tar xzf a.tgz -C /", "write-outside"}, {"tar -x -f a.tar --directory=/etc", "write-outside"}, {"tar -czf a.tgz -C /etc .", ""}, {"tar czf /etc/x.tgz .", "write-outside"}, {"tar -c -f ~/x.tar .", "write-outside"}, {"tar --create --file=/usr/x.tar .", "write-outside"}, {"tar -tzf /etc/x.tgz", ""}},
	"gtar":          {{"gtar -xf a.tar -C ~", "write-outside"}},
	"bsdtar":        {{"bsdtar -xf a.tar -C /usr", "write-outside"}},
	"unzip":         {{"unzip a.zip -d ~/.config", "write-outside"}, {"unzip -l out.zip", ""}},
	"go build":      {{"go build -o /usr/local/bin/x .", "write-outside"}, {"go build -o=~/bin/x .", "write-outside"}, {"go build -o bin/x .", ""}, {"go build -debug-trace=/root/.bashrc ./...", "write-outside"}},
	"go run":        {{"go run -debug-actiongraph=/root/.bashrc .", "write-outside"}, {"go run -debug-trace=trace.json .", ""}},
	"go install":    {{"go install -debug-trace=/etc/x ./cmd/...", "write-outside"}},
	"go vet":        {{"go vet -debug-runtime-trace=/root/.profile ./...", "write-outside"}},
	"go test":       {{"go test -coverprofile=/etc/x ./...", "write-outside"}, {"go test -pkgdir=/srv/bin ./...", "write-outside"}, {"go test -fuzz=. -fuzzcachedir=/srv/x ./...", "write-outside"}, {"go test -c -o ~/x .", "write-outside"}, {"go test -cpuprofile /tmp/c ./...", ""}},
	"go mod vendor": {{"go mod vendor -o ~/v", "write-outside"}},
	"gcc":           {{"gcc -o /usr/bin/x a.c", "write-outside"}, {"gcc -O2 -o a a.c", ""}},
	"g++":           {{"g++ a.cc -o/etc/x", "write-outside"}},
	"cc":            {{"cc -o ~/x a.c", "write-outside"}},
	"c++":           {{"c++ -o ~/x a.cc", "write-outside"}},
	"clang":         {{"clang -o /usr/bin/x a.c", "write-outside"}},
	"clang++":       {{"clang++ -o /usr/bin/x a.cc", "write-outside"}},
	"ld":            {{"ld -o /usr/bin/x a.o", "write-outside"}},
	"rustc":         {{"rustc -o /usr/bin/x a.rs", "write-outside"}},
	"cargo":         {{"cargo build --target-dir /usr/lib/x", "write-outside"}, {"cargo build -Zunstable-options --lockfile-path=/srv/x", "write-outside"}, {"cargo build", ""}},
	"patch":         {{"patch -o /etc/x a < p", "write-outside"}},
	"openssl":       {{"openssl genrsa -out ~/.ssh/id_rsa 2048", "write-outside"}},
	"ssh-keygen":    {{"ssh-keygen -f ~/.ssh/id_ed25519 -N ''", "write-outside"}},
	"base64":        {{"base64 -d -o ~/.x a", "write-outside"}},
	"pip install":   {{"pip install --target /usr/lib/python3/x x", "write-outside"}},
	"pip3 install":  {{"pip3 install -t ~/.local/lib x", "write-outside"}},
	"pip download":  {{"pip download -d /srv x", "write-outside"}},
	"npm pack":      {{"npm pack --pack-destination ~/x", "write-outside"}},
	"cargo install": {{"cargo install --root /usr/local x", "write-outside"}},
	"tree":          {{"tree -o ~/.bashrc", "write-outside"}, {"tree -L 2", ""}},
	"less":          {{"less -o ~/.bashrc main.go", "write-outside"}, {"less --log-file=/etc/x main.go", "write-outside"}, {"less main.go", ""}},
	"xxd":           {{"xxd -r dump ~/.bashrc", "write-outside"}, {"xxd -l 16 -r dump /usr/bin/x", "write-outside"}, {"xxd a.txt", ""}},
	"split":         {{"split -l 10 a.txt /etc/x", "write-outside"}, {"split a.txt part", ""}},
	"uniq":          {{"uniq a.txt ~/.bashrc", "write-outside"}, {"uniq a.txt", ""}},
	"dd":            {{"dd if=x of=/dev/sda", "device-write"}, {"dd if=x of=/dev/nvme0n1 bs=1M", "device-write"}, {"dd if=x of=~/.bashrc", "write-outside"}, {"dd if=/dev/zero of=big bs=1M", "fill-disk"}},
	"tee":           {{"tee /dev/sda < x", "device-write"}, {"echo x | tee -a ~/.bashrc", "write-outside"}, {"echo x | tee /dev/null", ""}},
	"sed":           {{"sed -n 'w /etc/passwd' x", "write-outside"}, {"sed 's/a/b/w ~/.bashrc' x", "write-outside"}, {"sed -e '/x/W /dev/sda' f", "device-write"}, {"sed -n '1,10p' main.go", ""}, {"sed -n '/^func/p;w out.txt' a", ""}, {"sed \"$S\" f", "write-outside"}},
	"gsed":          {{"gsed -ne '$w /usr/x' f", "write-outside"}},
}

func marksOf(cmd string) []string {
	var out []string
	for _, p := range partsOf(cmd) {
		for _, k := range p.Keys {
			if i := strings.LastIndex(k, " ["); i >= 0 && strings.HasSuffix(k, "]") {
				out = append(out, strings.Fields(k[i+2:len(k)-1])...)
			}
		}
	}
	return out
}

var writeMarks = []string{"write-outside", "device-write", "rm-tree", "fill-disk"}

func TestOutputRows(t *testing.T) {
	names := make([]string, 0, len(outputRows))
	for name := range outputRows {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			cases := outputCases[name]
			if len(cases) == 0 {
				t.Fatalf("row %q of outputRows has no test: add a case to outputCases", name)
			}
			for _, c := range cases {
				got := marksOf(c.cmd)
				if c.mark == "" {
					for _, m := range writeMarks {
						if slices.Contains(got, m) {
							t.Errorf("%s: marked %s (%v); want no write mark", c.cmd, m, got)
						}
					}
					continue
				}
				if !slices.Contains(got, c.mark) {
					t.Errorf("%s: marks %v, want %s", c.cmd, got, c.mark)
				}
			}
		})
	}
	for name := range outputCases {
		if _, ok := outputRows[name]; !ok {
			t.Errorf("outputCases has %q, which is not a row of outputRows", name)
		}
	}
}

// TestOtherWriteMarks: a move onto a device, a copy of an endless device,
// git pointed at another repository.
func TestOtherWriteMarks(t *testing.T) {
	cases := []struct{ cmd, mark string }{
		{"mv x /dev/null", "device-write"},
		{"mv -f x /dev/sda", "device-write"},
		{"cp /dev/zero big", "fill-disk"},
		{"cp /dev/urandom ~/x", "fill-disk"},
		{"cat /dev/zero > big", "fill-disk"},
		{"fallocate -l 500G big", "fill-disk"},
		{"cp x.img /dev/sdb", "device-write"},
		{"install -m 644 x /dev/nvme0n1", "device-write"},
		{"git -C /etc status", "repo-outside"},
		{"git -C ~/other log", "repo-outside"},
		{"git --git-dir=/srv/r.git log", "repo-outside"},
		{"git --work-tree /tmp/../etc status", "repo-outside"},
		{"git -C \"$D\" status", "repo-outside"},
		{"make -C /srv/other test", "repo-outside"},
		{"make -f /srv/x.mk", "repo-outside"},
		{"make --directory=~/other", "repo-outside"},
		{"go -C /srv/x test ./...", "repo-outside"},
		{"cargo build --manifest-path /srv/x/Cargo.toml", "repo-outside"},
		{"npm --prefix /srv/x test", "repo-outside"},
		{"pytest --rootdir=/srv/x", "repo-outside"},
	}
	for _, c := range cases {
		if got := marksOf(c.cmd); !slices.Contains(got, c.mark) {
			t.Errorf("%s: marks %v, want %s", c.cmd, got, c.mark)
		}
	}
	for _, cmd := range []string{"mv a.txt b.txt", "cp a.txt b.txt", "git -C src status", "git log -C", "git status", "make -C src test", "make -f build.mk", "npm --prefix . test", "go -C sub test ./..."} {
		for _, m := range append(writeMarks, "repo-outside") {
			if slices.Contains(marksOf(cmd), m) {
				t.Errorf("%s: marked %s", cmd, m)
			}
		}
	}
}

// TestOutputControls: a path written through an option is checked by
// limen's self-protection like any operand.
func TestOutputControls(t *testing.T) {
	for _, cmd := range []string{
		"sort -o ~/.claude/settings.json x",
		"git diff --output=/home/ana/.local/share/limen/limen.db",
		"git log --output ~/.claude/settings.json",
		"git show --output=/home/ana/.claude/settings.local.json",
		"curl -so ~/.claude/settings.json https://x",
		"wget -O /home/ana/.codex/config.toml https://x",
		"sed -n 'w /home/ana/.claude/settings.json' README.md",
		"sed 's/x/y/w /home/ana/.gemini/settings.json' a",
		"pytest --basetemp=/home/ana/.local/share",
		"go build -o /home/ana/.claude/settings.json .",
		"uniq a /home/ana/.claude/settings.json",
		"tar xf evil.tar -C /home/ana/.claude",
		"echo x | tee ~/.claude/settings.json",
		"git -C ~ diff --output=.claude/settings.json",
		"git -C /home -C ana log --output .local/share/limen/limen.db",
		"xxd -r dump /home/ana/.claude/settings.json",
		"less -o ~/.claude/settings.json README.md",
		"tree -o ~/.claude/settings.json",
	} {
		found := false
		for _, p := range partsOf(cmd) {
			if p.Control != "" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: not a control: %v", cmd, partsOf(cmd))
		}
	}
	for _, cmd := range []string{"sort -o out.txt a.txt", "git diff --output=d.patch", "sed -n 'w out.txt' a"} {
		for _, p := range partsOf(cmd) {
			if p.Control != "" {
				t.Errorf("%s: a control (%s)", cmd, p.Control)
			}
		}
	}
}

func TestSedScriptWrites(t *testing.T) {
	cases := []struct {
		script string
		files  []string
		ok     bool
	}{
		{"1,10p", nil, true},
		{"w out", []string{"out"}, true},
		{"/x/w /etc/a\np", []string{"/etc/a"}, true},
		{"s/a/b/gw f", []string{"f"}, true},
		{`s/a\/w/b/`, nil, true},
		{"s|w|x|;W g", []string{"g"}, true},
		{"$!{N;W h\n}", []string{"h"}, true},
		{"a w text", nil, true},
		{"y/abc/xyz/", nil, true},
		{"/start/,/end/ { s/x/y/ ; w z\n}", []string{"z"}, true},
		{"\\,x,w q", []string{"q"}, true},
		{"1~2d", nil, true},
		{"K", nil, false},
		{"s/unterminated", nil, false},
	}
	for _, c := range cases {
		got, ok := sedScriptWrites(c.script)
		if ok != c.ok || !slices.Equal(got, c.files) {
			t.Errorf("sedScriptWrites(%q) = %q, %v; want %q, %v", c.script, got, ok, c.files, c.ok)
		}
	}
}

// TestNamedOutputsOfAnyProgram: a long option whose name says it takes an
// output file writes that file whatever the program, listed in
// outputRows or not (the fifteenth red-team pass: ruff check
// --output-file ~/.bashrc); a format's name is no file.
func TestNamedOutputsOfAnyProgram(t *testing.T) {
	for _, c := range []struct{ cmd, writes string }{
		{"mytool --output-file ~/.bashrc", "/home/ana/.bashrc"},
		{"mytool --outfile=.git/hooks/pre-commit", "/home/ana/shop/.git/hooks/pre-commit"},
		{"mytool check --junit-output-file Makefile", "/home/ana/shop/Makefile"},
		{"mytool --log-file /etc/cron.d/x", "/etc/cron.d/x"},
		{"mytool --output out/x.bin", "/home/ana/shop/out/x.bin"},
		{"esbuild app.ts --outfile=dist/app.js", "/home/ana/shop/dist/app.js"},
		{"tsc --outDir build", "/home/ana/shop/build/"},
		{"protoc --go_out=gen x.proto", "/home/ana/shop/gen/"},
		{"az vm list --output json", ""},
		{"kubectl get pods --output=yaml", ""},
		{"mytool --output-format json", ""},
		{"mytool --no-output", ""},
	} {
		var got []string
		for _, p := range partsOf(c.cmd) {
			got = append(got, WrittenBy(p)...)
		}
		if c.writes == "" && len(got) > 0 || c.writes != "" && !slices.Contains(got, c.writes) {
			t.Errorf("%s writes %q; want %q", c.cmd, got, c.writes)
		}
	}
}
