package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/limenhq/limen/internal/paths"
	"github.com/pelletier/go-toml/v2"
	"mvdan.cc/sh/v3/shell"
)

// hookRuntime is what doctor knows about one agent runtime's hook
// settings: where they live, how their timeout is written, and what the
// runtime does with a hook that fails. One row per runtime, each tested.
type hookRuntime struct {
	name   string // as people call it
	format string // limen-hook --format
	// files are the settings files that may hold hooks, for a home
	// directory and a project directory.
	files func(home, project string) []string
	// unit is how the settings write "timeout"; defaultTimeout is the
	// runtime's when it is absent.
	unit           time.Duration
	defaultTimeout time.Duration
	// onFailure says the runtime has Claude Code's "onFailure" key, without
	// which a hook that crashes or times out is ignored.
	onFailure bool
	// trusted says the runtime runs only hooks whose hash it has recorded
	// as trusted (Codex).
	trusted bool
	// install is the command that rewrites limen's entry in file, or ""
	// when limenctl does not write this file.
	install func(home, project, file string) string
}

var hookRuntimes = []hookRuntime{
	{
		name: "Claude Code", format: "claude-code",
		files: func(home, project string) []string {
			dir := claudeDir(home)
			return []string{filepath.Join(dir, "settings.json"), filepath.Join(dir, "settings.local.json"),
				filepath.Join(project, ".claude", "settings.json"), filepath.Join(project, ".claude", "settings.local.json")}
		},
		unit: time.Second, defaultTimeout: 60 * time.Second, onFailure: true,
		install: func(home, project, file string) string {
			scope := " --settings " + shellQuote(file)
			switch file {
			case filepath.Join(claudeDir(home), "settings.json"):
				scope = ""
			case filepath.Join(project, ".claude", "settings.json"):
				scope = " --project"
			case filepath.Join(project, ".claude", "settings.local.json"):
				scope = " --local"
			}
			return "limenctl hook uninstall claude-code" + scope + " && limenctl hook install claude-code" + scope
		},
	},
	{
		name: "Codex", format: "codex",
		files: func(home, project string) []string {
			dir := envCodexHome.get()
			if dir == "" {
				dir = filepath.Join(home, ".codex")
			}
			return []string{filepath.Join(dir, "hooks.json"), filepath.Join(dir, "config.toml"),
				filepath.Join(project, ".codex", "hooks.json"), filepath.Join(project, ".codex", "config.toml")}
		},
		unit: time.Second, defaultTimeout: 600 * time.Second, trusted: true,
		install: func(home, project, file string) string {
			return targetReinstall("codex", home, project, file)
		},
	},
	{
		name: "Gemini CLI", format: "gemini",
		files: func(home, project string) []string {
			return []string{filepath.Join(home, ".gemini", "settings.json"), filepath.Join(project, ".gemini", "settings.json")}
		},
		unit: time.Millisecond, defaultTimeout: 60 * time.Second,
		install: func(home, project, file string) string {
			return targetReinstall("gemini", home, project, file)
		},
	},
}

// targetReinstall is the command that rewrites limen's Codex or Gemini CLI
// entries in file, or "" for a file hook install does not write (Codex's
// config.toml).
func targetReinstall(name, home, project, file string) string {
	t := findTarget(name)
	scope := " --settings " + shellQuote(file)
	switch {
	case file == filepath.Join(project, t.projectFile):
		scope = " --project"
	case name == "gemini" && file == filepath.Join(home, ".gemini", "settings.json"):
		scope = ""
	case name == "codex" && filepath.Base(file) == "config.toml":
		return ""
	case name == "codex":
		if f, err := t.userFile(); err == nil && f == file {
			scope = ""
		}
	}
	return "limenctl hook uninstall " + name + scope + " && limenctl hook install " + name + scope
}

