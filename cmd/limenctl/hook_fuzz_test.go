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
		installed, changed, err := installEntry(doc, entry)
		if err != nil {
			return // a "hooks" or "PreToolUse" of the wrong type: refused
		}
		if !changed {
			t.Fatalf("install changed nothing in %q", doc)
		}
		var w struct {
			Hooks struct{ PreToolUse []claudeHookEntry }
		}
		if err := json.Unmarshal(installed, &w); err != nil {
			t.Fatalf("install made invalid JSON from %q:\n%s\n%v", doc, installed, err)
		}
		if n := len(w.Hooks.PreToolUse); n == 0 || w.Hooks.PreToolUse[n-1].Matcher != "*" {
			t.Fatalf("install did not add the entry last:\n%s", installed)
		}
		back, changed, err := uninstallEntry(installed)
		if err != nil || !changed {
			t.Fatalf("uninstall: %v, changed %v", err, changed)
		}
		if !bytes.Equal(back, doc) {
			t.Fatalf("install then uninstall:\n%q\nwant\n%q", back, doc)
		}
	})
}
