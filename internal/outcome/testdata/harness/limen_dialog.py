#!/usr/bin/env python3
"""limen_dialog.py — the real Claude Code, in tmux, with limen's hooks as
`limenctl hook install claude-code` writes them: the person answers in
Claude Code's own dialog, and limen should learn it (issue 14).

Reuses the interactive claude-harness (not part of this repository: drive.py,
interactive.sh, the mock model): set HARNESS to its directory, CLAUDE_BIN to
claude 2.1.328 and LIMEN_BIN to a directory with limend, limenctl and
limen-hook built from this tree.

usage: limen_dialog.py [--out DIR] [--root DIR] [SCENARIO...]   (--list)
Each scenario asks for one command, answers the dialog, then asks for the
same command again; the evidence (hooks.jsonl, limen-hook.jsonl with what
limen answered, limen-history.txt, notes.txt) goes to OUT/<name>/.
"""
import argparse
import json
import os
import sys
import time

if not os.environ.get("HARNESS"):
    sys.exit("set HARNESS to the claude-harness directory (drive.py, interactive.sh)")
sys.path.insert(0, os.environ["HARNESS"])
import drive  # noqa: E402

# The events `limenctl hook install claude-code` puts limen-hook on; only
# PreToolUse has onFailure block.
OBSERVED = ["PermissionRequest", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
            "UserPromptSubmit", "SessionEnd"]
TOOL_EVENTS = {"PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure"}


class Session(drive.Session):
    def setup_limen(self, cfg):
        extra = super().setup_limen(dict(cfg, on=["PreToolUse"]))
        # limenwrap.sh through bash: run by its shebang its process is
        # named limenwrap.sh, which limend takes for the agent runtime
        # (it is not a wrapper limend knows), a new one for every hook, so
        # no event would ever come from the runtime that opened the ask.
        cmd = "bash " + extra["PreToolUse"][0]["hooks"][0]["command"]
        extra["PreToolUse"][0]["hooks"][0]["command"] = cmd
        for ev in OBSERVED:
            entry = {"hooks": [{"type": "command", "command": cmd, "timeout": 10}]}
            if ev in TOOL_EVENTS:
                entry["matcher"] = "*"
            extra[ev] = [entry]
        return extra


def limen_said(s):
    """What limen-hook printed on each PreToolUse, in order."""
    out = []
    try:
        for l in open(os.path.join(s.w, "limen-hook.jsonl")):
            d = json.loads(l)
            if d["event"] == "PreToolUse":
                o = json.loads(d["out"]).get("hookSpecificOutput", {})
                out.append("%s (%s)" % (o.get("permissionDecision", "no decision"), (o.get("permissionDecisionReason") or "")[:90]))
    except OSError:
        pass
    return out


def answer_then_again(answer, cmd="touch {proj}/marker"):
    def run(s):
        c = cmd.replace("{proj}", s.proj)
        s.prompt("RUN: " + c)
        if answer == "none":
            time.sleep(4)
            s.note("dialog shown: %s" % ("Do you want to proceed" in s.shot("first-call")))
        else:
            s.wait_dialog()
        if answer == "yes":
            s.note("chose: " + s.select(r"^Yes$"))
            s.keys("Enter")
        elif answer == "always":
            s.note("chose: " + s.select(r"don.t ask again"))
            s.keys("Enter")
        elif answer == "no":
            s.note("chose: " + s.select(r"^No"))
            s.keys("Enter")
        elif answer == "note":
            s.select(r"^No")
            s.keys("Tab")
            s.keys("not in this project", literal=True)
            s.note("chose: No + note")
            s.keys("Enter")
        elif answer == "esc":
            s.keys("Escape")
            s.note("pressed Escape")
        time.sleep(3)
        s.note("limen pending after the answer: " + s.limenctl("pending").strip().replace("\n", " | "))
        s.prompt("RUN: " + c)
        time.sleep(5)
        p = s.shot("second-call")
        shown = "Do you want to proceed" in p
        s.note("same command again: dialog shown: %s" % shown)
        if shown:
            s.keys("Escape")
        time.sleep(1)
        s.note("limen answered the PreToolUses: " + " ; ".join(limen_said(s)))
    return run


LIMEN = {"limen": {"on": ["PreToolUse"]}}
DIALOG = {"limen": {"on": ["PreToolUse"], "args": "--on-ask dialog"}}
SCENARIOS = {
    "lx_yes": (answer_then_again("yes"), LIMEN),
    "lx_no_note": (answer_then_again("note"), LIMEN),
    "lx_no": (answer_then_again("no"), LIMEN),
    "lx_esc": (answer_then_again("esc"), LIMEN),
    "lx_yes_fails": (answer_then_again("yes", "python3 -c 'import sys; sys.exit(3)'"), LIMEN),
    # --on-ask dialog: Claude Code's own dialog, with "don't ask again"
    "lx_dialog_always": (answer_then_again("always", "python3 -c 'print(42)'"), DIALOG),
    "lx_dialog_yes": (answer_then_again("yes"), DIALOG),
    "lx_dialog_no_note": (answer_then_again("note"), DIALOG),
    # a read-only command Claude Code runs without asking: nobody answers
    "lx_dialog_readonly": (answer_then_again("none", "ls {proj}"), DIALOG),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/limen-harness/claude/logs/limen-dialog")
    ap.add_argument("--root", default="/tmp/limen-harness/claude/runs-limen-dialog")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    if a.list:
        print("\n".join(SCENARIOS))
        return
    for n in a.names or list(SCENARIOS):
        fn, kw = SCENARIOS[n]
        s = Session(n, a.root, a.out, mode=kw.get("mode", "default"), limen=kw.get("limen"))
        try:
            fn(s)
        except Exception as e:  # keep the evidence
            s.note("ERROR: %r" % e)
            s.shot("error")
        finally:
            s.finish()
        print("== " + n)
        print(open(os.path.join(s.out, "events.txt")).read())
        print("notes:\n  " + "\n  ".join(s.notes))
        print("history:\n" + open(os.path.join(s.out, "limen-history.txt")).read())
        sys.stdout.flush()


if __name__ == "__main__":
    main()
