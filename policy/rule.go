package policy

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/limenhq/limen/action"
)

// acceptedForms ends every rule syntax error, so the user sees what works.
const acceptedForms = "accepted forms: Tool (whole tool, e.g. Read), Bash(git status) (exact), " +
	"Bash(npm run test *) (glob; a trailing \" *\" also matches nothing), Bash(git push:*) (prefix), " +
	"Read(./.env), Read(~/.ssh/**), Edit(//etc/**), Edit(/etc/**), WebFetch(domain:github.com), " +
	"WebFetch(domain:*.github.com), mcp__github, mcp__github__*, mcp__github__create_issue, *"

// Rule is one hard rule, written the way Claude Code users write permission
// rules: a tool name, optionally followed by a pattern in parentheses.
//
// How the pattern is read depends on the tool:
//
//   - Bash, and any tool this package does not know (PowerShell, Skill, …):
//     a glob over Part.Subject where * matches anything; a trailing " *" or
//     the legacy ":*" also matches the bare command, so Bash(ls *) matches
//     "ls" and "ls -la" but not "lsof". \( \) \* \\ are escapes.
//   - Read, Edit and the other file tools: a gitignore-style path glob over
//     the absolute path: //abs and /abs are absolute, ~/ is the home
//     directory, ./x and x/y are relative to the working directory, and a
//     pattern without a slash (*.pem) matches at any depth under it. ** spans
//     directories; a pattern that names a directory covers what is inside.
//   - WebFetch: domain:HOST matches that host exactly, domain:*.HOST its
//     subdomains, domain:* every host.
//
// As in Claude Code, a Read rule also covers the tools that only read files
// (Glob, Grep, LS, NotebookRead) and an Edit rule every tool that edits files
// (Write, MultiEdit, NotebookEdit). A bare mcp__server covers every tool of
// that server, and tool names may be globs (mcp__github__*, *).
type Rule struct {
	// Verdict is what the rule decides. It is meaningless for the rules that
	// only say which risk class a part belongs to (Class.Rules).
	Verdict Verdict
	// Pattern is the rule as written.
	Pattern string

	tool   string         // exact tool name, or "" when toolRE is set
	toolRE *regexp.Regexp // tool name glob
	kind   ruleKind
	re     *regexp.Regexp // command or path remainder, by kind
	filter literalFilter  // for kindCommand: what every match must contain
	base   pathBase       // for kindPath
	domain string         // for kindDomain: host, ".host" for subdomains, "*" for all
}

type ruleKind int8

const (
	kindTool    ruleKind = iota // bare tool: every use
	kindCommand                 // glob over the subject
	kindPath                    // path glob
	kindDomain                  // WebFetch host
)

type pathBase int8

const (
	baseRoot pathBase = iota
	baseHome
	baseCwd
)

// Env is what path patterns are resolved against.
type Env struct {
	// Cwd is the agent's working directory, for ./x and relative patterns.
	Cwd string
	// Home is the user's home directory, for ~/ patterns.
	Home string
}

