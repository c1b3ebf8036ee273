package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/limenhq/limen/internal/hookfmt/hookout"
	"github.com/limenhq/limen/internal/paths"
)

// hookScope is where a hook is installed: which settings file.
type hookScope struct {
	project, user, local bool
	settings             string
}

func (s *hookScope) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&s.user, "user", false, "your user settings, ~/.claude/settings.json, ~/.codex/hooks.json or ~/.gemini/settings.json (the default): every project")
	f.BoolVar(&s.project, "project", false, "this project's shared settings, ./.claude/settings.json, ./.codex/hooks.json or ./.gemini/settings.json")
	f.BoolVar(&s.local, "local", false, "claude-code: this project's personal settings, ./.claude/settings.local.json")
	f.StringVar(&s.settings, "settings", "", "this settings file instead")
	cmd.MarkFlagsMutuallyExclusive("user", "project", "local", "settings")
}

// flag is the scope as the flag that names it, for hints that give a whole
// command ("" for the default, --user).
func (s *hookScope) flag() string {
	switch {
	case s.settings != "":
		return " --settings " + shellQuote(s.settings)
	case s.project:
		return " --project"
	case s.local:
		return " --local"
	}
	return ""
}

// path returns the settings file the scope names.
func (s *hookScope) path() (string, error) {
	switch {
	case s.settings != "":
		return filepath.Abs(s.settings)
	case s.project, s.local:
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		name := "settings.json"
		if s.local {
			name = "settings.local.json"
		}
		return filepath.Join(wd, ".claude", name), nil
	}
	dir := envClaudeDir.get()
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find your home directory: %w; pass --settings", err)
		}
		dir = filepath.Join(home, ".claude")
	}
	return filepath.Join(dir, "settings.json"), nil
}

func newHookCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Install limen's hook into an agent runtime's settings",
		Long: `hook installs limen-hook into an agent runtime's settings (Claude Code, Codex
or Gemini CLI), so that it asks limen before every tool call, or removes it
again.`,
		Example: `  limenctl hook install claude-code
  limenctl hook install claude-code --project --on-ask wait
  limenctl hook install codex
  limenctl hook install gemini
  limenctl hook uninstall claude-code`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newHookInstallCmd(a), newHookUninstallCmd(a))
	return cmd
}

func checkRuntime(args []string) error {
	if args[0] != "claude-code" && findTarget(args[0]) == nil {
		return usagef("runtime %q: use claude-code, codex or gemini", args[0])
	}
	return nil
}

// hookInstallOptions are hook install's flags.
type hookInstallOptions struct {
	scope   hookScope
	onAsk   string
	wait    time.Duration
	hookBin string
	socket  string
	// onAskSet: --on-ask was given (Codex's and Gemini CLI's default
	// is wait, Claude Code's prompt).
	onAskSet bool
	noTrust  bool
	dryRun   bool
}

