package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// Installing limen-hook into Codex's and Gemini CLI's settings (issue 14,
// item 6). Both keep their hooks in Claude Code's shape ({"hooks": {EVENT:
// [{"matcher", "hooks": [{"type", "command", "timeout"}]}]}}), so the
// byte-preserving editing of hook_settings.go serves them as it is; what
// differs per runtime is in hookTargets. Checked against the real CLIs
// (Codex 0.171.0, Gemini CLI 0.61.0) through the runtimes' harnesses:
// docs/integrations.md says how.

// hookTarget is how install writes one runtime's hooks.
type hookTarget struct {
	name  string // the install argument: codex, gemini
	title string // as people call it
	// userFile is the user settings file; projectFile the project's,
	// relative to the working directory.
	userFile    func() (string, error)
	projectFile string
	// unit is how the settings write "timeout".
	unit time.Duration
	// events are the events limen-hook goes on, first the one whose
	// entry install checks for other flags.
	events []targetEvent
}

// targetEvent is one event install puts limen-hook on.
type targetEvent struct {
	event string
	// decides: the entry carries --on-ask and waits --wait with wait;
	// otherwise it answers within limen-hook's default 5 s.
	decides bool
}

var hookTargets = []*hookTarget{
	{
		name: "codex", title: "Codex",
		userFile: func() (string, error) {
			dir, err := codexHome()
			return filepath.Join(dir, "hooks.json"), err
		},
		projectFile: filepath.Join(".codex", "hooks.json"),
		unit:        time.Second,
		// PreToolUse honours only a deny; PermissionRequest (Codex's
		// approval, when its policy asks) takes allow and deny, and no
		// decision leaves it to Codex.
		events: []targetEvent{{"PreToolUse", true}, {"PermissionRequest", false}},
	},
	{
		name: "gemini", title: "Gemini CLI",
		userFile: func() (string, error) {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("find your home directory: %w; pass --settings", err)
			}
			return filepath.Join(home, ".gemini", "settings.json"), nil
		},
		projectFile: filepath.Join(".gemini", "settings.json"),
		unit:        time.Millisecond,
		events:      []targetEvent{{"BeforeTool", true}},
	},
}

// codexHome is $CODEX_HOME, else ~/.codex.
func codexHome() (string, error) {
	if dir := envCodexHome.get(); dir != "" {
		return filepath.Abs(dir)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find your home directory: %w; pass --settings", err)
	}
	return filepath.Join(home, ".codex"), nil
}

func findTarget(name string) *hookTarget {
	for _, t := range hookTargets {
		if t.name == name {
			return t
		}
	}
	return nil
}

// path is the settings file scope names for this runtime.
func (t *hookTarget) path(s hookScope) (string, error) {
	switch {
	case s.local:
		return "", usagef("--local is Claude Code's settings.local.json; %s has none: use --user, --project or --settings", t.title)
	case s.settings != "" && strings.HasSuffix(s.settings, ".toml"):
		return "", usagef("--settings %s: install writes JSON hook files (%s's hooks.json); hooks written in config.toml are edited by hand", s.settings, t.title)
	case s.settings != "":
		return filepath.Abs(s.settings)
	case s.project:
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		return filepath.Join(wd, t.projectFile), nil
	}
	return t.userFile()
}

// matcher is "every tool" as the runtime reads it: Codex matches "*",
// Gemini CLI reads the matcher as a regular expression.
func (t *hookTarget) matcher() string {
	if t.name == "gemini" {
		return ".*"
	}
	return "*"
}

// entry is limen's entry for one event, and its command line.
func (t *hookTarget) entry(e targetEvent, bin, onAsk string, wait time.Duration, socket string) (claudeHookEntry, string) {
	deadline := defaultHookTimeout
	command := shellQuote(bin) + " --format " + t.format()
	if e.decides {
		if onAsk == "wait" {
			deadline = wait
		}
		command += " --on-ask " + onAsk
	}
	command += " --timeout " + deadline.String()
	if socket != "" {
		command += " --socket " + shellQuote(socket)
	}
	// Both runtimes run the tool when a hook passes their timeout (even
	// one that printed deny): leave limen-hook 10 s to print its answer.
	timeout := int(math.Ceil(float64(deadline+10*time.Second) / float64(t.unit)))
	return claudeHookEntry{Matcher: t.matcher(), Hooks: []claudeHookConfig{{Type: "command", Command: command, Timeout: timeout}}}, command
}

// format is limen-hook's --format for the runtime.
func (t *hookTarget) format() string { return t.name }

