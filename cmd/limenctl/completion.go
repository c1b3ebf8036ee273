package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/limenhq/limen/internal/describe"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// completionTimeout bounds the call a completion makes to limend: a shell
// waits for it on every tab, and no completion beats a hung prompt.
const completionTimeout = time.Second

// addCompletions gives the commands that take an ask id, a policy version
// or a runtime name completions of the values that exist now: the pending
// asks and policy versions limend holds (each with a description), the
// runtimes hook install knows. With limend down they complete nothing,
// and never fall back to file names.
func addCompletions(root *cobra.Command, a *app) {
	asks := func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return a.completeAsks(), cobra.ShellCompDirectiveNoFileComp
	}
	versions := func(most int) cobra.CompletionFunc {
		return func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) >= most {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return a.completeVersions(), cobra.ShellCompDirectiveNoFileComp
		}
	}
	runtimes := cobra.FixedCompletions([]cobra.Completion{
		cobra.CompletionWithDesc("claude-code", "Claude Code's settings.json"),
		cobra.CompletionWithDesc("codex", "Codex's hooks.json, trusted in its config.toml"),
		cobra.CompletionWithDesc("gemini", "Gemini CLI's settings.json"),
	}, cobra.ShellCompDirectiveNoFileComp)
	for path, f := range map[string]cobra.CompletionFunc{
		"answer":          asks,
		"await":           asks,
		"policy rollback": versions(1),
		"policy diff":     versions(2),
		"hook install":    runtimes,
		"hook uninstall":  runtimes,
	} {
		cmd, _, err := root.Find(splitPath(path))
		if err != nil || cmd == root {
			panic(fmt.Sprintf("completion for %q: no such command", path)) // a renamed command; TestCompletion finds it
		}
		cmd.ValidArgsFunction = f
	}
}

func splitPath(p string) []string {
	var out []string
	for start, i := 0, 0; i <= len(p); i++ {
		if i == len(p) || p[i] == ' ' {
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return out
}

// completeAsks lists the pending asks as completions: the id, and the
// action it asks about.
func (a *app) completeAsks() []cobra.Completion {
	c, err := a.dial()
	if err != nil {
		return nil
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
	defer cancel()
	resp, err := c.API.ListPending(ctx, &limenv1.ListPendingRequest{})
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, p := range resp.GetAsks() {
		out = append(out, cobra.CompletionWithDesc(p.GetAskId(), shorten(describe.Action(p.GetDecision().GetAction()), 60)))
	}
	return out
}

// completeVersions lists the stored policy versions, newest first, with
// when each was set and by whom.
func (a *app) completeVersions() []cobra.Completion {
	c, err := a.dial()
	if err != nil {
		return nil
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
	defer cancel()
	resp, err := c.API.ListPolicyVersions(ctx, &limenv1.ListPolicyVersionsRequest{})
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, v := range resp.GetPolicies() {
		desc := "set " + v.GetTime().AsTime().Local().Format("2006-01-02 15:04")
		if by := v.GetAuthor(); by != "" {
			desc += " by " + by
		}
		out = append(out, cobra.CompletionWithDesc(strconv.FormatUint(v.GetVersion(), 10), desc))
	}
	return out
}
