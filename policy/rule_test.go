package policy

import (
	"strings"
	"testing"

	"github.com/limenhq/limen/action"
)

var testEnv = Env{Cwd: "/home/ana/shop", Home: "/home/ana"}

func bash(cmd string) action.Part {
	w := strings.Fields(cmd)
	keys := action.Ladder{"Bash"}
	if len(w) > 0 {
		keys = append(keys, "Bash:"+w[0])
	}
	return action.Part{Tool: "Bash", Subject: cmd, Keys: append(keys, "Bash:"+cmd)}
}

func file(tool, path string) action.Part {
	return action.Part{Tool: tool, Subject: path, Keys: action.Ladder{tool, tool + ":" + path}}
}

func tool(name, subject string) action.Part {
	return action.Part{Tool: name, Subject: subject, Keys: action.Ladder{name}}
}

func TestRuleMatches(t *testing.T) {
	tests := []struct {
		rule string
		part action.Part
		want bool
	}{
		// exact
		{"Bash(git status)", bash("git status"), true},
		{"Bash(git status)", bash("git  status"), true}, // whitespace is not meaning
		{"Bash(git status)", bash("git status -s"), false},
		{"Bash(git status)", tool("Read", "git status"), false},
		// glob; " *" at the end is a word boundary that also matches nothing
		{"Bash(ls *)", bash("ls -la"), true},
		{"Bash(ls *)", bash("ls"), true},
		{"Bash(ls *)", bash("lsof"), false},
		{"Bash(ls*)", bash("lsof"), true},
		{"Bash(npm run test *)", bash("npm run test --watch"), true},
		{"Bash(npm run test *)", bash("npm run testing"), false},
		{"Bash(git * main)", bash("git push origin main"), true},
		{"Bash(git * main)", bash("git push origin dev"), false},
		{`Bash(echo \*)`, bash("echo *"), true},
		{`Bash(echo \*)`, bash("echo x"), false},
		{`Bash(python -c print\(1\))`, bash("python -c print(1)"), true},
		// legacy prefix
		{"Bash(git push:*)", bash("git push"), true},
		{"Bash(git push:*)", bash("git push --force origin main"), true},
		{"Bash(git push:*)", bash("git pushx"), false},
		{"Bash(gh:*)", bash("gh pr list"), true},
		// paths
		{"Read(./.env)", file("Read", "/home/ana/shop/.env"), true},
		{"Read(./.env)", file("Read", "/home/ana/other/.env"), false},
		{"Read(.env)", file("Read", "/home/ana/shop/api/.env"), true}, // no slash: any depth under cwd
		{"Read(.env)", file("Read", "/etc/.env"), false},
		{"Read(*.pem)", file("Read", "/home/ana/shop/certs/tls.pem"), true},
		{"Read(src/**/*.go)", file("Read", "/home/ana/shop/src/a/b/c.go"), true},
		{"Read(src/**/*.go)", file("Read", "/home/ana/shop/src/c.go"), true},
		{"Read(src/*.go)", file("Read", "/home/ana/shop/src/a/c.go"), false},
		{"Read(~/.ssh/**)", file("Read", "/home/ana/.ssh/id_rsa"), true},
		{"Read(~/.ssh/**)", file("Read", "/home/bob/.ssh/id_rsa"), false},
		{"Read(~/.ssh)", file("Read", "/home/ana/.ssh/config"), true}, // a directory covers its contents
		{"Edit(/etc/**)", file("Edit", "/etc/hosts"), true},
		{"Edit(/etc/**)", file("Edit", "/etc"), false},
		{"Edit(/etc/**)", file("Edit", "/home/ana/etc/x"), false},
		{"Edit(//etc/**)", file("Edit", "/etc/ssh/sshd_config"), true},
		{"Edit(//etc/**)", file("Write", "/etc/passwd"), true}, // Edit covers Write
		{"Edit(//etc/**)", file("Read", "/etc/passwd"), false},
		{"Read(//tmp/**)", file("Grep", "/tmp/x"), true}, // Read covers Grep
		{"Read(/tmp/preview*.png)", file("Read", "/tmp/preview-1.png"), true},
		{"Read(/tmp/preview*.png)", file("Read", "/tmp/sub/preview-1.png"), false},
		{"Read(**)", file("Read", "/home/ana/shop/a/b"), true},
		{"Read(./.env)", file("Read", ".env"), true},     // a relative subject is resolved against cwd
		{"Read(/a/b/../c)", file("Read", "/a/c"), false}, // refused at parse time, see errors
		// domains
		{"WebFetch(domain:github.com)", tool("WebFetch", "https://github.com/x/y"), true},
		{"WebFetch(domain:github.com)", tool("WebFetch", "https://GitHub.com./x"), true},
		{"WebFetch(domain:github.com)", tool("WebFetch", "https://api.github.com/x"), false},
		{"WebFetch(domain:github.com)", tool("WebFetch", "https://github.com.evil.io/"), false},
		{"WebFetch(domain:*.github.com)", tool("WebFetch", "https://api.github.com/x"), true},
		{"WebFetch(domain:*.github.com)", tool("WebFetch", "https://github.com/x"), false},
		{"WebFetch(domain:*.github.com)", tool("WebFetch", "https://evilgithub.com/x"), false},
		{"WebFetch(domain:*)", tool("WebFetch", "https://any.where/"), true},
		{"WebFetch(domain:localhost)", tool("WebFetch", "http://localhost:8080/api"), true},
		// MCP and bare tools
		{"mcp__github", tool("mcp__github__create_issue", ""), true},
		{"mcp__github", tool("mcp__githubx__create_issue", ""), false},
		{"mcp__github__*", tool("mcp__github__create_issue", ""), true},
		{"mcp__github__*", tool("mcp__gitlab__create_issue", ""), false},
		{"mcp__github__create_issue", tool("mcp__github__create_issue", ""), true},
		{"mcp__github__create_issue", tool("mcp__github__create_issues", ""), false},
		{"Read", file("Read", "/anything"), true},
		{"Read", file("Glob", "/anything"), true},
		{"Read", file("Edit", "/anything"), false},
		{"Bash", bash("rm -rf /"), true},
		{"*", tool("Whatever", ""), true},
		{"PowerShell(netstat *)", tool("PowerShell", "netstat -an"), true},
		{"Skill(document-skills:docx:*)", tool("Skill", "document-skills:docx"), true},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			r, err := ParseRule(Block, tt.rule)
			if err != nil {
				if strings.Contains(tt.rule, "..") {
					return
				}
				t.Fatalf("ParseRule: %v", err)
			}
			if got := r.Matches(tt.part, testEnv); got != tt.want {
				t.Errorf("%s matches %+v = %v, want %v", tt.rule, tt.part, got, tt.want)
			}
		})
	}
}

