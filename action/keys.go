package action

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"unicode/utf8"
)

// KeyScheme is the version of the key ladders; bump it whenever keys change,
// so stored answers get their keys derived again. 3: Codex's apply_patch is
// keyed as the edits of the files its patch names. 4: shell words are
// expanded statically, programs that run code in their arguments are seen
// through, and what cannot be read is opaque, keyed by the whole command;
// patches are read as leniently as Codex reads them (and from a shell
// command), and the parts where Parts stops short of a command are
// Bash:<too long>, <too deep> and <too many parts>.
// 5: secrets are found by what a path or glob can match, and search tools
// are keyed by their globs.
// 6: the sixth red-team pass's marks: destroys (git stash drop, docker
// system prune …), reads-tree-outside, tests-outside, redirects-auth,
// config-env for assignments naming a file (GIT_INDEX_FILE=…), secret
// reads of metadata endpoints, netrc logins, curl --variable and
// limend's real database, discards-changes for git checkout/restore of
// one file, formatters' writes outside; curl --expand-*, compose runs and
// pytest -o/-c are opaque; elsewhere for a command run outside the project
// (cd, env -C, git -C …), and -f for sed and awk scripts read from a file.
// 7: the seventh red-team pass's marks: other-scheme for URLs with one
// slash or none (file:/etc/shadow), secret reads of curl's @FILE options
// and sed's r/R, unix-socket for curl --unix-socket, runs-outside for a
// script outside the project, runs-config for more files an approved
// command obeys; python -m REPLs fed by a pipe, node --test-reporter of a
// module and rg --pre of a program are opaque.
// 8: the exact key is always last, after the marks' level, also when the
// command is its own subcommand (git prune, git stash drop).
// 9: the eighth pass: raw disk and memory devices are secrets, pytest's
// report and log options and touch/mkdir outside the project are writes
// outside, dd if= is read.
// 10: the ninth pass: a task runner's targets and scripts (make deploy,
// npm run publish, git's and cargo's external commands) are marks of
// their own (tasks.go); go, pytest, cargo and make given code or include
// directories from outside the project run outside (runs_elsewhere.go);
// gofmt -cpuprofile writes; more apps' credential stores are secrets.
// 11: the tenth pass: a command run elsewhere (after a cd, or in a
// runtime's workdir) has the directory in its exact key ("Bash:make
// @/tmp/evil"); the runtimes' transcripts and more credential files are
// secrets.
// 12: the eleventh and twelfth passes: where a push lands (to:main,
// src:dst, --tags), a package manager's other registry, ln -s to outside,
// a redirection's target (write-outside, writes-startup, runs-config,
// destroys), the file tools' runs-config class.
const KeyScheme = 12

// MaxKeyLen is the longest key Parts returns, in bytes. A longer key is cut
// at a rune boundary and ends with "#" and 16 hex digits of a hash of the
// whole key, so distinct long commands keep distinct keys.
const MaxKeyLen = 512

// maxParts bounds how many parts one action is split into. An action with
// more simple commands keeps the first ones and gains one opaque part, so it
// can never be allowed by learning alone.
const maxParts = 64

// Parts splits an action into its simple parts and gives each a ladder of
// keys, general to specific. It never returns an empty slice; every ladder
// starts with a root key and has at least 2 keys, all distinct.
//
// Roots: the tool name ("Bash", "Read", "WebFetch", any other tool), except
// MCP tools, whose root is the server ("mcp__github"). Ladders by tool:
//
//	Bash      Bash → Bash:git → Bash:git push → Bash:git push [-f] → Bash:git push --force origin main
//	          privileged: Bash → Bash:sudo → Bash:sudo apt install → Bash:sudo apt install [-y] → Bash:sudo apt install -y jq
//	          unparsable: Bash → Bash:<unparsed> → Bash:<unparsed> <raw text>
//	          opaque ($a -rf ~, python -c …, curl … | sh): Bash → Bash:<opaque> [→ Bash:<opaque> [marks]] → Bash:<opaque> <whole command line>
//	Read etc. Read → Read:workspace → Read:workspace:./src/ → Read:workspace:./src/*.go → Read:/abs/cleaned/path
//	Grep etc. Grep → Grep:secret → Grep:secret:/abs/dir → Grep:secret:/abs/dir glob=.env* output_mode=content
//	WebFetch  WebFetch → WebFetch:github.com → WebFetch:github.com/acme → WebFetch:<url>
//	WebSearch WebSearch → WebSearch:<query>
//	MCP       mcp__github → mcp__github__create_issue → mcp__github__create_issue:owner=acme,repo=shop → mcp__github__create_issue:<canonical JSON>
//	other     Tool → Tool:<sorted argument names> → Tool:<names>:<canonical JSON>
//
// Parts is pure and deterministic: it reads nothing but its argument (the
// home directory comes from [HomeDir]).
func Parts(a Action) []Part {
	root := capLen(a.Tool, maxRootLen)
	if root == "" {
		root = "<no tool>"
	}
	switch {
	case a.Tool == "Bash":
		parts := bashParts(a)
		return append(parts, shellPatchParts(a, parts)...)
	case fileTools[a.Tool].root != "":
		return fileParts(a)
	case a.Tool == "apply_patch":
		return applyPatchParts(a)
	case a.Tool == "WebFetch":
		return []Part{webFetchPart(a)}
	case a.Tool == "WebSearch":
		return []Part{webSearchPart(a)}
	case strings.HasPrefix(a.Tool, "mcp__"):
		if p, ok := mcpPart(a); ok {
			return []Part{p}
		}
	}
	return []Part{otherPart(a, root)}
}