// installTarget adds limen's entries to doc. It reports false, with doc
// unchanged, when they are there already; other is true when limen's
// entry is there with other flags than these.
func (t *hookTarget) install(doc []byte, entries []claudeHookEntry) (out []byte, changed, other bool, err error) {
	out = doc
	for i, e := range t.events {
		var c bool
		next, c, err := installEntry(out, e.event, entries[i])
		if err != nil {
			return nil, false, false, err
		}
		if !c && !bytes.Contains(out, jsonText(entries[i].Hooks[0].Command)) {
			return doc, false, true, nil // limen's entry, other flags: change nothing
		}
		out, changed = next, changed || c
	}
	return out, changed, false, nil
}

// uninstall removes limen's entries, last event first, so that a file
// install created comes back to the first event alone, and is removed.
func (t *hookTarget) uninstall(doc []byte) ([]byte, bool, error) {
	changed := false
	for i := len(t.events) - 1; i >= 0; i-- {
		next, c, err := uninstallEntry(doc, t.events[i].event)
		if err != nil {
			return nil, false, err
		}
		if c && next == nil {
			return nil, true, nil
		}
		doc, changed = next, changed || c
	}
	return doc, changed, nil
}

// runTargetInstall is limenctl hook install codex|gemini.
func runTargetInstall(a *app, t *hookTarget, o hookInstallOptions, bin string) error {
	path, err := t.path(o.scope)
	if err != nil {
		return err
	}
	entries := make([]claudeHookEntry, len(t.events))
	var commands []string
	for i, e := range t.events {
		var c string
		entries[i], c = t.entry(e, bin, o.onAsk, o.wait, o.socket)
		commands = append(commands, c)
	}
	if o.dryRun {
		note := ""
		if t.name == "codex" && !o.noTrust {
			note = "and would record the entries as trusted in Codex's config.toml, as its /hooks review does (--no-trust: not)"
		}
		return previewSettings(a, path, commands, note, func(doc []byte) ([]byte, bool, error) {
			out, c, oth, err := t.install(doc, entries)
			if err == nil && oth {
				err = fmt.Errorf("limen's hook is already in it, with other flags than these; run limenctl hook uninstall %s%s, then install again with the flags you want", t.name, o.scope.flag())
			}
			return out, c, err
		})
	}
	other := false
	changed, err := editSettings(path, func(doc []byte) ([]byte, bool, error) {
		out, c, oth, err := t.install(doc, entries)
		other = oth
		return out, c, err
	})
	if err != nil {
		return err
	}
	if other {
		return fmt.Errorf("limen's hook is already in %s, with other flags than these; nothing changed\nhint: run limenctl hook uninstall %s%s, then install again with the flags you want", path, t.name, o.scope.flag())
	}
	var trust codexTrust
	if t.name == "codex" {
		trust = trustCodexHooks(path, o.noTrust)
	}
	if a.json {
		v := map[string]any{"settings": path, "commands": commands, "changed": changed}
		if t.name == "codex" {
			v["trusted"], v["trust_config"] = trust.err == nil && !o.noTrust, trust.config
			if trust.err != nil {
				v["trust_error"] = trust.err.Error()
			}
		}
		return a.printJSON(v)
	}
	if !changed {
		fmt.Fprintf(a.out, "limen's hook is already in %s (nothing changed)\nhint: to change its flags, run limenctl hook uninstall %s%s, then install again\n", path, t.name, o.scope.flag())
	} else {
		fmt.Fprintf(a.out, "installed limen's hook in %s\n", path)
		for i, e := range t.events {
			fmt.Fprintf(a.out, "  %-17s %s\n", e.event, commands[i])
		}
		fmt.Fprintf(a.out, "%s now asks limen before every tool call; make sure limend is running.\n", t.title)
	}
	switch {
	case t.name != "codex":
	case trust.err != nil:
		fmt.Fprintf(a.out, "warning: Codex runs a hook only once it is trusted, and limen's is not: %v\n%s", trust.err, codexTrustHowTo)
	case o.noTrust:
		fmt.Fprintf(a.out, "note: --no-trust: Codex skips limen's hook, silently, until you trust it.\n%s", codexTrustHowTo)
	case trust.added > 0:
		fmt.Fprintf(a.out, "trusted it for Codex in %s ([hooks.state] trusted_hash, as Codex's /hooks review records it): Codex runs only hooks recorded as trusted; any change to the entry un-trusts it\n", trust.config)
	}
	if t.name == "codex" && filepath.Base(filepath.Dir(path)) == ".codex" {
		if dir := filepath.Dir(filepath.Dir(path)); o.scope.project && !codexProjectTrusted(dir) {
			fmt.Fprintf(a.out, "warning: Codex reads %s only in a project it trusts, and its config.toml does not mark %s trusted: until then it runs no hook of that file, silently\n  To trust it: start codex in %s and answer yes when it asks whether you trust the folder.\n", path, dir, dir)
		}
	}
	if t.name == "gemini" {
		if why := geminiHooksOff(path); why != "" {
			fmt.Fprintf(a.out, "warning: %s: Gemini CLI runs no hook, limen's with them\n", why)
		}
	}
	if o.scope.project {
		fmt.Fprintf(a.out, "note: the command holds this machine's paths: teammates who share %s would have their tool calls fail on them\n", t.projectFile)
	}
	fmt.Fprint(a.out, devBuildNote(bin))
	return nil
}