func newHookInstallCmd(a *app) *cobra.Command {
	var o hookInstallOptions
	cmd := &cobra.Command{
		Use:   "install claude-code|codex|gemini",
		Short: "Add limen's hooks to an agent runtime's settings",
		Long: `install claude-code adds hook entries for every tool ("matcher": "*") that run
limen-hook, to Claude Code's settings file: on PreToolUse, which decides, and
on PermissionRequest, PostToolUse, PostToolUseFailure, PostToolBatch,
UserPromptSubmit and SessionEnd, which limen-hook only reports to limend so
that it learns what the person answered in Claude Code's own prompt.
Everything else in the file is left exactly as it was, and uninstall removes
exactly what install added.

The PreToolUse entry sets "onFailure": "block": without it Claude Code
ignores a hook that crashes or times out, and lets the tool run in
bypassPermissions mode. The others do not: an observer that fails must never
stop the person's work.

--on-ask says what happens when limen asks a person:
  prompt  (default) Claude Code shows its own permission prompt at once
  wait    limen-hook waits up to --wait for an answer in limen (limenctl
          answer, the TUI), then allows or denies; nobody answered: ask
  dialog  an ask of the prediction is left to Claude Code's own rules and
          dialog (with its "don't ask again"), in the default and plan
          modes only; limen still allows and blocks, asks for its rules,
          and learns the answer given in the dialog

install codex writes $CODEX_HOME/hooks.json (default ~/.codex/hooks.json;
--project: ./.codex/hooks.json): limen-hook on PreToolUse (which honours only
a deny: limen's ask waits --wait for an answer in limen, then denies) and on
PermissionRequest (Codex's own approval, when its policy asks: limen allows
or denies, or leaves it to Codex). Codex runs a hook only once it is
trusted: install records the entries as trusted in $CODEX_HOME/config.toml,
as Codex's own /hooks review does, unless --no-trust.

install gemini writes ~/.gemini/settings.json (--project:
./.gemini/settings.json): limen-hook on BeforeTool; limen's ask waits --wait
for an answer in limen, then denies (headless, Gemini CLI would wait forever
for a confirmation nobody can give).

Both run the tool when limen-hook is killed or passes the entry's
"timeout": install leaves it 10 s more than limen-hook's own.`,
		Example: `  limenctl hook install claude-code                  # ~/.claude/settings.json
  limenctl hook install claude-code --project        # ./.claude/settings.json
  limenctl hook install claude-code --on-ask wait --wait 50s
  limenctl hook install claude-code --settings /etc/claude-code/managed-settings.json
  limenctl hook install codex                        # ~/.codex/hooks.json, trusted in config.toml
  limenctl hook install codex --dry-run              # print what it would write, write nothing
  limenctl hook install gemini --project             # ./.gemini/settings.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.onAskSet = cmd.Flags().Changed("on-ask")
			return runHookInstall(a, o, args)
		},
	}
	o.scope.flags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.onAsk, "on-ask", "prompt", "prompt: Claude Code prompts at once; wait: wait for an answer in limen; dialog: leave the prediction's asks to Claude Code's rules and dialog (codex and gemini: wait, the default, or prompt, a deny at once)")
	f.DurationVar(&o.wait, "wait", 50*time.Second, "with --on-ask wait: how long to wait for a person")
	f.StringVar(&o.hookBin, "hook-bin", "", "limen-hook's path (default: next to limenctl, else on $PATH)")
	f.StringVar(&o.socket, "http-socket", envHTTPSocket.get(), "limend's HTTP socket, if not the default (env LIMEN_HTTP_SOCKET; default: beside --socket when that is given)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the settings file as install would write it, and write nothing")
	f.BoolVar(&o.noTrust, "no-trust", false, "codex: do not record the hooks as trusted in Codex's config.toml (Codex then skips them until you trust them in /hooks)")
	return cmd
}

// runHookInstall is limenctl hook install claude-code.
func runHookInstall(a *app, o hookInstallOptions, args []string) error {
	if err := checkRuntime(args); err != nil {
		return err
	}
	target := findTarget(args[0])
	if target != nil && !o.onAskSet {
		o.onAsk = "wait"
	}
	switch {
	case target != nil && o.onAsk == "dialog":
		return usagef("--on-ask dialog is Claude Code's; for %s use wait (the default) or prompt", target.title)
	case target == nil && o.noTrust:
		return usagef("--no-trust is for codex, whose hooks run only once trusted")
	}
	if o.onAsk != "prompt" && o.onAsk != "wait" && o.onAsk != "dialog" {
		return usagef("--on-ask %q: use prompt, wait or dialog", o.onAsk)
	}
	if o.wait < time.Second || o.wait > 10*time.Minute {
		return usagef("--wait %v: use between 1s and 10m, such as 50s", o.wait)
	}
	bin, err := findHookBin(o.hookBin)
	if err != nil {
		return err
	}
	path := ""
	if target == nil {
		if path, err = o.scope.path(); err != nil {
			return err
		}
	}
	switch {
	case o.socket == "" && a.socket != "":
		// limend serves its HTTP socket beside the gRPC one.
		o.socket = paths.HTTPSocketFor(a.socket)
	case o.socket == "":
		// Write the path down: Claude Code may be started from an
		// IDE or a service whose environment lacks XDG_RUNTIME_DIR,
		// and a hook that cannot find limend can only ever ask.
		if o.socket, err = hookout.DefaultHTTPSocket(); err != nil {
			return fmt.Errorf("%w\nhint: pass --http-socket with limend's HTTP socket", err)
		}
	}
	if target != nil {
		return runTargetInstall(a, target, o, bin)
	}
	entry, command := hookEntry(bin, o.onAsk, o.wait, o.socket)
	if o.dryRun {
		return previewSettings(a, path, []string{command}, "", func(doc []byte) ([]byte, bool, error) { return installEntries(doc, entry) })
	}
	changed, err := editSettings(path, func(doc []byte) ([]byte, bool, error) { return installEntries(doc, entry) })
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(map[string]any{"settings": path, "command": command, "changed": changed})
	}
	if !changed {
		if doc, err := os.ReadFile(path); err == nil && !bytes.Contains(doc, jsonText(command)) {
			// A re-install with other flags changes nothing: say so
			// and fail, rather than let the person believe it took.
			return fmt.Errorf("limen's hook is already in %s, with other flags than these; nothing changed\nhint: run limenctl hook uninstall claude-code%s, then install again with the flags you want", path, o.scope.flag())
		}
		fmt.Fprintf(a.out, "limen's hook is already in %s (nothing changed)\nhint: to change its flags, run limenctl hook uninstall claude-code%s, then install again\n", path, o.scope.flag())
		return nil
	}
	fmt.Fprintf(a.out, "installed limen's hooks in %s\n  command  %s\n  on ask   %s\n  events   %s\nClaude Code now asks limen before every tool call, and limen learns the answers given in Claude Code's own prompt; make sure limend is running.\n", path, command, o.onAsk, claudeEventNames())
	if o.scope.project {
		// The command names this machine's limen-hook and socket.
		fmt.Fprintf(a.out, "note: the command holds this machine's paths, and .claude/settings.json is usually committed: teammates' tool calls would fail closed on them; --local keeps it to you\n")
	}
	fmt.Fprint(a.out, devBuildNote(bin))
	return nil
}

// devBuildNote is a note for a limen-hook built inside limen's source
// tree, or "": every rebuild or checkout there changes what each tool call
// runs, and doctor run in the tree does not run it to check it.
func devBuildNote(bin string) string {
	tree := limenSourceTree(bin, "")
	if tree == "" {
		return ""
	}
	return "note: " + bin + " is a build inside limen's source tree " + tree + ": each rebuild or git checkout there changes what every tool call runs, and limenctl doctor run there does not check it; to keep a copy of its own: go install ./cmd/... there, then install with --hook-bin \"$(go env GOPATH)\"/bin/limen-hook\n"
}

func newHookUninstallCmd(a *app) *cobra.Command {
	var scope hookScope
	cmd := &cobra.Command{
		Use:   "uninstall claude-code|codex|gemini",
		Short: "Remove limen's hook from an agent runtime's settings",
		Long: `uninstall removes the entries that install added (the ones that run
limen-hook), and the event and "hooks" keys if install created them.
Everything else in the file is left exactly as it was. A settings file that
install created, and that holds nothing else since, is removed. For codex it
also removes the trust records install wrote to Codex's config.toml.`,
		Example: `  limenctl hook uninstall claude-code
  limenctl hook uninstall claude-code --project
  limenctl hook uninstall codex`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runHookUninstall(a, scope, args) },
	}
	scope.flags(cmd)
	return cmd
}