// claudeDir is Claude Code's user settings directory, as hook install finds it.
func claudeDir(home string) string {
	if dir := envClaudeDir.get(); dir != "" {
		return dir
	}
	return filepath.Join(home, ".claude")
}

// hookSite is one hook handler that runs limen-hook.
type hookSite struct {
	rt           *hookRuntime
	file         string
	event        string // as the settings spell it: PreToolUse, BeforeTool
	group, index int
	matcher      *string
	handler      map[string]any
	command      string
	// http is a hook that POSTs to limend's hook API at url (Claude Code's
	// "type": "http") instead of running limen-hook.
	http bool
	url  string
}

func (s hookSite) where() string {
	return fmt.Sprintf("%s hook in %s (%s)", s.rt.name, s.file, s.event)
}

// readHookSites returns the handlers in file whose command runs limen-hook;
// settings of Claude Code's shape: {"hooks": {EVENT: [{"matcher": …,
// "hooks": [{"type": "command", "command": …}]}]}}, in JSON or TOML.
func readHookSites(rt *hookRuntime, file string) ([]hookSite, error) {
	doc, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var v map[string]any
	if strings.HasSuffix(file, ".toml") {
		err = toml.Unmarshal(doc, &v)
	} else {
		err = json.Unmarshal(doc, &v)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	hooks, _ := v["hooks"].(map[string]any)
	var sites []hookSite
	events := make([]string, 0, len(hooks))
	for e := range hooks {
		events = append(events, e)
	}
	sort.Strings(events)
	for _, event := range events {
		groups, _ := hooks[event].([]any)
		for gi, g := range groups {
			group, _ := g.(map[string]any)
			var matcher *string
			if m, ok := group["matcher"].(string); ok {
				matcher = &m
			}
			handlers, _ := group["hooks"].([]any)
			for hi, h := range handlers {
				handler, _ := h.(map[string]any)
				command, _ := handler["command"].(string)
				hookURL, _ := handler["url"].(string)
				isHTTP := handler["type"] == "http" && strings.Contains(hookURL, "/v1/hooks/")
				if !isHTTP && !strings.Contains(command, hookMarker) {
					continue
				}
				sites = append(sites, hookSite{rt: rt, file: file, event: event, group: gi, index: hi, matcher: matcher, handler: handler, command: command, url: hookURL, http: isHTTP})
			}
		}
	}
	return sites, nil
}

func (d *doctor) checkHooks(ctx context.Context) {
	found := false
	installed := map[string]bool{}
	events := map[string]bool{} // "Codex PreToolUse": limen is on it
	defer func() { d.checkRuntimeVersions(ctx, installed) }()
	checked := map[string]bool{}
	for i := range hookRuntimes {
		rt := &hookRuntimes[i]
		for _, file := range rt.files(d.home, d.project()) {
			if !filepath.IsAbs(file) || checked[file] {
				continue // no project here, or the project's file is the user's (run in $HOME)
			}
			checked[file] = true
			sites, err := readHookSites(rt, file)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				d.add("hook", levelFail, rt.name+" settings: "+err.Error()+": the runtime may ignore the whole file, limen's hook with it",
					"fix the syntax of "+file)
				continue
			}
			for _, s := range sites {
				found = true
				installed[rt.name] = true
				d.checkHook(ctx, s)
				events[rt.name+" "+s.event] = true
			}
			if rt.format == "gemini" && len(sites) > 0 {
				d.checkGeminiEnabled(file, sites)
			}
		}
	}
	if events["Codex PermissionRequest"] && !events["Codex PreToolUse"] {
		// Codex 0.171.0, verified: a call its approval does not ask about
		// runs with limen never asked, and one it does ask about goes to
		// its automatic reviewer when limen says ask.
		d.add("hook", levelFail, "Codex runs limen-hook on PermissionRequest only, and on no PreToolUse: every tool call Codex's approval does not ask about runs without limen",
			"limenctl hook install codex (it adds both)")
	}
	if !found {
		d.add("hook", levelWarn, "no agent runtime's settings run limen-hook: limen decides nothing until one does",
			"limenctl hook install claude-code (or codex, or gemini)")
	}
}