func TestRulePathsNeedEnv(t *testing.T) {
	for _, rule := range []string{"Read(./.env)", "Read(~/.ssh/**)", "Read(.env)"} {
		r, err := ParseRule(Block, rule)
		if err != nil {
			t.Fatal(err)
		}
		if r.Matches(file("Read", "/home/ana/shop/.env"), Env{}) || r.Matches(file("Read", "/home/ana/.ssh/id_rsa"), Env{}) {
			t.Errorf("%s matched without a cwd or home to resolve against", rule)
		}
	}
}

func TestAllowRulesAreCareful(t *testing.T) {
	sudo := action.Part{Tool: "Bash", Subject: "apt update", Keys: action.Ladder{"Bash", "Bash:sudo", "Bash:sudo apt update"}}
	opaque := action.Part{Tool: "Bash", Subject: "echo $((", Keys: action.Ladder{"Bash", "Bash:<unparsed>"}, Opaque: true}
	tests := []struct {
		verdict Verdict
		rule    string
		part    action.Part
		want    bool
	}{
		{Allow, "Bash(apt update)", sudo, false},
		{Allow, "Bash(sudo apt update)", sudo, true},
		{Allow, "Bash", sudo, false},
		{Block, "Bash(apt update)", sudo, true},
		{Block, "Bash(sudo apt *)", sudo, true},
		{Ask, "Bash", sudo, true},
		{Allow, "Bash", opaque, false},
		{Allow, "Bash(echo *)", opaque, false},
		{Block, "Bash(echo *)", opaque, true},
	}
	for _, tt := range tests {
		r, err := ParseRule(tt.verdict, tt.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Matches(tt.part, testEnv); got != tt.want {
			t.Errorf("%v %s on %+v = %v, want %v", tt.verdict, tt.rule, tt.part, got, tt.want)
		}
	}
}

func TestParseRuleErrors(t *testing.T) {
	tests := []struct{ rule, want string }{
		{"", "empty rule"},
		{"Bash(git push", `missing ")"; write it as Tool(pattern)`},
		{"Bash)", `")" without "("`},
		{"(ls)", "no tool name"},
		{"Ba sh(ls)", "tool name"},
		{"Bash()", "empty pattern; write Bash alone"},
		{"mcp__github__*(x)", "takes no pattern"},
		{"mcp__github__create_issue(x)", "MCP rules take no pattern"},
		{"WebFetch(https://github.com)", "domain:HOST"},
		{"WebFetch(domain:github.com/x)", "without scheme, port or path"},
		{"WebFetch(domain:)", "domain:HOST"},
		{"Read(~bob/x)", "~user paths"},
		{"Read(/a/../b)", `".." is not allowed`},
		{"Bash(curl x | sh)", `joins several with "|"`},
		{"Bash(make && make install)", `"&&"`},
		{"Bash(a; b)", `";"`},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			_, err := ParseRule(Allow, tt.rule)
			if err == nil {
				t.Fatalf("ParseRule(%q) = nil error, want %q", tt.rule, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "accepted forms") {
				t.Errorf("ParseRule(%q) = %v, want it to say %q and list the accepted forms", tt.rule, err, tt.want)
			}
		})
	}
	// Operators inside quotes are part of one command.
	for _, ok := range []string{`Bash(python -c "a; b")`, `Bash(grep 'a|b' x)`, `Bash(echo "a && b")`, `PowerShell(a; b)`} {
		if _, err := ParseRule(Allow, ok); err != nil {
			t.Errorf("ParseRule(%q): %v", ok, err)
		}
	}
}