// runHookUninstall is limenctl hook uninstall claude-code.
func runHookUninstall(a *app, scope hookScope, args []string) error {
	if err := checkRuntime(args); err != nil {
		return err
	}
	if t := findTarget(args[0]); t != nil {
		return runTargetUninstall(a, t, scope)
	}
	path, err := scope.path()
	if err != nil {
		return err
	}
	changed, err := editSettings(path, uninstallEntries)
	if errors.Is(err, fs.ErrNotExist) {
		changed, err = false, nil
	}
	if err != nil {
		return err
	}
	_, statErr := os.Stat(path)
	removed := changed && errors.Is(statErr, fs.ErrNotExist)
	if a.json {
		return a.printJSON(map[string]any{"settings": path, "changed": changed, "removed": removed})
	}
	switch {
	case !changed:
		fmt.Fprintf(a.out, "limen's hook is not in %s (nothing changed)\n", path)
	case removed:
		fmt.Fprintf(a.out, "removed %s: install had created it, and it held nothing but limen's hook\n", path)
	default:
		fmt.Fprintf(a.out, "removed limen's hook from %s\n", path)
	}
	return nil
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) []byte {
	b, _ := json.Marshal(s)
	return b[1 : len(b)-1]
}

// hookEntry is the settings entry for limen-hook, and its command line.
func hookEntry(bin, onAsk string, wait time.Duration, socket string) (claudeHookEntry, string) {
	deadline := 5 * time.Second
	if onAsk == "wait" {
		deadline = wait
	}
	command := shellQuote(bin) + " --format claude-code --on-ask " + onAsk + " --timeout " + deadline.String()
	if socket != "" {
		command += " --socket " + shellQuote(socket)
	}
	// Claude Code's timeout is whole seconds; leave limen-hook time to
	// print its own ask before Claude Code would kill it.
	timeout := int(math.Ceil(deadline.Seconds())) + 5
	return claudeHookEntry{
		Matcher: "*",
		Hooks:   []claudeHookConfig{{Type: "command", Command: command, Timeout: timeout, OnFailure: "block"}},
	}, command
}

