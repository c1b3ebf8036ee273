package action

import (
	"path"
	"strconv"
	"strings"
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
	if class == ClassWorkspace && (writerTools[root] || root == "apply_patch") && (runsConfig(p) || lockFiles[strings.ToLower(path.Base(p))]) {
		// CLAUDE.md, package.json, a Makefile, .husky/pre-commit: what
		// the next session or an ordinary command obeys is its own
		// class of edit (the twelfth pass wrote CLAUDE.md with Write).
		class = ClassRunsConfig
	}
	l := ladder{root}
	l.add(root + ":" + class)
	// People grant files by directory (src/ yes, scripts/ no), so the
	// directory comes before the extension.
	dir := root + ":" + class + ":" + dirOf(a, p)
	l.add(dir)
	l.add(dir + "*" + extOf(p))
	l.add(root + ":" + p)
	return Part{Tool: root, Subject: p, Keys: l.done(), Control: fileControl(a, root, p)}
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
