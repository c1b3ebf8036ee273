package policy

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ImportClaude reads the permissions of a Claude Code settings.json
// (permissions.allow, .ask and .deny) and returns the rules limen can parse,
// deny becoming block. Rules that do not parse are left out and listed in
// err, each with its list, index and reason; the others are returned even
// then, so `limenctl policy import-claude` can import what it can and show
// the rest.
func ImportClaude(settingsJSON []byte) (allow, ask, deny []string, err error) {
	var s struct {
		Permissions struct {
			Allow []string `json:"allow"`
			Ask   []string `json:"ask"`
			Deny  []string `json:"deny"`
		} `json:"permissions"`
	}
	if err := json.Unmarshal(settingsJSON, &s); err != nil {
		return nil, nil, nil, fmt.Errorf("read Claude Code settings: %w", err)
	}
	var errs []error
	keep := func(field string, v Verdict, rules []string) []string {
		var out []string
		for i, r := range rules {
			if _, err := ParseRule(v, r); err != nil {
				errs = append(errs, fmt.Errorf("permissions.%s[%d] %w", field, i, err))
				continue
			}
			out = append(out, r)
		}
		return out
	}
	allow = keep("allow", Allow, s.Permissions.Allow)
	ask = keep("ask", Ask, s.Permissions.Ask)
	deny = keep("deny", Block, s.Permissions.Deny)
	return allow, ask, deny, errors.Join(errs...)
}