// hookArgs are the flags of a limen-hook command line that doctor checks.
type hookArgs struct {
	bin, format, socket string
	timeout             time.Duration
}

func parseHookCommand(command string) (hookArgs, error) {
	words, err := shell.Fields(command, shellEnv)
	if err != nil {
		return hookArgs{}, err
	}
	if len(words) == 0 {
		return hookArgs{}, errors.New("the command is empty")
	}
	h := hookArgs{bin: words[0], format: "claude-code", timeout: defaultHookTimeout}
	for i := 1; i < len(words); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(words[i], "-"), "=")
		if !strings.HasPrefix(words[i], "-") {
			break
		}
		if !hasValue && i+1 < len(words) && (name == "format" || name == "socket" || name == "timeout" || name == "on-ask") {
			i++
			value = words[i]
		}
		switch name {
		case "format":
			h.format = value
		case "socket":
			h.socket = value
		case "timeout":
			t, err := time.ParseDuration(value)
			if err != nil {
				return h, fmt.Errorf("--timeout %q is not a duration", value)
			}
			h.timeout = t
		}
	}
	return h, nil
}

// parseHookURL reads a hook API URL as a command line: its last path
// segment is the format, and ?wait= the time limend may hold the request
// (none: it answers at once, so the runtime's timeout needs only a margin).
func parseHookURL(raw string) (hookArgs, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return hookArgs{}, err
	}
	h := hookArgs{bin: raw, format: path.Base(u.Path)}
	if w := u.Query().Get("wait"); w != "" {
		if h.timeout, err = time.ParseDuration(w); err != nil {
			return h, fmt.Errorf("?wait=%s is not a duration", w)
		}
	}
	return h, nil
}

// defaultHookTimeout is limen-hook's own --timeout default.
const defaultHookTimeout = 5 * time.Second