// claudeHookEvents are the events install puts limen-hook on, in order,
// and whether a failure there blocks the tool: only PreToolUse decides. The
// others limen-hook observes (cmd/limen-hook/observe.go): a failure there
// must never stop the person's work, so their entries have no onFailure.
var claudeHookEvents = []struct {
	event string
	block bool
}{
	{"PreToolUse", true},
	{"PermissionRequest", false},
	{"PostToolUse", false},
	{"PostToolUseFailure", false},
	{"PostToolBatch", false},
	{"UserPromptSubmit", false},
	{"SessionEnd", false},
}

// claudeObserves reports whether install puts limen-hook on event only to
// observe it, with no onFailure.
func claudeObserves(event string) bool {
	for _, e := range claudeHookEvents {
		if e.event == event {
			return !e.block
		}
	}
	return false
}

func claudeEventNames() string {
	var names []string
	for _, e := range claudeHookEvents {
		names = append(names, e.event)
	}
	return strings.Join(names, ", ")
}

// installEntries adds limen's entry (hookEntry's, for PreToolUse) on every
// event of claudeHookEvents that lacks one.
func installEntries(doc []byte, entry claudeHookEntry) ([]byte, bool, error) {
	changed := false
	for _, e := range claudeHookEvents {
		ent := entry
		if !e.block {
			ent.Hooks = []claudeHookConfig{entry.Hooks[0]}
			ent.Hooks[0].OnFailure = ""
		}
		var c bool
		var err error
		if doc, c, err = installEntry(doc, e.event, ent); err != nil {
			return nil, false, err
		}
		if e.block && !c && !bytes.Contains(doc, jsonText(entry.Hooks[0].Command)) {
			// limen's PreToolUse entry is there with other flags: add
			// nothing, and install says how to change them.
			return doc, false, nil
		}
		changed = changed || c
	}
	return doc, changed, nil
}