var (
	toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_*-]+$`)
)

// readTools and editTools are the tools a Read or Edit rule also covers.
var (
	readTools = map[string]bool{"Read": true, "Glob": true, "Grep": true, "LS": true, "NotebookRead": true}
	editTools = map[string]bool{"Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true}
)

func isFileTool(tool string) bool { return readTools[tool] || editTools[tool] }

// ParseRule parses one rule in Claude Code's permission syntax. The error
// says what is wrong and lists the accepted forms.
func ParseRule(verdict Verdict, pattern string) (Rule, error) {
	r := Rule{Verdict: verdict, Pattern: pattern}
	fail := func(format string, args ...any) (Rule, error) {
		return Rule{}, fmt.Errorf("%q: %s; %s", pattern, fmt.Sprintf(format, args...), acceptedForms)
	}
	s := strings.TrimSpace(pattern)
	if s == "" {
		return fail("empty rule")
	}
	tool, spec, hasSpec := strings.Cut(s, "(")
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			return fail(`missing ")"; write it as Tool(pattern)`)
		}
		spec = spec[:len(spec)-1]
	} else if strings.Contains(s, ")") {
		return fail(`")" without "("; write it as Tool(pattern)`)
	}
	tool = strings.TrimSpace(tool)
	if tool == "" {
		return fail("no tool name before \"(\"")
	}
	if !toolNameRE.MatchString(tool) {
		return fail("tool name %q may hold only letters, digits, _, - and *", tool)
	}
	if strings.Contains(tool, "*") {
		if hasSpec {
			return fail("a tool glob (%s) takes no pattern", tool)
		}
		r.toolRE = regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(tool), `\*`, ".*") + "$")
	} else {
		r.tool = tool
	}
	if !hasSpec {
		r.kind = kindTool
		return r, nil
	}
	if strings.TrimSpace(spec) == "" {
		return fail("empty pattern; write %s alone for every use of the tool", tool)
	}
	var err error
	switch {
	case strings.HasPrefix(tool, "mcp__"):
		return fail("MCP rules take no pattern; name the tool (mcp__server__tool) or the server (mcp__server)")
	case tool == "WebFetch":
		err = r.parseDomain(spec)
	case isFileTool(tool):
		err = r.parsePath(spec)
	default:
		err = r.parseCommand(tool, spec)
	}
	if err != nil {
		return fail("%v", err)
	}
	return r, nil
}

func (r *Rule) parseDomain(spec string) error {
	host, ok := strings.CutPrefix(spec, "domain:")
	if !ok {
		return errors.New("a WebFetch pattern must be domain:HOST")
	}
	host = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
	switch {
	case host == "*":
		r.domain = "*"
	case strings.HasPrefix(host, "*."):
		r.domain = host[1:]
	default:
		r.domain = host
	}
	if r.domain == "" || r.domain == "." || strings.ContainsAny(r.domain[1:], "*/ :") {
		return errors.New("domain:HOST takes a host name such as github.com or *.github.com, without scheme, port or path")
	}
	r.kind = kindDomain
	return nil
}

// commandOperator returns the first shell operator outside quotes that
// joins simple commands (|, ||, |&, &&, ;), or "". A part is one simple
// command, so a pattern holding one could never match.
func commandOperator(s string) string {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ';':
			return ";"
		case c == '|':
			if i+1 < len(s) && (s[i+1] == '|' || s[i+1] == '&') {
				return s[i : i+2]
			}
			return "|"
		case c == '&' && i+1 < len(s) && s[i+1] == '&':
			return "&&"
		}
	}
	return ""
}

func (r *Rule) parseCommand(tool, spec string) error {
	spec = unescape(spec)
	if op := commandOperator(spec); tool == "Bash" && op != "" {
		return fmt.Errorf("rules match one simple command at a time and this pattern joins several with %q; write one rule per command", op)
	}
	spec = strings.Join(strings.Fields(spec), " ")
	prefix := false
	switch {
	case strings.HasSuffix(spec, ":*"):
		spec, prefix = strings.TrimSuffix(spec, ":*"), true
	case strings.HasSuffix(spec, " *") && !strings.HasSuffix(spec, `\ *`):
		spec, prefix = strings.TrimSuffix(spec, " *"), true
	}
	body := globToRegexp(spec, ".*", ".*", "")
	if prefix {
		body += `(?: .*)?`
	}
	re, err := regexp.Compile(`(?s)^` + body + `$`)
	if err != nil {
		return fmt.Errorf("pattern does not compile: %v", err)
	}
	r.kind, r.re = kindCommand, re
	r.filter = newLiteralFilter(body)
	return nil
}

func (r *Rule) parsePath(spec string) error {
	p := strings.TrimSpace(unescape(spec))
	switch {
	case strings.HasPrefix(p, "//"):
		r.base, p = baseRoot, p[2:]
	case p == "~" || strings.HasPrefix(p, "~/"):
		r.base, p = baseHome, strings.TrimPrefix(strings.TrimPrefix(p, "~"), "/")
	case strings.HasPrefix(p, "~"):
		return errors.New("~user paths are not supported; write ~/path or an absolute //path")
	case strings.HasPrefix(p, "/"):
		r.base, p = baseRoot, p[1:]
	case strings.HasPrefix(p, "./"):
		r.base, p = baseCwd, p[2:]
	default:
		r.base = baseCwd
		if !strings.Contains(strings.TrimSuffix(p, "/"), "/") {
			p = "**/" + p // gitignore: no slash matches at any depth
		}
	}
	p = strings.TrimSuffix(strings.TrimLeft(p, "/"), "/")
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return errors.New(`".." is not allowed in a path pattern; write the path it stands for`)
		}
	}
	var b strings.Builder
	b.WriteString(`(?s)^`)
	if p != "" {
		b.WriteString(globToRegexp(p, "[^/]*", "", "[^/]"))
		b.WriteString(`(?:/.*)?`) // a directory covers what is inside it
	} else {
		b.WriteString(`.*`)
	}
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return fmt.Errorf("pattern does not compile: %v", err)
	}
	r.kind, r.re = kindPath, re
	return nil
}

// unescape drops the backslash of \( \) and \\ (Claude Code writes
// parentheses inside a rule that way). \* is kept for globToRegexp.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == ')') {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// globToRegexp translates a glob: \* is a literal star, ** is doubleStar
// (for paths: any number of directories, "" means "use star"), * is star and
// ? is question ("" means literal).
func globToRegexp(glob, star, doubleStar, question string) string {
	var b strings.Builder
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '\\' && i+1 < len(glob) && (glob[i+1] == '*' || glob[i+1] == '\\'):
			b.WriteString(regexp.QuoteMeta(glob[i+1 : i+2]))
			i++
		case c == '*' && doubleStar == "" && question != "" && i+1 < len(glob) && glob[i+1] == '*':
			// Path **: "**/" is zero or more directories, a final "**" anything.
			i++
			if i+1 < len(glob) && glob[i+1] == '/' {
				i++
				b.WriteString(`(?:.*/)?`)
			} else {
				b.WriteString(`.*`)
			}
		case c == '*':
			b.WriteString(star)
		case c == '?' && question != "":
			b.WriteString(question)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// privilegeWrappers raise privileges; the predictor keeps them as the
// second key of a Bash ladder ("Bash:sudo") and strips them from Subject.
var privilegeWrappers = map[string]bool{"sudo": true, "doas": true, "pkexec": true, "run0": true}

// privilege returns the wrapper that raises the part's privileges, or "".
func privilege(part action.Part) string {
	if len(part.Keys) < 2 || part.Keys[0] != "Bash" {
		return ""
	}
	w := strings.TrimPrefix(part.Keys[1], "Bash:")
	if privilegeWrappers[w] {
		return w
	}
	return ""
}

// Matches reports whether the rule covers the part.
//
// An allow rule never covers an opaque part (a command that could not be
// parsed may hide anything), and covers a privileged command only when the
// rule names the wrapper: Bash(apt update *) does not allow
// "sudo apt update", Bash(sudo apt update *) does. Block and ask rules match
// a privileged command with or without the wrapper.
func (r Rule) Matches(part action.Part, env Env) bool {
	if !r.matchesTool(part.Tool) {
		return false
	}
	if r.Verdict == Allow && part.Opaque {
		return false
	}
	switch r.kind {
	case kindTool:
		return r.Verdict != Allow || privilege(part) == ""
	case kindCommand:
		if r.re == nil {
			return false
		}
		subject := squeezeSpace(part.Subject)
		if w := privilege(part); w != "" {
			if r.matchesCommand(w + " " + subject) {
				return true
			}
			if r.Verdict == Allow {
				return false
			}
		}
		return r.matchesCommand(subject)
	case kindPath:
		return r.matchesPath(part.Subject, env)
	case kindDomain:
		return r.matchesDomain(part.Subject)
	}
	return false
}

func (r Rule) matchesCommand(subject string) bool {
	return r.filter.may(subject) && r.re.MatchString(subject)
}

// literalFilter rules out most subjects before a glob's regexp runs: a part
// meets every class rule and hard rule in turn, nearly all of them fail,
// and a glob such as "* .env*" backtracks over the whole subject.
type literalFilter struct {
	prefix  string   // every match starts with it ("rm -" for "rm -*r*")
	needles []string // every match contains each of them (".env" for "* .env*")
}

// newLiteralFilter reads the literals out of a glob's regexp body (as
// globToRegexp writes it, without anchors): the leading one is a prefix,
// every other one of the top-level sequence must appear somewhere.
func newLiteralFilter(body string) literalFilter {
	re, err := syntax.Parse(`(?s)`+body, syntax.Perl)
	if err != nil {
		return literalFilter{}
	}
	re = re.Simplify()
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	var f literalFilter
	for i, sub := range subs {
		if sub.Op != syntax.OpLiteral || sub.Flags&syntax.FoldCase != 0 {
			continue
		}
		if i == 0 {
			f.prefix = string(sub.Rune)
		} else {
			f.needles = append(f.needles, string(sub.Rune))
		}
	}
	return f
}

// may reports whether s can match; false is certain, true is not.
func (f literalFilter) may(s string) bool {
	if !strings.HasPrefix(s, f.prefix) {
		return false
	}
	for _, n := range f.needles {
		if !strings.Contains(s, n) {
			return false
		}
	}
	return true
}

// squeezeSpace returns s with runs of white space turned into one space and
// none at either end. Subjects from action.Parts are already like that,
// and a part meets every class rule and hard rule in turn, so the common
// case returns s as it is, without allocating.
func squeezeSpace(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' ||
			(c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ')) {
			return strings.Join(strings.Fields(s), " ")
		}
	}
	return s
}

func (r Rule) matchesTool(tool string) bool {
	switch {
	case r.toolRE != nil:
		return r.toolRE.MatchString(tool)
	case r.tool == tool:
		return true
	case r.tool == "Read":
		return readTools[tool]
	case r.tool == "Edit":
		return editTools[tool]
	case strings.HasPrefix(r.tool, "mcp__") && !strings.Contains(r.tool[len("mcp__"):], "__"):
		return strings.HasPrefix(tool, r.tool+"__")
	}
	return false
}

func (r Rule) matchesPath(subject string, env Env) bool {
	if subject == "" {
		return false
	}
	var base string
	switch r.base {
	case baseRoot:
		base = "/"
	case baseHome:
		base = env.Home
	case baseCwd:
		base = env.Cwd
	}
	if !path.IsAbs(base) {
		return false // nothing to resolve the pattern against
	}
	if !path.IsAbs(subject) {
		if !path.IsAbs(env.Cwd) {
			return false
		}
		subject = path.Join(env.Cwd, subject)
	}
	subject, base = path.Clean(subject), path.Clean(base)
	var rel string
	switch {
	case subject == base:
		rel = ""
	case base == "/":
		rel = subject[1:]
	case strings.HasPrefix(subject, base+"/"):
		rel = subject[len(base)+1:]
	default:
		return false
	}
	return r.re.MatchString(rel)
}

func (r Rule) matchesDomain(subject string) bool {
	u, err := url.Parse(subject)
	if err != nil || u.Host == "" {
		u, err = url.Parse("https://" + subject)
		if err != nil {
			return false
		}
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return false
	}
	switch {
	case r.domain == "*":
		return true
	case strings.HasPrefix(r.domain, "."):
		return strings.HasSuffix(host, r.domain)
	default:
		return host == r.domain
	}
}