// HomeDir returns the home directory Parts assumes for an action's user: the
// home shown by the working directory (/home/x, /Users/x or /root) when there
// is one, else /home/<User>, else "". It reads no environment, so keys depend
// on the action alone.
func HomeDir(a Action) string {
	if h := homeOf(cleanAbs(a.Cwd)); h != "" {
		return h
	}
	if a.User != "" && !strings.ContainsAny(a.User, "/\x00") && a.User != "." && a.User != ".." {
		return "/home/" + a.User
	}
	return ""
}

// IsPrivileged reports whether a part runs with raised privileges (under
// sudo, doas, pkexec or run0). Its Subject is the unwrapped command, so a
// rule engine matching Subject should use IsPrivileged to keep an allow rule
// written for the plain command from covering the privileged one.
func IsPrivileged(p Part) bool {
	if len(p.Keys) < 2 || p.Keys[0] != "Bash" {
		return false
	}
	return privWrappers[strings.TrimPrefix(p.Keys[1], "Bash:")]
}

// privWrappers are the wrappers that raise privileges; their name is a
// ladder level of its own.
var privWrappers = map[string]bool{"sudo": true, "doas": true, "pkexec": true, "run0": true, "su": true, "runuser": true}

// ladder accumulates keys, dropping any key already present and capping
// each key's length.
type ladder []string

func (l *ladder) add(k string) {
	k = capKey(k)
	for _, e := range *l {
		if e == k {
			return
		}
	}
	*l = append(*l, k)
}

// exact adds the exact key, which is always last: when the command's text
// is one of the levels already (git prune is its own subcommand), that
// level moves to the end, after the risk marks' level. Otherwise the
// marks' level would be the exact key, and the mark would ask for the
// person's own answer of nothing (MarkLevel looks below the exact key):
// git prune was allowed on 24 approvals of other git commands.
func (l *ladder) exact(k string) {
	k = capKey(k)
	for i, e := range *l {
		if e == k {
			if i == len(*l)-1 {
				return
			}
			*l = append(append((*l)[:i:i], (*l)[i+1:]...), k)
			return
		}
	}
	*l = append(*l, k)
}

// done returns the keys, guaranteeing at least two.
func (l ladder) done() Ladder {
	if len(l) < 2 {
		l.add(l[0] + ":*")
	}
	return Ladder(l)
}

// maxRootLen bounds a root key, so every key of a ladder can start with it.
const maxRootLen = 128

func capKey(k string) string { return capLen(k, MaxKeyLen) }

// capLen cuts k to at most max bytes, ending it with a hash of the whole.
func capLen(k string, max int) string {
	if len(k) <= max {
		return k
	}
	h := fnv.New64a()
	h.Write([]byte(k))
	cut := max - 17
	for cut > 0 && !utf8.RuneStart(k[cut]) {
		cut--
	}
	return fmt.Sprintf("%s#%016x", k[:cut], h.Sum64())
}

// opaquePart is a part that could not be understood.
func opaquePart(root, what, raw string) Part {
	l := ladder{root}
	l.add(root + ":" + what)
	if raw != "" {
		l.add(root + ":" + what + " " + raw)
	}
	return Part{Tool: root, Subject: raw, Keys: l.done(), Opaque: true, Why: "limen could not parse it"}
}

// canonicalJSON renders v with sorted object keys and no HTML escaping.
func canonicalJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		if m, ok := v.(map[string]any); ok {
			return "<unencodable:" + strings.Join(sortedKeys(m), ",") + ">"
		}
		return "<unencodable>"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// otherPart keys a tool limen knows nothing about by its argument names and
// values.
func otherPart(a Action, root string) Part {
	names := strings.Join(sortedKeys(a.Input), ",")
	l := ladder{root}
	l.add(root + ":" + names)
	l.add(root + ":" + names + ":" + canonicalJSON(inputOrEmpty(a.Input)))
	return Part{Tool: root, Keys: l.done()}
}

func inputOrEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// stringArg returns a string argument, trimmed, and whether it was present.
func stringArg(in map[string]any, name string) (string, bool) {
	s, ok := in[name].(string)
	if !ok {
		return "", false
	}
	s = strings.TrimSpace(s)
	return s, s != ""
}
