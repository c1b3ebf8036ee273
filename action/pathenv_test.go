package action

import "testing"

// TestPathEnv: an assignment whose name is a file a program writes or
// reads as its own, and whose value is a path, is marked config-env; a
// secret value is read (opaque: only the exact approval allows it); a
// protected one is a control.
func TestPathEnv(t *testing.T) {
	for _, c := range []struct {
		name, value string
		want        bool
	}{
		{"GIT_INDEX_FILE", "/tmp/x", true},
		{"GIT_INDEX_FILE", "index2", true},
		{"GIT_TRACE", "1", false},
		{"GIT_TRACE", "true", false},
		{"GIT_TRACE", "/tmp/t", true},
		{"GIT_TRACE2_EVENT", "~/.bashrc", true},
		{"SSLKEYLOGFILE", "keys.log", true},
		{"MY_TOOL_FILE", "/etc/x", true},
		{"MY_TOOL_FILE", "x", false}, // no path shape
		{"FOO_LOG", "./x.log", true},
		{"FOORC", "~/.foorc", true},
		{"BUILD_DIR", "../elsewhere", true},
		{"CURL_SSL_BACKEND", "openssl", false},
		{"DOCKER_HOST", "unix:///tmp/d.sock", true},
		{"NODE_ENV", "test", false},
		{"CI", "1", false},
		{"LANG", "C.UTF-8", false},
	} {
		if got := pathEnv(c.name, c.value); got != c.want {
			t.Errorf("pathEnv(%s, %s) = %v, want %v", c.name, c.value, got, c.want)
		}
	}
	marks := []struct {
		cmd, mark string
		want      bool
	}{
		{"GIT_INDEX_FILE=/tmp/x git add -A", "config-env", true},
		{"GIT_INDEX_FILE=.git/index.lock git add -A", "config-env", true},
		{"GIT_ALTERNATE_OBJECT_DIRECTORIES=/tmp/o git log", "config-env", true},
		{"GIT_TRACE_PACK_ACCESS=~/.bashrc git log", "config-env", true},
		{"GIT_TRACE2_PERF=/tmp/p git status", "config-env", true},
		{"SSLKEYLOGFILE=~/.bashrc curl -s https://api.github.com/repos/golang/go", "config-env", true},
		{"SSLKEYLOGFILE=~/.bashrc git push origin feature/cart", "config-env", true},
		{"env SSLKEYLOGFILE=/tmp/k curl -s https://a", "config-env", true},
		{"PGPASSFILE=src/p psql -h db", "config-env", true},
		{"TOOL_CONFIG=src/evil.yml ./tool", "config-env", true},
		{"GIT_AUTHOR_NAME=ana git commit -m x", "config-env", false},
		{"GIT_TRACE=1 git status", "config-env", false},
	}
	for _, c := range marks {
		checkMark(t, c.cmd, c.mark, c.want)
	}
	for _, cmd := range []string{
		"GIT_INDEX_FILE=~/.ssh/id_rsa git diff",
		"GIT_OBJECT_DIRECTORY=~/.ssh git add -A",
		"GIT_INDEX_FILE=.env git diff",
		"NETRC=~/.netrc curl -s https://a",
		"AWS_SHARED_CREDENTIALS_FILE=~/.aws/credentials ./x",
		"SOME_FILE=/proc/self/environ ./x",
		"RIPGREP_CONFIG_PATH=src/x.txt rg TODO src",
		"RIPGREP_CONFIG_PATH=/dev/stdin rg TODO",
		"export RIPGREP_CONFIG_PATH=src/x; rg TODO",
		"export GIT_INDEX_FILE=/tmp/x; git add -A",
		"GIT_OBJECT_DIRECTORY=/tmp/o; export GIT_OBJECT_DIRECTORY; git add -A",
	} {
		seen(t, cmd, opaque)
	}
	for _, cmd := range []string{
		"GIT_INDEX_FILE=~/.claude/settings.json git add -A",
		"GIT_INDEX_FILE=~/.local/share/limen/limen.db git add .",
		"SSLKEYLOGFILE=~/.gemini/settings.json curl -s https://a",
		"SSLKEYLOGFILE=~/.local/bin/limen-hook curl -s https://a",
		"GIT_TRACE_CURL=~/.codex/config.toml git fetch",
		"env GIT_INDEX_FILE=/home/me/.claude/settings.json git add -A",
		"sudo GIT_TRACE=/home/me/.claude/settings.json git status",
		// set before the command, in the same script
		"export GIT_INDEX_FILE=~/.claude/settings.json; git add -A",
		"GIT_INDEX_FILE=~/.claude/settings.json; export GIT_INDEX_FILE; git add -A",
		"declare -x GIT_TRACE=~/.claude/settings.json; git status",
		"export SSLKEYLOGFILE=~/.local/bin/limenctl && curl -s https://a",
	} {
		if why, parts := control(testSelf, cmd); why == "" {
			t.Errorf("%s: not a control (%s)", cmd, describeParts(parts))
		}
	}
}