func (d *doctor) checkHook(ctx context.Context, s hookSite) {
	where := s.where()
	fixFile := func(what string) string {
		if cmd := s.rt.install; cmd != nil && !s.http { // install writes command hooks only
			if c := cmd(d.home, d.project(), s.file); c != "" {
				return c
			}
		}
		return "edit " + s.file + ": " + what
	}
	var h hookArgs
	var err error
	if s.http {
		h, err = parseHookURL(s.url)
	} else {
		h, err = parseHookCommand(s.command)
	}
	if err != nil {
		d.add("hook", levelFail, where+": cannot read its command "+strconvQuote(s.command)+": "+err.Error(), fixFile("fix limen's hook command"))
		return
	}
	red := false
	bad := func(detail, fix string) {
		red = true
		d.add("hook", levelFail, where+": "+detail, fix)
	}
	bin := h.bin
	if !filepath.IsAbs(bin) {
		if p, err := exec.LookPath(bin); err == nil {
			bin = p
		}
	}
	reinstall := "go install github.com/limenhq/limen/cmd/limen-hook@latest"
	// doctor runs the hook's binary with --version, so it must not be a
	// way to make doctor run anything: only a file named limen-hook, and
	// none that a project directory (a repository someone else wrote)
	// brings along.
	inProject := d.project() != "" && strings.HasPrefix(bin, d.project()+string(filepath.Separator))
	unchecked := false // the binary was not run: say nothing is ok
	if s.http {
		bin = s.url // no binary: limend answers the POST itself
	} else if inProject {
		unchecked = true
		d.checkProjectHookBin(s, bin, fixFile)
	} else if filepath.Base(bin) != hookMarker {
		bad("its command does not start with limen-hook: doctor did not run it, and cannot say what the runtime gets",
			fixFile("make the command start with an installed limen-hook, such as $(go env GOPATH)/bin/limen-hook"))
		return // its flags are another program's
	} else if fi, err := os.Stat(bin); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		why := "is not an executable file"
		if errors.Is(err, fs.ErrNotExist) {
			why = "does not exist"
		}
		bad(h.bin+" "+why+": every tool call fails (closed, if the runtime blocks on failure)",
			reinstall+", then "+fixFile("point the command at the installed limen-hook"))
	} else if out, err := runHookVersion(ctx, bin); err != nil || !strings.HasPrefix(out, "limen-hook ") {
		if err == nil {
			err = fmt.Errorf("it printed %s", strconvQuote(shorten(out, 60)))
		}
		bad(bin+" --version does not run as limen-hook: "+err.Error(), reinstall)
	} else if got, want := strings.TrimPrefix(out, "limen-hook "), d.mine.String(); got != want {
		d.add("hook", levelWarn, where+": "+bin+" is "+got+", limenctl is "+want, reinstall+" (from the same tree as limenctl)")
	}
	if h.format != s.rt.format {
		bad(fmt.Sprintf("--format %s, but %s reads --format %s answers: it would misread every one", h.format, s.rt.name, s.rt.format),
			fixFile("use --format "+s.rt.format))
	}
	if s.rt.onFailure && !(s.rt.format == "claude-code" && claudeObserves(s.event)) { // an observer must not block: hook.go
		if of, _ := s.handler["onFailure"].(string); of != "block" {
			bad(fmt.Sprintf(`"onFailure" is %s, not "block": when limen-hook crashes or is killed, %s ignores it and runs the tool`, strconvQuote(of), s.rt.name),
				fixFile(`set "onFailure": "block" on limen's hook`))
		}
	}
	// The runtime must wait longer than limen-hook does: at its --timeout
	// limen-hook prints ask, and an answer printed after the runtime gave
	// up is thrown away.
	rtTimeout := s.rt.defaultTimeout
	written := ""
	if t, ok := s.handler["timeout"]; ok {
		n, isNum := number(t)
		if !isNum {
			bad(fmt.Sprintf(`"timeout" is %v, not a number`, t), fixFile(`write "timeout" as a number`))
		} else {
			rtTimeout = time.Duration(n * float64(s.rt.unit))
			written = fmt.Sprintf(" (\"timeout\": %v)", t)
		}
	}
	if rtTimeout < h.timeout+time.Second {
		want := int64(math.Ceil(float64(h.timeout+5*time.Second) / float64(s.rt.unit)))
		deadline := "limen-hook's --timeout"
		if s.http {
			deadline = "the URL's ?wait="
		}
		bad(fmt.Sprintf("%s waits %v%s, not longer than %s %v: it gives up before limen's answer", s.rt.name, rtTimeout, written, deadline, h.timeout),
			fixFile(fmt.Sprintf(`set "timeout": %d on limen's hook`, want)))
	}
	if h.socket != "" && !s.http {
		if want := paths.HTTPSocketFor(d.socket); h.socket != want {
			d.add("hook", levelWarn, where+": it asks the limend at "+h.socket+", not this one ("+want+")",
				fixFile("use --socket "+want+", or run limenctl doctor --socket with the gRPC socket beside it"))
		}
	}
	if s.rt.trusted && !d.codexTrusts(s, bad) {
		red = true
	}
	if p := d.project(); s.rt.trusted && p != "" && s.file == filepath.Join(p, ".codex", "hooks.json") && !codexProjectTrusted(p) {
		bad("Codex reads this project's hooks only once it trusts the project, and its config.toml does not mark "+d.cwd+" trusted: Codex runs none of them",
			"start codex in "+d.cwd+" and answer yes when it asks whether you trust the folder")
	}
	if !red && !unchecked {
		verb := "runs " + bin + " --format " + h.format
		if s.http {
			verb = "posts to " + s.url
		}
		d.add("hook", levelOK, where+": "+verb+fmt.Sprintf(", %v before the runtime's %v", h.timeout, rtTimeout), "")
	}
}