// codexTrustHowTo tells the person how to trust the hook themselves.
const codexTrustHowTo = `  To trust it: start codex (the interactive one), and at "Hooks need review" choose to trust
  them, or open /hooks and trust limen's; until then Codex runs every tool without asking limen.
  limenctl doctor says whether Codex trusts the hook as it is now.
`

// runTargetUninstall is limenctl hook uninstall codex|gemini.
func runTargetUninstall(a *app, t *hookTarget, scope hookScope) error {
	path, err := t.path(scope)
	if err != nil {
		return err
	}
	// The trust records name the entries where they are now: read them
	// before the entries go.
	var keys []codexTrustRecord
	if t.name == "codex" {
		keys, _ = codexTrustRecords(path)
	}
	changed, err := editSettings(path, t.uninstall)
	if errors.Is(err, fs.ErrNotExist) {
		changed, err = false, nil
	}
	if err != nil {
		return err
	}
	_, statErr := os.Stat(path)
	removed := changed && errors.Is(statErr, fs.ErrNotExist)
	untrusted := 0
	var untrustErr error
	if changed && len(keys) > 0 {
		untrusted, untrustErr = untrustCodexHooks(keys)
	}
	if a.json {
		v := map[string]any{"settings": path, "changed": changed, "removed": removed}
		if t.name == "codex" {
			v["trust_records_removed"] = untrusted
		}
		return a.printJSON(v)
	}
	switch {
	case !changed:
		fmt.Fprintf(a.out, "limen's hook is not in %s (nothing changed)\n", path)
	case removed:
		fmt.Fprintf(a.out, "removed %s: install had created it, and it held nothing but limen's hook\n", path)
	default:
		fmt.Fprintf(a.out, "removed limen's hook from %s\n", path)
	}
	if untrusted > 0 {
		fmt.Fprintf(a.out, "removed the %d trust record(s) install wrote to Codex's config.toml\n", untrusted)
	}
	if untrustErr != nil {
		fmt.Fprintf(a.out, "note: %v\n", untrustErr)
	}
	return nil
}

// codexTrust is what trusting limen's Codex hooks did.
type codexTrust struct {
	config string // Codex's config.toml
	added  int
	err    error
}

// codexTrustRecord is one [hooks.state."KEY"] trusted_hash = "HASH".
type codexTrustRecord struct {
	config, key, hash string
}

// text is the record as install appends it, and uninstall finds it.
func (r codexTrustRecord) text() string {
	return "[hooks.state." + strconvQuote(r.key) + "]\ntrusted_hash = " + strconvQuote(r.hash) + "\n"
}

// codexTrustRecords are the records that trust limen's hooks in the
// Codex hooks file as it is now: Codex keys each handler by its file,
// event, group and index, and hashes it (doctor's codexHookHash, checked
// against the hashes a real Codex 0.171.0 reports in hooks/list).
func codexTrustRecords(hooksFile string) ([]codexTrustRecord, error) {
	dir, err := codexHome()
	if err != nil {
		return nil, err
	}
	sites, err := readHookSites(findHookRuntime("codex"), hooksFile)
	if err != nil {
		return nil, err
	}
	var recs []codexTrustRecord
	for _, s := range sites {
		if s.http {
			continue
		}
		recs = append(recs, codexTrustRecord{
			config: filepath.Join(dir, "config.toml"),
			key:    fmt.Sprintf("%s:%s:%d:%d", s.file, snakeCase(s.event), s.group, s.index),
			hash:   codexHookHash(s),
		})
	}
	return recs, nil
}

func findHookRuntime(format string) *hookRuntime {
	for i := range hookRuntimes {
		if hookRuntimes[i].format == format {
			return &hookRuntimes[i]
		}
	}
	return nil
}

