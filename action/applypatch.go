package action

import (
	"path"
	"regexp"
	"strings"
)

// patchFileMarks start the lines of a Codex apply_patch patch that name a
// file it writes, matched as Codex's parser matches them: on the line with
// its surrounding whitespace trimmed.
var patchFileMarks = []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "}

// patchOtherMarks are the other marker lines of the patch format, which
// name no file.
var patchOtherMarks = []string{"*** Begin Patch", "*** End Patch", "*** End of File"}

// patchFields are the tool_input fields a patch may come in: "command" as
// Codex's hooks send it, "input" for its freeform tool, "patch" as some
// wrappers name it. Every one is read, so a harmless patch in one field
// cannot hide another in the next.
var patchFields = []string{"command", "input", "patch"}

// applyPatchParts keys Codex's apply_patch (the patch in its "command", as
// Codex's hooks send it) as one Edit part per file the patch writes, so the
// rules and classes for edits (the shipped block on ~/.codex/**, say) apply
// to each.
//
// It reads the patch at least as leniently as Codex does, so that no file
// Codex would write goes unnamed: every line is trimmed of the whitespace
// around it (Codex trims hunk headers, so "  *** Add File: x" adds x), CRLF
// and a bare CR both end a line, markers match in any case, the "*** Begin
// Patch" envelope and a heredoc around it are not required, and a path is
// everything after the marker (spaces inside included). A line that reads
// as a marker only under these rules may name a file Codex would not touch;
// that only makes the decision stricter. Paths are resolved against the
// call's "workdir" when it has one, and "~" is the home directory (Codex
// takes it literally, as a directory named "~": the home reading is the
// one a rule on ~/.codex/** must see).
//
// A patch whose file list cannot be read is opaque, never allowed by
// learning: one that names no file, one sent as anything but text, or one
// with a "***" line that is no marker limen knows (a newer patch syntax
// could name a file there).
func applyPatchParts(a Action) []Part {
	var texts []string
	unreadable := false
	for _, f := range patchFields {
		switch v := a.Input[f].(type) {
		case nil:
		case string:
			texts = append(texts, v)
		case []any:
			// An argv such as ["apply_patch", "<patch>"]: every word is read.
			for _, w := range v {
				s, ok := w.(string)
				if !ok {
					unreadable = true
					continue
				}
				texts = append(texts, s)
			}
		default:
			unreadable = true
		}
	}
	// workdir, when given, is where Codex applies the patch; the workspace
	// stays the call's cwd, so a workdir of /etc does not make /etc the
	// workspace.
	base := ""
	if wd, ok := stringArg(a.Input, "workdir"); ok {
		base = ResolvePath(a, wd)
	}
	dirs := []string{base}
	var parts []Part
	seen := map[string]bool{}
	for _, text := range texts {
		dirs = append(dirs, cdDirs(a, text)...)
	}
	for _, text := range texts {
		ps, unknown := patchEdits(a, text, dirs, seen)
		parts = append(parts, ps...)
		unreadable = unreadable || unknown
	}
	raw := capLen(strings.Join(texts, "\n"), maxRootLen)
	if len(parts) == 0 {
		return []Part{opaquePart("apply_patch", "<no file>", raw)}
	}
	if unreadable {
		parts = append(parts, opaquePart("apply_patch", "<unread>", raw))
	}
	return parts
}

// shellPatchParts finds apply_patch run from a shell: Codex puts an
// apply_patch program on the PATH of the commands it runs, and models write
// `apply_patch <<'EOF' … EOF`, which reaches limen as a Bash command. Any
// file marker line in the command's text is an Edit part (a heredoc that
// only looks like a patch costs a stricter decision, nothing more); a
// command whose parts (shell, already parsed) run apply_patch but whose
// text shows no file it writes (the patch built by printf, say) gets an
// opaque part, never allowed by learning.
func shellPatchParts(a Action, shell []Part) []Part {
	cmd, _ := a.Input["command"].(string)
	mentions := runsApplyPatch(shell)
	if !mentions && !strings.Contains(cmd, "***") {
		return nil
	}
	// A relative path is relative to wherever the shell is when the patch
	// applies: the call's directory, its workdir, or any directory the
	// command cd's to. Each of them is an edit, so none escapes its rules.
	dirs := []string{""}
	if wd, ok := stringArg(a.Input, "workdir"); ok {
		dirs = append(dirs, ResolvePath(a, wd))
	}
	dirs = append(dirs, cdDirs(a, cmd)...)
	parts, _ := patchEdits(a, cmd, dirs, map[string]bool{})
	if len(parts) == 0 && mentions {
		return []Part{opaquePart("Bash", "<patch unread>", capLen(cmd, maxRootLen))}
	}
	return parts
}