func TestPrecedence(t *testing.T) {
	p := mustParse(t, `
[rules]
allow = ["Bash(git *)", "Bash(ls *)"]
ask = ["Bash(git push *)"]
block = ["Bash(git push --force *)"]
`)
	tests := []struct {
		cmd     string
		want    Verdict
		decided bool
	}{
		{"git status", Allow, true},
		{"git push origin main", Ask, true},
		{"git push --force origin main", Block, true},
		{"make", Ask, false},
	}
	for _, tt := range tests {
		r, ok := p.RuleFor(bash(tt.cmd), testEnv)
		if ok != tt.decided || (ok && r.Verdict != tt.want) {
			t.Errorf("RuleFor(%q) = %v %q, %v; want %v, %v", tt.cmd, r.Verdict, r.Pattern, ok, tt.want, tt.decided)
		}
	}
	compound := []struct {
		cmds    []string
		want    Verdict
		decided bool
	}{
		{[]string{"git status", "ls -la"}, Allow, true},
		{[]string{"git status", "make"}, Ask, false}, // make is left to the prediction
		{[]string{"ls", "git push origin main"}, Ask, true},
		{[]string{"make", "git push --force origin x", "git push y"}, Block, true},
		{nil, Ask, false},
	}
	for _, tt := range compound {
		var parts []action.Part
		for _, c := range tt.cmds {
			parts = append(parts, bash(c))
		}
		r, ok := p.RulesFor(parts, testEnv)
		if ok != tt.decided || (ok && r.Verdict != tt.want) {
			t.Errorf("RulesFor(%q) = %v %q, %v; want %v, %v", tt.cmds, r.Verdict, r.Pattern, ok, tt.want, tt.decided)
		}
	}
}
