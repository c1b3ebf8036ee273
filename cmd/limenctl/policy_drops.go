package main

import (
	"fmt"
	"reflect"
	"slices"
	"sort"

	"github.com/pelletier/go-toml/v2"

	"github.com/limenhq/limen/policy"
)

// policyDrops lists what the policy in force (oldDoc) has that newDoc would
// lose: rules and classes it leaves out, and settings it leaves out whose
// value in force is not the shipped default (a key left out takes the
// shipped default, not the value in force). Both documents must parse.
func policyDrops(oldDoc, newDoc string) []string {
	old, err1 := policy.Parse(oldDoc)
	now, err2 := policy.Parse(newDoc)
	if err1 != nil || err2 != nil {
		return nil
	}
	var drops []string
	lists := func(p *policy.Policy) map[string][]string {
		return map[string][]string{"block": patterns(p.Block), "ask": patterns(p.Ask), "allow": patterns(p.Allow)}
	}
	was, is := lists(old), lists(now)
	for _, list := range ruleLists {
		for _, r := range was[list] {
			if !slices.Contains(is[list], r) {
				drops = append(drops, fmt.Sprintf("rules.%s %s", list, r))
			}
		}
	}
	for _, c := range old.Classes {
		if now.Class(c.Name) == nil {
			drops = append(drops, "class "+c.Name)
		}
	}
	var oldTree, newTree, shipped map[string]any
	if toml.Unmarshal([]byte(oldDoc), &oldTree) != nil || toml.Unmarshal([]byte(newDoc), &newTree) != nil ||
		toml.Unmarshal([]byte(policy.DefaultDocument), &shipped) != nil {
		return drops
	}
	var settings []string
	var walk func(prefix string, o, n, d map[string]any)
	walk = func(prefix string, o, n, d map[string]any) {
		for k, v := range o {
			if k == "rules" && prefix == "" {
				continue // compared rule by rule above
			}
			nv, inNew := n[k]
			dv := d[k]
			if sub, ok := v.(map[string]any); ok {
				ns, _ := nv.(map[string]any)
				ds, _ := dv.(map[string]any)
				walk(prefix+k+".", sub, ns, ds)
				continue
			}
			if _, isList := v.([]any); isList || inNew || reflect.DeepEqual(v, dv) {
				continue // lists of tables ([[class]]) are compared by name above
			}
			shown := "nothing"
			if dv != nil {
				shown = fmt.Sprintf("%v, the shipped default", dv)
			}
			settings = append(settings, fmt.Sprintf("%s%s = %v (left out, it becomes %s)", prefix, k, v, shown))
		}
	}
	walk("", oldTree, newTree, shipped)
	sort.Strings(settings)
	return append(drops, settings...)
}
