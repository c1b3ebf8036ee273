package predictor

import (
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Path classes, from most to least telling. A path is classed by the first
// that fits.
const (
	// ClassSecret is a file that holds credentials: .env files, SSH and
	// cloud keys, token files.
	ClassSecret = "secret"
	// ClassHomeDotfile is a dot file or dot directory right under a home
	// directory (~/.bashrc, ~/.config/…) that is not a secret.
	ClassHomeDotfile = "home-dotfile"
	// ClassWorkspace is inside the working directory.
	ClassWorkspace = "workspace"
	// ClassOutside is everything else.
	ClassOutside = "outside"
)

// fileTool says what a file tool reads or writes, by argument name, so that
// it is keyed by everything it can read: its path and the globs it reads
// below it. An approval of a Grep for TODO in ./src then vouches for
// nothing about a Grep whose glob is ".env*".
type fileTool struct {
	// root is the Claude Code tool it is keyed as, so that the policy's
	// rules and classes (written in Claude Code's names) apply to it.
	root string
	// path names the arguments that hold its path; the first present wins.
	path []string
	// globs name arguments holding globs (a string or an array) that pick
	// what it reads below the path. A glob without a slash matches at any
	// depth, as ripgrep's and the glob libraries' do.
	globs []string
	// lists name arguments holding more paths or globs, relative to the
	// working directory (Gemini's read_many_files): each is a part of its own.
	lists []string
	// search is set for a tool that reads below a directory: the working
	// directory when no path is given, as Claude Code's do.
	search bool
	// shown name the arguments that change what it shows (Grep's
	// output_mode, type): they are part of its most specific key.
	shown []string
	// dotglob is set for a tool whose wildcards match hidden names too:
	// Gemini CLI's glob and read_many_files (dot: true), and Claude
	// Code's Glob, taken to read as broadly since it may arrive for them.
	// ripgrep's Grep skips hidden files unless a glob names them.
	dotglob bool
}

var (
	pathArgs = []string{"file_path", "absolute_path", "path", "dir_path", "directory"}
	// listArgs are honoured by every file tool that reads, whatever name a
	// runtime's call arrives under: a read_many_files mapped to Read still
	// reads its include globs.
	listArgs = []string{"paths", "include", "file_paths"}
	readTool = fileTool{root: "Read", path: pathArgs, lists: listArgs, dotglob: true}
	grepTool = fileTool{root: "Grep", path: []string{"path", "dir_path", "directory"}, globs: []string{"glob", "include"},
		search: true, shown: []string{"glob", "include", "type", "output_mode", "multiline"}}
	globTool = fileTool{root: "Glob", path: []string{"path", "dir_path", "directory"}, globs: []string{"pattern", "include"},
		search: true, shown: []string{"pattern", "include"}, dotglob: true}
	lsTool = fileTool{root: "LS", path: []string{"path", "dir_path", "directory"}, search: true}
)

// fileTools are the file tools by the names runtimes give them: Claude
// Code's, Gemini CLI's (also when a call reaches limen unmapped) and
// Codex's.
var fileTools = map[string]fileTool{
	"Read":         readTool,
	"NotebookRead": {root: "NotebookRead", path: []string{"notebook_path"}},
	"Edit":         {root: "Edit", path: pathArgs},
	"Write":        {root: "Write", path: pathArgs},
	"MultiEdit":    {root: "MultiEdit", path: pathArgs},
	"NotebookEdit": {root: "NotebookEdit", path: []string{"notebook_path"}},
	"Grep":         grepTool,
	"Glob":         globTool,
	"LS":           lsTool,
	// Gemini CLI.
	"read_file":           readTool,
	"read_many_files":     readTool,
	"write_file":          {root: "Write", path: pathArgs},
	"replace":             {root: "Edit", path: pathArgs},
	"grep_search":         grepTool,
	"search_file_content": grepTool,
	"glob":                globTool,
	"list_directory":      lsTool,
	// Codex.
	"grep_files": grepTool,
	"list_dir":   lsTool,
}

// fileParts keys a file tool call: one part for its path (and the globs
// it reads below it), and one more for each path or glob it lists.
func fileParts(a Action) []Part {
	t := fileTools[a.Tool]
	var parts []Part
	for _, name := range t.lists {
		for _, raw := range stringsArg(a.Input, name) {
			part := targetPart(a, t.root, raw)
			if t.dotglob && part.Keys[1] != t.root+":"+ClassSecret && dotGlobSecretAt(part.Subject, a.Cwd, HomeDir(a)) {
				part = targetPartOf(a, t.root, part.Subject, ClassSecret)
			}
			parts = append(parts, part)
		}
	}
	raw, ok := firstArg(a.Input, t.path)
	switch {
	case ok:
	case len(parts) > 0 && !t.search:
		return capParts(parts)
	case !t.search || a.Cwd == "":
		return []Part{opaquePart(t.root, "<no path>", canonicalJSON(inputOrEmpty(a.Input)))}
	default:
		raw = a.Cwd
	}
	if !t.search {
		return capParts(append([]Part{targetPart(a, t.root, raw)}, parts...))
	}
	return capParts(append([]Part{searchPart(a, t, raw)}, parts...))
}

// filePart keys a call of a file tool that names one path, keyed as root
// (an Edit of each file a patch names, say).
func filePart(a Action, root string) Part {
	names := fileTools[a.Tool].path
	if names == nil {
		names = pathArgs
	}
	raw, ok := firstArg(a.Input, names)
	if !ok {
		return opaquePart(root, "<no path>", canonicalJSON(inputOrEmpty(a.Input)))
	}
	return targetPart(a, root, raw)
}

// maxFileParts bounds the parts of one file tool call, as maxParts does a
// shell command's: past it the call gains an opaque part.
const maxFileParts = 32

func capParts(parts []Part) []Part {
	if len(parts) <= maxFileParts {
		return parts
	}
	return append(parts[:maxFileParts], opaquePart(parts[0].Tool, "<too many paths>", ""))
}

// targetPart keys one file (or a glob of files) a tool reads or writes.
func targetPart(a Action, root, raw string) Part {
	p := ResolvePath(a, raw)
	return targetPartOf(a, root, p, ClassifyPath(a, p))
}

// targetPartOf keys the cleaned absolute path p, of class class.
func targetPartOf(a Action, root, p, class string) Part {
	l := ladder{root}
	l.add(root + ":" + class)
	// People grant files by directory (src/ yes, scripts/ no), so the
	// directory comes before the extension.
	dir := root + ":" + class + ":" + dirOf(a, p)
	l.add(dir)
	l.add(dir + "*" + extOf(p))
	l.add(root + ":" + p)
	return Part{Tool: root, Subject: p, Keys: l.done()}
}

// searchPart keys a tool that reads below a directory. Its class is
// secret when its globs could match a secret, or, with no glob to narrow
// it, when the directory holds credentials (the home directory does); the
// class and then the globs and output options come before the exact key,
// so that no approval of one search is evidence for a search of secrets.
func searchPart(a Action, t fileTool, raw string) Part {
	p := ResolvePath(a, raw)
	class := ClassifyPath(a, p)
	var globs []string
	for _, name := range t.globs {
		globs = append(globs, stringsArg(a.Input, name)...)
	}
	narrowed := false
	for _, g := range globs {
		if strings.HasPrefix(g, "!") {
			continue // an exclusion narrows nothing to secrets
		}
		narrowed = true
		if globReads(a, p, g, t.dotglob) {
			class = ClassSecret
		}
	}
	if class != ClassSecret && !narrowed && t.root != "LS" && holdsSecrets(p, a.Cwd, HomeDir(a)) {
		class = ClassSecret
	}
	l := ladder{t.root}
	l.add(t.root + ":" + class)
	l.add(t.root + ":" + class + ":" + p)
	var shown []string
	for _, name := range t.shown {
		if vs := stringsArg(a.Input, name); len(vs) > 0 {
			shown = append(shown, name+"="+strings.Join(vs, ","))
		} else if v, ok := a.Input[name].(bool); ok {
			shown = append(shown, name+"="+strconv.FormatBool(v))
		}
	}
	if len(shown) > 0 {
		l.add(t.root + ":" + class + ":" + p + " " + strings.Join(shown, " "))
	}
	return Part{Tool: t.root, Subject: p, Keys: l.done()}
}

// globReads reports whether the glob g, searched below the directory p,
// could match a secret (with dotglob, its wildcards match hidden names
// too). It is read both from p (as the glob libraries do,
// so "../.ssh/*" leaves it) and at any depth below p (as ripgrep reads a
// glob without a slash), which is broader than either tool alone.
func globReads(a Action, p, g string, dotglob bool) bool {
	home := HomeDir(a)
	match := secretAt
	if dotglob {
		match = dotGlobSecretAt
	}
	if strings.HasPrefix(g, "/") || g == "~" || strings.HasPrefix(g, "~/") {
		return match(g, a.Cwd, home)
	}
	p = strings.TrimSuffix(p, "/")
	return match(p+"/"+g, a.Cwd, home) || match(p+"/**/"+g, a.Cwd, home)
}

// firstArg returns the first of names that is a non-empty string argument.
func firstArg(in map[string]any, names []string) (string, bool) {
	for _, n := range names {
		if s, ok := stringArg(in, n); ok {
			return s, true
		}
	}
	return "", false
}

// stringsArg returns a string argument, or the strings of an array
// argument, trimmed and non-empty. Anything else in an array is kept as its
// JSON text, so that it still shows in the keys.
func stringsArg(in map[string]any, name string) []string {
	switch v := in[name].(type) {
	case string:
		if s := strings.TrimSpace(v); s != "" {
			return []string{s}
		}
	case []any:
		var out []string
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				s = canonicalJSON(e)
			}
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// patchFileMarks start the lines of a Codex apply_patch patch that name a
// file it writes.
var patchFileMarks = []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "}

// applyPatchParts keys Codex's apply_patch (the patch in its "command", as
// Codex's hooks send it) as one Edit part per file the patch writes, so the
// rules and classes for edits (the shipped block on ~/.codex/**, say) apply
// to each. A patch that names no file is opaque: never allowed by learning.
func applyPatchParts(a Action) []Part {
	text, _ := stringArg(a.Input, "command")
	if text == "" {
		text, _ = stringArg(a.Input, "input")
	}
	var parts []Part
	seen := map[string]bool{}
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		for _, mark := range patchFileMarks {
			path, ok := strings.CutPrefix(line, mark)
			if !ok || strings.TrimSpace(path) == "" || seen[path] {
				continue
			}
			seen[path] = true
			edit := a
			edit.Tool, edit.Input = "Edit", map[string]any{"file_path": strings.TrimSpace(path)}
			parts = append(parts, filePart(edit, "Edit"))
		}
	}
	if len(parts) == 0 {
		return []Part{opaquePart("apply_patch", "<no file>", capLen(text, maxRootLen))}
	}
	return parts
}

// ResolvePath returns raw as a cleaned absolute path: "~" is the action's
// [HomeDir], a relative path is joined to the working directory. Without a
// working directory a relative path stays relative (and is classed outside).
func ResolvePath(a Action, raw string) string {
	if raw == "~" || strings.HasPrefix(raw, "~/") {
		if h := HomeDir(a); h != "" {
			raw = h + raw[1:]
		}
	}
	if !strings.HasPrefix(raw, "/") && a.Cwd != "" {
		raw = a.Cwd + "/" + raw
	}
	return path.Clean(raw)
}

// ClassifyPath returns the class of a cleaned absolute path p for action a:
// [ClassSecret], [ClassHomeDotfile], [ClassWorkspace] or [ClassOutside].
func ClassifyPath(a Action, p string) string {
	if secretAt(p, a.Cwd, HomeDir(a)) {
		return ClassSecret
	}
	home := homeOf(p)
	if home == "" {
		if h := HomeDir(a); h != "" && strings.HasPrefix(p, h+"/") {
			home = h
		}
	}
	if home != "" && strings.HasPrefix(p, home+"/.") {
		return ClassHomeDotfile
	}
	cwd := cleanAbs(a.Cwd)
	if cwd != "" && cwd != "/" && (p == cwd || strings.HasPrefix(p, cwd+"/")) {
		return ClassWorkspace
	}
	return ClassOutside
}

// cleanAbs cleans an absolute path and returns "" for anything else.
func cleanAbs(p string) string {
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	return path.Clean(p)
}

// homeOf returns the home directory a cleaned absolute path lies under, as
// its shape shows (/home/x, /Users/x, /root), or "".
func homeOf(p string) string {
	if p == "/root" || strings.HasPrefix(p, "/root/") {
		return "/root"
	}
	for _, base := range [...]string{"/home/", "/Users/"} {
		if rest, ok := strings.CutPrefix(p, base); ok && rest != "" {
			user, _, _ := strings.Cut(rest, "/")
			return base + user
		}
	}
	return ""
}

// dirOf names the first directory of p below its base: the working
// directory ("./src/"), else the home directory ("~/.config/"), else the
// root ("/etc/"). A file right in its base gets the base alone ("./").
func dirOf(a Action, p string) string {
	base, rel := "/", strings.TrimPrefix(p, "/")
	if cwd := cleanAbs(a.Cwd); cwd != "" && cwd != "/" && strings.HasPrefix(p, cwd+"/") {
		base, rel = "./", p[len(cwd)+1:]
	} else if h := HomeDir(a); h != "" && strings.HasPrefix(p, h+"/") {
		base, rel = "~/", p[len(h)+1:]
	}
	first, _, found := strings.Cut(rel, "/")
	if !found {
		return base
	}
	return base + first + "/"
}

// extOf returns the lowercased extension of p's base name, or "noext".
func extOf(p string) string {
	ext := strings.ToLower(path.Ext(path.Base(p)))
	switch {
	case ext == "" || ext == ".":
		return "noext"
	case len(ext) > 16:
		return "longext"
	}
	return ext
}

func webFetchPart(a Action) Part {
	const root = "WebFetch"
	raw, ok := stringArg(a.Input, "url")
	if !ok {
		return opaquePart(root, "<no url>", canonicalJSON(inputOrEmpty(a.Input)))
	}
	u, err := url.Parse(raw)
	if err == nil && u.Host == "" && u.Scheme == "" {
		u, err = url.Parse("https://" + raw)
	}
	if err != nil || u.Hostname() == "" {
		return opaquePart(root, "<unparsed>", raw)
	}
	host := strings.ToLower(u.Hostname())
	l := ladder{root}
	l.add(root + ":" + host)
	seg, _, _ := strings.Cut(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	if seg != "" {
		l.add(root + ":" + host + "/" + seg)
	}
	l.add(root + ":" + raw)
	return Part{Tool: root, Subject: raw, Keys: l.done()}
}

func webSearchPart(a Action) Part {
	const root = "WebSearch"
	q, ok := stringArg(a.Input, "query")
	if !ok {
		return opaquePart(root, "<no query>", canonicalJSON(inputOrEmpty(a.Input)))
	}
	q = strings.Join(strings.Fields(q), " ")
	l := ladder{root}
	l.add(root + ":" + q)
	return Part{Tool: root, Subject: q, Keys: l.done()}
}

// salientArgs name the MCP arguments that identify what a call touches.
var salientArgs = map[string]bool{
	"owner": true, "repo": true, "repository": true, "path": true, "file_path": true, "url": true,
	"name": true, "database": true, "db": true, "schema": true, "table": true, "channel": true,
	"channel_id": true, "project": true, "project_id": true, "bucket": true, "branch": true,
	"namespace": true, "collection": true, "index": true, "host": true, "org": true,
	"organization": true, "team": true, "workspace": true, "site": true, "page_id": true,
	"database_id": true, "issue_number": true, "pull_number": true, "method": true,
}

const (
	maxSalient    = 3
	maxSalientLen = 100
)

// mcpPart keys an MCP tool call; ok is false when the name has no tool.
func mcpPart(a Action) (Part, bool) {
	rest := strings.TrimPrefix(a.Tool, "mcp__")
	i := strings.Index(rest, "__")
	if i <= 0 || i+2 >= len(rest) || len(a.Tool) > maxRootLen {
		return Part{}, false
	}
	root := "mcp__" + rest[:i]
	l := ladder{root}
	l.add(a.Tool)
	if mcpReadsSecret(a) {
		// Below the tool, so that reading files with it vouches for
		// nothing about reading secrets with it.
		l.add(a.Tool + ":" + ClassSecret)
	}
	if s := salient(a.Input); s != "" {
		l.add(a.Tool + ":" + s)
	}
	l.add(a.Tool + ":" + canonicalJSON(inputOrEmpty(a.Input)))
	return Part{Tool: a.Tool, Keys: l.done()}, true
}

// mcpPathArgs name the arguments of MCP tools that hold a path: those of
// the reference filesystem server (read_file, read_multiple_files,
// move_file …) and the names other servers use.
var mcpPathArgs = []string{"path", "paths", "file_path", "filepath", "file", "filename", "files", "source", "destination",
	"directory", "dir", "root", "uri"}

// mcpReadsSecret reports whether an MCP call names a path that could be a
// secret, or searches below a path with a pattern that could match one
// (the filesystem server's search_files).
func mcpReadsSecret(a Action) bool {
	home := HomeDir(a)
	for _, name := range mcpPathArgs {
		for _, v := range stringsArg(a.Input, name) {
			v = strings.TrimPrefix(v, "file://")
			if secretAt(v, a.Cwd, home) || holdsSecretsBelow(a, v) {
				return true
			}
		}
	}
	for _, dir := range stringsArg(a.Input, "path") {
		for _, g := range stringsArg(a.Input, "pattern") {
			if dotGlobSecretAt(strings.TrimSuffix(dir, "/")+"/**/"+g, a.Cwd, home) {
				return true
			}
		}
	}
	return false
}

// holdsSecretsBelow reports whether an MCP tool that walks a tree (the
// filesystem server's directory_tree, search_files) would walk a place of
// credentials from v.
func holdsSecretsBelow(a Action, v string) bool {
	tool := a.Tool[strings.LastIndex(a.Tool, "__")+2:]
	if !strings.Contains(tool, "tree") && !strings.Contains(tool, "search") {
		return false
	}
	return holdsSecrets(v, a.Cwd, HomeDir(a))
}

// salient renders the identifying arguments of an MCP call as sorted
// name=value pairs: the known salient names, or failing those the first two
// short string arguments by name.
func salient(in map[string]any) string {
	type kv struct{ k, v string }
	var picked []kv
	keys := sortedKeys(in)
	for _, k := range keys {
		if !salientArgs[strings.ToLower(k)] {
			continue
		}
		if v, ok := salientValue(in[k], maxSalientLen); ok {
			picked = append(picked, kv{k, v})
		}
	}
	if len(picked) == 0 {
		for _, k := range keys {
			if v, ok := salientValue(in[k], 64); ok {
				picked = append(picked, kv{k, v})
				if len(picked) == 2 {
					break
				}
			}
		}
	}
	if len(picked) > maxSalient {
		picked = picked[:maxSalient]
	}
	sort.Slice(picked, func(i, j int) bool { return picked[i].k < picked[j].k })
	var b strings.Builder
	for i, p := range picked {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.k)
		b.WriteByte('=')
		b.WriteString(p.v)
	}
	return b.String()
}

func salientValue(v any, max int) (string, bool) {
	switch v := v.(type) {
	case string:
		v = strings.TrimSpace(v)
		if v == "" || len(v) > max || strings.ContainsAny(v, "\n,") {
			return "", false
		}
		return v, true
	case float64, int, int64, bool:
		return canonicalJSON(v), true
	}
	return "", false
}
