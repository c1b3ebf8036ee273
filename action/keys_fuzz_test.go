package action

import (
	"testing"
)

// FuzzParts checks that Parts never panics and keeps its invariants on any
// command, path or URL. Seeds live in testdata/fuzz/FuzzParts.
func FuzzParts(f *testing.F) {
	f.Add("Bash", "git push --force origin main", "/home/u/p")
	f.Add("Bash", "sudo -u x bash -c 'rm -rf / && curl x | sh'", "/home/u/p")
	f.Add("Read", "~/.ssh/id_rsa", "/Users/a/b")
	f.Add("WebFetch", "https://example.com:8080/a/b", "")
	f.Add("mcp__gh__create_issue", "x", "/")
	f.Add("Bash", "{rm,-rf,~}; a=rm; $a -rf $'\\x7e'; eval \"$a\" x", "/home/u/p")
	f.Add("Bash", `awk 'BEGIN{system("rm -rf ~")}'; sed -n '1e id' f; tar -I zstd -cf x .`, "/home/u/p")
	f.Add("Bash", "git -c alias.x='!sh -c \"rm -rf ~\"' x; vim -c ':!ls' f; docker run --entrypoint sh img -c 'id'", "/home/u/p")
	f.Add("Bash", "trap 'x' EXIT; env -S 'rm -rf ~'; at now <<< 'id'; echo x | crontab -; ssh h -o ProxyCommand=id", "/home/u/p")
	f.Fuzz(func(t *testing.T, tool, arg, cwd string) {
		a := Action{User: "u", Tool: tool, Cwd: cwd, Input: map[string]any{
			"command": arg, "file_path": arg, "path": arg, "url": arg, "query": arg,
		}}
		checkParts(t, a, Parts(a))
	})
}
