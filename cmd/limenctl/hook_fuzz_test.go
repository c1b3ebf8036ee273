package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzHookSettings: for any settings document that is a JSON object
// without limen's entry, install gives valid JSON holding the entry, and
// uninstall gives back the document byte for byte.
func FuzzHookSettings(f *testing.F) {
	files, _ := filepath.Glob("testdata/hook/settings-*.json")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[]}],"Stop":[]},"a":[1,2,{"b":"\"}"}]}`))
	f.Add([]byte("{\r\n\t\"x\": null\r\n}\r\n"))
	entry, _ := hookEntry("/usr/local/bin/limen-hook", "prompt", 0, "")
	f.Fuzz(func(t *testing.T, doc []byte) {
		var v map[string]any
		if json.Unmarshal(doc, &v) != nil || v == nil || len(bytes.TrimSpace(doc)) == 0 || bytes.Contains(doc, []byte(hookMarker)) {
			return
		}
		installed, changed, err := installEntry(doc, "PreToolUse", entry)
		if err != nil {
			return // a "hooks" or "PreToolUse" of the wrong type: refused
		}
		if !changed {
			t.Fatalf("install changed nothing in %q", doc)
		}
		// Keys as Claude Code reads them: exactly, unlike encoding/json's
		// case-insensitive match into a struct ("PretoolUse" is another key).
		var w map[string]any
		if err := json.Unmarshal(installed, &w); err != nil {
			t.Fatalf("install made invalid JSON from %q:\n%s\n%v", doc, installed, err)
		}
		hooks, _ := w["hooks"].(map[string]any)
		pre, _ := hooks["PreToolUse"].([]any)
		last, _ := func() (map[string]any, bool) {
			if len(pre) == 0 {
				return nil, false
			}
			m, ok := pre[len(pre)-1].(map[string]any)
			return m, ok
		}()
		if last["matcher"] != "*" {
			t.Fatalf("install did not add the entry last:\n%s", installed)
		}
		for i, e := range pre {
			if _, ok := e.(map[string]any); !ok {
				t.Fatalf("install left PreToolUse[%d] that Claude Code cannot read:\n%s", i, installed)
			}
		}
		back, changed, err := uninstallEntry(installed, "PreToolUse")
		if err != nil || !changed {
			t.Fatalf("uninstall: %v, changed %v", err, changed)
		}
		if !bytes.Equal(back, doc) {
			t.Fatalf("install then uninstall:\n%q\nwant\n%q", back, doc)
		}
	})
}