// limenModule is the module path in the go.mod of limen's source tree.
const limenModule = "github.com/limenhq/limen"

// checkProjectHookBin reports, once per settings file, a hook whose
// limen-hook lies inside this project, which doctor does not run. A build
// of limen's own source tree named by the person's own settings is a
// developer's setup, not a project slipping in a program: a warning, and
// a fix that moves the hook to an installed limen-hook (reinstalling alone
// would write the same path again, as limen-hook is beside limenctl).
func (d *doctor) checkProjectHookBin(s hookSite, bin string, fixFile func(string) string) {
	key := s.file + "\x00" + bin
	if d.reported[key] {
		return
	}
	if d.reported == nil {
		d.reported = map[string]bool{}
	}
	d.reported[key] = true
	where := s.rt.name + " hooks in " + s.file
	tree := limenSourceTree(bin, d.project())
	projectFile := strings.HasPrefix(s.file, d.project()+string(filepath.Separator))
	installed, build := d.installedHookBin(tree)
	fix := withHookBin(fixFile("make the command start with "+installed), installed)
	if build != "" {
		fix = build + ", then " + fix
	}
	if tree != "" && !projectFile {
		d.add("hook", levelWarn, where+": "+bin+" is a build inside limen's source tree "+tree+
			": doctor does not run programs inside the directory it is run in, so it did not check this one (run limenctl doctor from another directory to have it checked); and every rebuild or git checkout there changes what each tool call runs", fix)
		return
	}
	d.add("hook", levelFail, where+": "+bin+" is inside this project, and doctor does not run what a project brings: doctor did not run it, and cannot say what the runtime gets", fix)
}

// installedHookBin is a limen-hook outside this project for the fix to
// point at: the one on $PATH, or else the one go install puts in
// $(go env GOPATH)/bin, with the command that builds it (from limen's
// source tree, when doctor runs in one).
func (d *doctor) installedHookBin(tree string) (bin, build string) {
	if p, err := exec.LookPath(hookMarker); err == nil {
		if abs, err := filepath.Abs(p); err == nil && (d.project() == "" || !strings.HasPrefix(abs, d.project()+string(filepath.Separator))) {
			return abs, ""
		}
	}
	bin = `"$(go env GOPATH)"/bin/limen-hook`
	switch {
	case tree == "":
		return bin, "go install " + limenModule + "/cmd/...@latest"
	case tree == d.project():
		return bin, "go install ./cmd/..."
	}
	return bin, "go -C " + shellQuote(tree) + " install ./cmd/..."
}

// withHookBin adds --hook-bin bin to the limenctl hook install in fix.
func withHookBin(fix, bin string) string {
	i := strings.Index(fix, "limenctl hook install ")
	if i < 0 {
		return fix
	}
	if bin != "" && bin[0] != '"' {
		bin = shellQuote(bin)
	}
	return fix + " --hook-bin " + bin
}

// limenSourceTree is the directory, from bin's up to project (to the root
// when project is ""), whose go.mod is limen's; or "".
func limenSourceTree(bin, project string) string {
	for dir := filepath.Dir(bin); project == "" || dir == project || strings.HasPrefix(dir, project+string(filepath.Separator)); dir = filepath.Dir(dir) {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(mod), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == limenModule {
					return dir
				}
			}
		}
		if dir == project || dir == filepath.Dir(dir) {
			break
		}
	}
	return ""
}

