package predictor

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
	// ClassOutside is everything else.
	ClassOutside = "outside"
)

// fileTools maps each file tool to the argument that names its path.
var fileTools = map[string]string{
	"Read":         "file_path",
	"Edit":         "file_path",
	"Write":        "file_path",
	"MultiEdit":    "file_path",
	"NotebookEdit": "notebook_path",
	"NotebookRead": "notebook_path",
	"Glob":         "path",
	"Grep":         "path",
	"LS":           "path",
}

// searchTools default to the working directory when no path is given, as
// Claude Code's do, instead of being opaque.
var searchTools = map[string]bool{"Glob": true, "Grep": true, "LS": true}

func filePart(a Action, root string) Part {
	raw, ok := stringArg(a.Input, fileTools[a.Tool])
	if !ok {
		if !searchTools[a.Tool] || a.Cwd == "" {
			return opaquePart(root, "<no path>", canonicalJSON(inputOrEmpty(a.Input)))
		}
		raw = a.Cwd
	}
	p := ResolvePath(a, raw)
	class := ClassifyPath(a, p)
	l := ladder{root}
	l.add(root + ":" + class)
	if !searchTools[a.Tool] {
		// People grant files by directory (src/ yes, scripts/ no), so the
		// directory comes before the extension.
		dir := root + ":" + class + ":" + dirOf(a, p)
		l.add(dir)
		l.add(dir + "*" + extOf(p))
	}
	l.add(root + ":" + p)
	return Part{Tool: root, Subject: p, Keys: l.done(), Control: fileControl(a, root, p)}
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
	if isSecretPath(p) {
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

// secretDirs are directories whose every file is a secret, wherever they
// appear (usually under a home directory).
var secretDirs = []string{"/.ssh/", "/.aws/", "/.gnupg/", "/.config/gcloud/", "/.kube/", "/.password-store/", "/.azure/", "/.docker/config.json"}

// secretNames are file names (lowercased) that hold credentials.
var secretNames = map[string]bool{
	".env": true, ".netrc": true, "_netrc": true, ".npmrc": true, ".pypirc": true, ".pgpass": true,
	".git-credentials": true, ".htpasswd": true, "shadow": true, "gshadow": true, "sudoers": true,
	"secrets.yml": true, "secrets.yaml": true, "secrets.json": true, "secrets.toml": true,
	"master.key": true, "token.json": true, "service-account.json": true,
}

// secretExts are extensions of key and certificate-store files.
var secretExts = map[string]bool{".pem": true, ".key": true, ".p12": true, ".pfx": true, ".jks": true, ".keystore": true, ".asc": true, ".gpg": true, ".kdbx": true}

// envTemplates are .env.* files meant to be committed, not secrets.
var envTemplates = map[string]bool{".example": true, ".sample": true, ".template": true, ".dist": true, ".defaults": true}

func isSecretPath(p string) bool {
	withSlash := p + "/"
	for _, d := range secretDirs {
		if strings.Contains(withSlash, d) {
			return true
		}
	}
	base := strings.ToLower(path.Base(p))
	if secretNames[base] || secretExts[path.Ext(base)] {
		return true
	}
	if rest, ok := strings.CutPrefix(base, ".env."); ok {
		return !envTemplates["."+rest]
	}
	if strings.HasSuffix(base, ".env") {
		return true // prod.env, .secrets.env
	}
	for _, k := range [...]string{"id_rsa", "id_ed25519", "id_ecdsa", "id_dsa"} {
		if strings.HasPrefix(base, k) {
			return true
		}
	}
	return strings.Contains(base, "credentials")
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
	if s := salient(a.Input); s != "" {
		l.add(a.Tool + ":" + s)
	}
	l.add(a.Tool + ":" + canonicalJSON(inputOrEmpty(a.Input)))
	return Part{Tool: a.Tool, Keys: l.done()}, true
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