// trustCodexHooks records limen's hooks in hooksFile as trusted in Codex's
// config.toml, appending a table per hook, as Codex's own review does;
// the rest of the file is left byte for byte. A record already there with
// the same hash is kept; one with another hash is not overwritten (the
// person trusted another version): that is an error saying how to trust.
func trustCodexHooks(hooksFile string, noTrust bool) codexTrust {
	recs, err := codexTrustRecords(hooksFile)
	if err != nil {
		return codexTrust{err: err}
	}
	if len(recs) == 0 {
		return codexTrust{err: errors.New("no limen hook found in " + hooksFile)}
	}
	tr := codexTrust{config: recs[0].config}
	doc, err := os.ReadFile(tr.config)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		tr.err = fmt.Errorf("read %s: %w", tr.config, err)
		return tr
	}
	state, err := codexTrustState(doc)
	if err != nil {
		tr.err = fmt.Errorf("%s: %w", tr.config, err)
		return tr
	}
	if noTrust {
		return tr
	}
	out := doc
	for _, r := range recs {
		switch got, ok := state[r.key]; {
		case ok && got == r.hash:
			continue
		case ok:
			tr.err = fmt.Errorf("%s already trusts another version of %s (trusted_hash %s), which limenctl does not overwrite", tr.config, r.key, got)
			return tr
		}
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, r.text()...)
		tr.added++
	}
	if tr.added == 0 {
		return tr
	}
	// Codex must read what was written as the trust it means: check by
	// parsing, so that a file where appending a table is not valid TOML
	// (hooks written as an inline table, say) is left alone.
	after, err := codexTrustState(out)
	for _, r := range recs {
		if err == nil && after[r.key] != r.hash {
			err = fmt.Errorf("appending [hooks.state.%s] would not record it", strconvQuote(r.key))
		}
	}
	if err != nil {
		tr.added, tr.err = 0, fmt.Errorf("%s: %w; left unchanged", tr.config, err)
		return tr
	}
	if _, err := editSettings(tr.config, func([]byte) ([]byte, bool, error) { return out, true, nil }); err != nil {
		tr.added, tr.err = 0, err
	}
	return tr
}

// codexTrustState reads [hooks.state] of Codex's config.toml: key → trusted_hash.
func codexTrustState(doc []byte) (map[string]string, error) {
	var v struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if err := toml.Unmarshal(doc, &v); err != nil {
		return nil, fmt.Errorf("not valid TOML: %w", err)
	}
	m := map[string]string{}
	for k, s := range v.Hooks.State {
		m[k] = s.TrustedHash
	}
	return m, nil
}

// untrustCodexHooks removes the trust records install appended, exactly
// those bytes; a record Codex rewrote (its own review re-saves the file)
// is left, and said: it trusts a hook that no longer exists, which is
// harmless.
func untrustCodexHooks(recs []codexTrustRecord) (int, error) {
	config := recs[0].config
	doc, err := os.ReadFile(config)
	if err != nil {
		return 0, nil
	}
	out, n := doc, 0
	for _, r := range recs {
		text := []byte(r.text())
		i := bytes.Index(out, text)
		if i < 0 {
			continue
		}
		from := i
		if from > 0 && out[from-1] == '\n' && (from == 1 || out[from-2] == '\n') {
			from-- // the blank line install put before it
		}
		out = append(append([]byte{}, out[:from]...), out[i+len(text):]...)
		n++
	}
	if n < len(recs) {
		err = fmt.Errorf("%d trust record(s) of limen's hook in %s were not as install wrote them, and are left (they trust an entry that is gone)", len(recs)-n, config)
	}
	if n == 0 {
		return 0, err
	}
	if len(bytes.TrimSpace(out)) == 0 {
		out = nil // it held nothing but install's records: remove it
	}
	if _, werr := editSettings(config, func([]byte) ([]byte, bool, error) { return out, true, nil }); werr != nil {
		return 0, werr
	}
	return n, err
}

// geminiHooksOff says why Gemini CLI would run no hooks of the settings
// in path ("" when it would): hooksConfig.enabled false there.
func geminiHooksOff(path string) string {
	doc, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	root, err := parseJSON(doc)
	if err != nil {
		return ""
	}
	if hc := root.member("hooksConfig"); hc != nil && hc.kind == '{' {
		if en := hc.member("enabled"); en != nil && string(doc[en.start:en.end]) == "false" {
			return path + ` sets "hooksConfig": {"enabled": false}`
		}
	}
	return ""
}

// codexProjectTrusted reports whether Codex's config.toml marks dir as a
// trusted project ([projects."DIR"] trust_level = "trusted"): Codex 0.171.0
// reads a project's .codex/hooks.json only then (hooks/list lists none of
// it otherwise, verified).
func codexProjectTrusted(dir string) bool {
	home, err := codexHome()
	if err != nil {
		return false
	}
	doc, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		return false
	}
	var v struct {
		Projects map[string]struct {
			TrustLevel string `toml:"trust_level"`
		} `toml:"projects"`
	}
	if toml.Unmarshal(doc, &v) != nil {
		return false
	}
	return v.Projects[dir].TrustLevel == "trusted"
}
