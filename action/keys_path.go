package action

import (
	"net/url"
	"path"
	"sort"
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
	// ClassRunsConfig is a file in the working directory that an
	// ordinary command runs or obeys, or that steers the next agent
	// session (runsConfig), for the tools that write it.
	ClassRunsConfig = "runs-config"
	// ClassOutside is everything else.
	ClassOutside = "outside"
)

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
	if secretAt(p, a.Cwd, HomeDir(a)) || a.Self.holdsRecords(p, a.Cwd, HomeDir(a), false) {
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