// uninstallEntries removes limen's entries, last event first, so that a
// file install created comes back to PreToolUse alone, and is removed.
func uninstallEntries(doc []byte) ([]byte, bool, error) {
	changed := false
	for i := len(claudeHookEvents) - 1; i >= 0; i-- {
		next, c, err := uninstallEntry(doc, claudeHookEvents[i].event)
		if err != nil {
			return nil, false, err
		}
		if c && next == nil {
			return nil, true, nil // the file install created: remove it
		}
		doc, changed = next, changed || c
	}
	return doc, changed, nil
}

// previewSettings is hook install --dry-run: the settings file at path as
// edit would leave it, printed rather than written; also, in note, what
// else install would change (Codex's trust records).
func previewSettings(a *app, path string, commands []string, note string, edit func([]byte) ([]byte, bool, error)) error {
	doc, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	out, changed, err := edit(doc)
	if err != nil {
		return fmt.Errorf("%s: %w\nhint: fix the file by hand (the runtime would not read it either), then run this again", path, err)
	}
	if a.json {
		return a.printJSON(map[string]any{"settings": path, "commands": commands, "changed": changed, "dry_run": true, "document": string(out)})
	}
	for _, c := range commands {
		if !changed && !bytes.Contains(doc, jsonText(c)) {
			return fmt.Errorf("limen's hook is already in %s, with other flags than these; install would change nothing\nhint: run limenctl hook uninstall first, then install again with the flags you want", path)
		}
	}
	if !changed {
		fmt.Fprintf(a.out, "dry run: limen's hook is already in %s; install would change nothing\n", path)
		return nil
	}
	fmt.Fprintf(a.out, "dry run: nothing was written; install would write %s as:\n%s", path, out)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		fmt.Fprintln(a.out)
	}
	if note != "" {
		fmt.Fprintln(a.out, note)
	}
	return nil
}

// shellQuote quotes s for /bin/sh, which runs Claude Code's hook commands.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:=@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// findHookBin returns limen-hook's absolute path.
func findHookBin(given string) (string, error) {
	candidates := []string{}
	if given != "" {
		candidates = append(candidates, given)
	} else {
		if exe, err := os.Executable(); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(exe), "limen-hook"))
		}
		if p, err := exec.LookPath("limen-hook"); err == nil {
			candidates = append(candidates, p)
		}
	}
	for _, c := range candidates {
		abs, err := filepath.Abs(c)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return abs, nil
		}
	}
	if given != "" {
		return "", usagef("--hook-bin %s is not an executable file", given)
	}
	return "", errors.New("cannot find limen-hook next to limenctl or on $PATH\nhint: go install ./cmd/limen-hook (or go build -o ~/bin/limen-hook ./cmd/limen-hook), or pass --hook-bin")
}

// editSettings applies edit to the settings file, creating it (and its
// directory) if needed, and replaces it atomically, keeping its mode; an
// edit that returns a nil document removes the file. A file that is not
// valid JSON is refused and left alone.
func editSettings(path string, edit func([]byte) ([]byte, bool, error)) (bool, error) {
	doc, err := os.ReadFile(path)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		doc = nil
	case err != nil:
		return false, fmt.Errorf("read %s: %w", path, err)
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	out, changed, err := edit(doc)
	if err != nil {
		return false, fmt.Errorf("%s: %w\nhint: fix the file by hand (the runtime would not read it either), then run this again", path, err)
	}
	if !changed {
		return false, nil
	}
	if out == nil {
		if err := os.Remove(path); err != nil {
			return false, fmt.Errorf("remove %s: %w", path, err)
		}
		return true, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".settings-*.json")
	if err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return false, fmt.Errorf("replace %s: %w", path, err)
	}
	return true, nil
}