// codexTrusts checks that Codex's config.toml records the hook, as it is
// now, as trusted: Codex skips a hook whose trusted_hash is missing or was
// taken of another version of it. The hash is Codex's normalised identity
// of the handler (codex-rs config/src/fingerprint.rs, version_for_toml):
// sha256 of the canonical JSON of {event_name, matcher, hooks: [{type,
// command, timeout, async, statusMessage}]}, keyed
// "FILE:event_label:GROUP:INDEX" under [hooks.state].
func (d *doctor) codexTrusts(s hookSite, bad func(detail, fix string)) bool {
	dir := envCodexHome.get()
	if dir == "" {
		dir = filepath.Join(d.home, ".codex")
	}
	config := filepath.Join(dir, "config.toml")
	key := fmt.Sprintf("%s:%s:%d:%d", s.file, snakeCase(s.event), s.group, s.index)
	fix := "start codex and trust limen's hook when it asks (or in /hooks): Codex records a hash of the hook as it is then"
	if c := targetReinstall("codex", d.home, d.project(), s.file); c != "" {
		fix += "; or " + c + ", which records it"
	}
	var v struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	doc, err := os.ReadFile(config)
	if err == nil {
		err = toml.Unmarshal(doc, &v)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		bad("cannot read Codex's trust records in "+config+": "+err.Error(), fix)
		return false
	}
	got := v.Hooks.State[key].TrustedHash
	want := codexHookHash(s)
	switch {
	case got == "":
		bad("Codex has not trusted it ("+config+" has no [hooks.state."+strconvQuote(key)+"]): Codex does not run it", fix)
		return false
	case got != want:
		bad("Codex trusted another version of it (trusted_hash "+got+", the hook now hashes to "+want+"): Codex does not run it", fix)
		return false
	}
	return true
}

// codexHookHash is Codex's trust hash of a command hook handler.
func codexHookHash(s hookSite) string {
	timeout := int64(600)
	if n, ok := number(s.handler["timeout"]); ok {
		timeout = max(int64(n), 1)
	}
	async, _ := s.handler["async"].(bool)
	h := map[string]any{"type": "command", "command": s.command, "timeout": timeout, "async": async}
	if m, ok := s.handler["statusMessage"].(string); ok {
		h["statusMessage"] = m
	}
	identity := map[string]any{"event_name": snakeCase(s.event), "hooks": []any{h}}
	if s.matcher != nil && !codexIgnoresMatcher[s.event] {
		identity["matcher"] = *s.matcher
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // map keys come out sorted: the canonical form
	enc.SetEscapeHTML(false)
	_ = enc.Encode(identity)
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// codexIgnoresMatcher are the events whose matcher Codex drops before
// hashing, as it never matches on them.
var codexIgnoresMatcher = map[string]bool{"UserPromptSubmit": true, "Stop": true}

// snakeCase is Codex's label of an event: PreToolUse -> pre_tool_use.
func snakeCase(event string) string {
	var b strings.Builder
	for i, r := range event {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// number reads a JSON or TOML number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// checkGeminiEnabled fails when file turns Gemini CLI's hooks off, or lists
// limen's command in hooksConfig.disabled: then Gemini CLI runs every tool
// without asking limen (hooks are on by default in 0.61.0, verified).
func (d *doctor) checkGeminiEnabled(file string, sites []hookSite) {
	doc, err := os.ReadFile(file)
	if err != nil {
		return
	}
	var v struct {
		HooksConfig struct {
			Enabled  *bool    `json:"enabled"`
			Disabled []string `json:"disabled"`
		} `json:"hooksConfig"`
	}
	if json.Unmarshal(doc, &v) != nil {
		return
	}
	if e := v.HooksConfig.Enabled; e != nil && !*e {
		d.add("hook", levelFail, "Gemini CLI settings "+file+` set "hooksConfig": {"enabled": false}: Gemini CLI runs no hook, limen's with them, and every tool without asking limen`,
			`edit `+file+`: remove "enabled": false from "hooksConfig"`)
	}
	for _, s := range sites {
		for _, off := range v.HooksConfig.Disabled {
			if off == s.command {
				d.add("hook", levelFail, s.where()+": its command is in hooksConfig.disabled of "+file+": Gemini CLI does not run it",
					"edit "+file+": remove limen's command from hooksConfig.disabled")
			}
		}
	}
}