// runsApplyPatch reports whether one of a command's parts runs apply_patch
// (or applypatch) as its program, plain or under a privilege wrapper: the
// walker has already seen through quotes, wrappers and bash -c, so
// `grep -r apply_patch src/` is not one.
func runsApplyPatch(parts []Part) bool {
	for _, p := range parts {
		for _, k := range p.Keys {
			w := strings.Fields(strings.TrimPrefix(k, "Bash:"))
			if len(w) > 1 && privWrappers[w[0]] {
				w = w[1:]
			}
			if len(w) > 0 && (w[0] == "apply_patch" || w[0] == "applypatch") {
				return true
			}
		}
	}
	return false
}

// patchEdits returns an Edit part for each file the patch text names, not
// yet in seen: an absolute or ~ path as it is, a relative one under each of
// dirs ("" is the call's cwd). unknown says a "*** Word:" line was no
// marker limen knows.
func patchEdits(a Action, text string, dirs []string, seen map[string]bool) (parts []Part, unknown bool) {
	for _, line := range patchLines(text) {
		file, known := patchFile(line)
		if !known {
			unknown = true
			continue
		}
		if file == "" {
			continue
		}
		for i, dir := range dirs {
			f := file
			if strings.HasPrefix(f, "/") || strings.HasPrefix(f, "~") {
				if i > 0 {
					break
				}
			} else if dir != "" {
				f = path.Join(dir, f)
			}
			if seen[f] {
				continue
			}
			seen[f] = true
			edit := a
			edit.Tool, edit.Input = "Edit", map[string]any{"file_path": f}
			parts = append(parts, filePart(edit, "Edit"))
			if strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "*** delete file:") {
				// A deletion is also an rm of the file: approving edits of
				// main.go says nothing about removing it.
				rm := a
				rm.Tool, rm.Input = "Bash", map[string]any{"command": "rm -- " + shellQuote(f)}
				parts = append(parts, bashParts(rm)...)
			}
		}
	}
	return parts, unknown
}

// shellQuote quotes s for a POSIX shell, so a path reads back as one word.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// cdDirs are the directories a shell text cd's (or pushd's) to, resolved
// against the call's cwd: a patch applied after `cd ~` names files there.
func cdDirs(a Action, text string) []string {
	var dirs []string
	for _, m := range cdTarget.FindAllStringSubmatch(text, -1) {
		dirs = append(dirs, ResolvePath(a, strings.Trim(m[1], `'"`)))
	}
	return dirs
}

// cdTarget finds the directories a shell command changes to.
var cdTarget = regexp.MustCompile(`(?:^|[\s;&|("'{])(?:cd|pushd)\s+([^\s;&|)]+)`)

// patchLines splits a patch into lines, trimmed. Codex splits on "\n" only
// (dropping a "\r" before it); limen also reads each piece between bare
// "\r"s as a line of its own, in case a runtime or terminal reads them so.
func patchLines(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		out = append(out, line)
		if strings.Contains(line, "\r") {
			for _, piece := range strings.Split(line, "\r") {
				out = append(out, strings.TrimSpace(piece))
			}
		}
	}
	return out
}

// patchFile returns the file a trimmed patch line names, if it is a file
// marker; known is false for a "***" line that is no marker limen knows.
func patchFile(line string) (file string, known bool) {
	lower := strings.ToLower(line)
	for _, mark := range patchFileMarks {
		if strings.HasPrefix(lower, strings.ToLower(mark)) {
			return strings.TrimSpace(line[len(mark):]), true
		}
	}
	for _, mark := range patchOtherMarks {
		if strings.EqualFold(line, mark) {
			return "", true
		}
	}
	// A marker without its space ("*** Add File:x"), or one limen does not
	// know ("*** Rename File: x"): Codex refuses the first, but a newer
	// Codex may write a file on the second. Other lines are content,
	// context or heredoc lines ("***" alone is a Markdown rule).
	return "", !unknownMark.MatchString(line)
}

// unknownMark is the shape of a patch marker that names something:
// "*** Words:" and what follows.
var unknownMark = regexp.MustCompile(`^\*\*\*\s*[A-Za-z][A-Za-z ]*:`)
