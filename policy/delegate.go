package policy

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Delegate lets one person answer other users' asks: in a team, an ask
// belongs to its user, and besides that user only a delegate named here,
// for the ask's risk class and until the delegation ends, may answer it.
//
//	[[delegate]]
//	who = "lena"                    # the person who may answer
//	users = ["ana", "bo"]           # whose asks ("*": everyone's)
//	classes = ["deploy"]            # their risk classes ("*": every class)
//	until = "2026-12-31T00:00:00Z"  # when it ends (RFC 3339), required
type Delegate struct {
	Who     string
	Users   []string
	Classes []string
	Until   time.Time
}

type delegateDoc struct {
	Who     string   `toml:"who"`
	Users   []string `toml:"users"`
	Classes []string `toml:"classes"`
	Until   string   `toml:"until"`
}

// parseDelegates checks and converts the [[delegate]] tables; add reports
// each problem, naming the table and the field.
func parseDelegates(docs []delegateDoc, p *Policy, add func(prefix string, err error)) []Delegate {
	var out []Delegate
	for i, dd := range docs {
		where := fmt.Sprintf("delegate[%d] ", i)
		d := Delegate{Who: dd.Who, Users: dd.Users, Classes: dd.Classes}
		ok := true
		fail := func(msg string) { add(where, errors.New(msg)); ok = false }
		if dd.Who == "" {
			fail(`who is missing: name the person who may answer, as who = "lena"`)
		}
		if len(dd.Users) == 0 {
			fail(`users is missing: name whose asks they may answer, as users = ["ana"], or users = ["*"] for everyone's`)
		}
		if len(dd.Classes) == 0 {
			fail(`classes is missing: name the risk classes, as classes = ["deploy"], or classes = ["*"] for every class`)
		}
		for _, c := range dd.Classes {
			if c != "*" && p.Class(c) == nil {
				fail(fmt.Sprintf("classes names %q, which is no class of this policy", c))
			}
		}
		until, err := time.Parse(time.RFC3339, dd.Until)
		switch {
		case dd.Until == "":
			fail(`until is missing: a delegation must end, as until = "2026-12-31T00:00:00Z"`)
		case err != nil:
			fail(fmt.Sprintf("until %q is not an RFC 3339 time: write it like \"2026-12-31T00:00:00Z\"", dd.Until))
		}
		d.Until = until
		if ok {
			out = append(out, d)
		}
	}
	return out
}

// MayAnswer reports whether who may answer, at now, an ask of user whose
// decision put it in risk class class: the user always may; anyone else
// only as a delegate for that user and class whose delegation has not
// ended. A nil policy delegates nothing.
func (p *Policy) MayAnswer(who, user, class string, now time.Time) bool {
	if who == user {
		return true
	}
	if p == nil {
		return false
	}
	for _, d := range p.Delegates {
		if d.Who == who && now.Before(d.Until) &&
			(slices.Contains(d.Users, "*") || slices.Contains(d.Users, user)) &&
			(slices.Contains(d.Classes, "*") || slices.Contains(d.Classes, class)) {
			return true
		}
	}
	return false
}
