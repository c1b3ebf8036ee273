package policy

// DefaultDocument is the policy limen starts with, and the document users
// start editing from. Every setting is written out, with why it has its
// value.
const DefaultDocument = `# limen policy.
#
# limen predicts p, the probability that you would approve an action, from
# your own past answers, and turns three costs into two thresholds:
#
#   allow  when p > 1 - ask/allow
#   block  when p < ask/block
#   ask    otherwise (ties go to ask)
#
# When ask/block >= 1 - ask/allow, asking is never the cheapest verdict and
# one threshold allow/(allow+block) splits allow from block.
# Only the ratios of the costs matter.

# The default costs, used by the "unknown" class and by any class whose costs
# leave a field out.
[costs]
allow = 20.0  # a wrong allow: something ran that you would have refused
block = 2.0   # a wrong block: the agent was stopped for nothing
ask = 1.0     # an interruption: you answer, and your answer is taken as right
# => allow above p = 0.95, block below p = 0.5.

[learning]
# Share of would-be allows that are asked anyway, so that limen keeps
# learning what you approve (in [0, 0.5]).
exploration = 0.01
# Old answers count half as much after this long; "0s" never fades them.
half_life = "2160h"  # 90 days

[asks]
# How long an ask waits for a person before it expires (and is not allowed).
timeout = "10m"
# How long the prediction may take; past it the verdict is ask. A prediction
# takes microseconds; the margin is for a machine so loaded that the
# prediction's goroutine is not scheduled in time, which should cost an ask,
# not a wait: this stays far below any hook's own deadline.
predict_timeout = "100ms"

# Hard rules, in Claude Code's permission syntax, above the prediction:
# block wins over ask, ask over allow, allow over the prediction, and they are
# checked on every simple command of a compound one ("a && b", "a | b").
#   Bash(git status)          that exact command
#   Bash(npm run test *)      a glob; " *" at the end also matches "npm run test"
#   Bash(git push:*)          "git push" and anything after it
#   Read(./.env)              relative to the working directory
#   Read(~/.ssh/**)           under the home directory
#   Edit(//etc/**) or Edit(/etc/**)   absolute; ** spans directories
#   WebFetch(domain:github.com)   or domain:*.github.com for its subdomains
#   mcp__github  mcp__github__*  mcp__github__create_issue
#   Read                      a bare tool: every use of it
[rules]
allow = []
ask = []
block = [
  # An agent must never answer its own asks, change the policy or unhook
  # limen: those are a person's to do, in their own terminal (where no hook
  # runs). limen recognises its own controls by itself, whatever this list
  # says: limenctl answer, policy set/edit/rollback/import-claude, hook and
  # tui with any options, path or wrapper, stopping or starting limend,
  # clients of its sockets, and changes to its database or the runtimes'
  # hook settings. The rules below name the plainest spellings, so that
  # the policy shows them; taking them out does not let an agent do so.
  "Bash(limenctl answer:*)", "Bash(limenctl policy set:*)", "Bash(limenctl policy edit:*)",
  "Bash(limenctl policy rollback:*)", "Bash(limenctl policy import-claude:*)", "Bash(limenctl hook:*)",
  "Edit(~/.claude/settings*.json)", "Edit(./.claude/settings*.json)",
  "Edit(~/.codex/**)", "Edit(~/.gemini/settings.json)", "Edit(./.gemini/settings.json)",
  "Bash(rm -rf /)",
  "Bash(rm -rf /\\*)",  # the root glob itself, not every absolute path
  "Bash(rm -fr /)",
  "Bash(rm -fr /\\*)",
  "Bash(rm -rf ~)",
  "Bash(rm -rf ~/)",
  "Bash(rm -fr ~)",
]

# Risk classes: each has its own costs, hence its own thresholds. A part of
# an action gets the first class it matches, checked in this order, through
# "match" (rules as above) or "keys" (globs over limen's action keys, such as
# "Read:secret" or "Bash:git push [-f]"; * is any text), unless "except" or
# "except_keys" takes it out again. "unknown" is the fallback and comes last.
# Costs a class leaves out come from [costs].

# Secrets leak for good once read: a wrong allow costs five times the
# default (allow above 0.99).
[[class]]
name = "secrets"
costs = { allow = 100.0, block = 2.0, ask = 1.0 }
# A path is a secret by what it can match, glob or not: Read of .en?, a
# Grep whose glob is ".env*", Gemini's read_many_files of "**/.env*" and
# Codex's and Gemini's own file tools are keyed under these roots too.
keys = [
  "LS:secret*", "NotebookRead:secret*",  # a listing of a secret directory: LS ~/.ssh, Codex's list_dir ~/.aws
  "mcp__*:secret",  # an MCP tool given a secret path: mcp__filesystem__read_file of ~/.aws/credentials
  "Read:secret*", "Edit:secret*", "Write:secret*", "MultiEdit:secret*",
  "NotebookEdit:secret*", "Grep:secret*", "Glob:secret*",
  "Bash:*[*secret-file*]",  # a shell command that names a secret file: head certs/server.key
  "Bash:*[*secret-env*]",   # one that prints the environment: env, export -p, cat /proc/self/environ
]
match = [
  "Read(.env)", "Read(.env.*)", "Read(*.pem)", "Read(*.key)", "Read(id_rsa*)", "Read(id_ed25519*)",
  "Read(~/.ssh/**)", "Read(~/.aws/**)", "Read(~/.gnupg/**)", "Read(~/.kube/**)",
  "Read(~/.netrc)", "Read(~/.docker/config.json)", "Read(~/.config/gcloud/**)",
  "Edit(.env)", "Edit(.env.*)", "Edit(*.pem)", "Edit(*.key)",
  "Edit(~/.ssh/**)", "Edit(~/.aws/**)", "Edit(~/.gnupg/**)", "Edit(~/.kube/**)", "Edit(~/.netrc)",
  "Bash(* .env*)", "Bash(*/.env*)", "Bash(*.pem*)", "Bash(*id_rsa*)", "Bash(*id_ed25519*)",
  "Bash(*.ssh/*)", "Bash(*.aws/credentials*)", "Bash(*.netrc*)",
  "Bash(printenv)", "Bash(printenv *)",
]

# What cannot be undone: a wrong allow costs ten times the default
# (allow above 0.995). Over-matching here only means more asks.
[[class]]
name = "destructive"
costs = { allow = 200.0, block = 2.0, ask = 1.0 }
# Risky flags appear sorted in brackets in the keys: "Bash:rm [-f -r]".
keys = [
  "Bash:*[*every-file*]",  # rm *, mv * /tmp: every file of a directory
  "Bash:*[*destroys*]",    # > /dev/sda, > /proc/sysrq-trigger, git's destroying subcommands
  "Bash:rm [*-r*]", "Bash:sudo rm [*-r*]", "Bash:git push [*-f*]", "Bash:sudo git push [*-f*]",
]
match = [
  "Bash(rm -*r*)", "Bash(rm -*R*)", "Bash(rm --recursive *)", "Bash(rm * -*r*)", "Bash(rm * -*R*)",
  "Bash(git push --force*)", "Bash(git push -f *)", "Bash(git push -f)",
  "Bash(git push * --force*)", "Bash(git push * -f *)", "Bash(git push * -f)",
  "Bash(git push * +*)", "Bash(git push *--delete*)", "Bash(git push * -d *)", "Bash(git push * :* *)", "Bash(git push -d *)",
  "Bash(git push *--mirror*)", "Bash(git push *--prune*)", "Bash(git reset --hard *)", "Bash(git clean -*f*)",
  "Bash(git branch -D *)", "Bash(git checkout -- *)", "Bash(git filter-branch *)",
  "Bash(git checkout .)", "Bash(git checkout HEAD *)", "Bash(git checkout * .)", "Bash(git restore .)", "Bash(git restore --staged --worktree *)", "Bash(git stash clear)",
  "Bash(git stash drop*)", "Bash(git fetch * +*)", "Bash(git update-ref -d *)", "Bash(git reflog expire *)",
  "Bash(psql *DROP *)", "Bash(psql *drop *)", "Bash(psql *TRUNCATE *)", "Bash(psql *truncate *)",
  "Bash(mysql *DROP *)", "Bash(mysql *drop *)", "Bash(mysql *TRUNCATE *)", "Bash(mysql *truncate *)",
  "Bash(sqlite3 *DROP *)", "Bash(sqlite3 *drop *)",
  "Bash(mkfs *)", "Bash(mkfs.* *)", "Bash(dd *)", "Bash(shred *)", "Bash(truncate *)",
  "Bash(chmod -R *)", "Bash(chown -R *)",
  "Bash(find *-delete*)", "Bash(find *-exec*)", "Bash(find *-ok*)",
  "Bash(kubectl delete *)", "Bash(helm uninstall *)", "Bash(terraform destroy *)",
  "Bash(docker system prune *)", "Bash(docker volume rm *)", "Bash(docker volume prune *)",
  "Bash(aws s3 rm *)", "Bash(aws s3 rb *)", "Bash(gh repo delete *)",
]

# Data leaving the machine, or code arriving to run: like secrets
# (allow above 0.99). "curl ... | sh" is two parts; the bare shell reading
# stdin is the one caught here.
[[class]]
name = "network-exfiltration"
costs = { allow = 100.0, block = 2.0, ask = 1.0 }
match = [
  "Bash(sh)", "Bash(bash)", "Bash(zsh)", "Bash(sh -s *)", "Bash(bash -s *)",
  "Bash(curl *-d *)", "Bash(curl *--data*)", "Bash(curl *-F *)", "Bash(curl *--form*)",
  "Bash(curl *-T *)", "Bash(curl *--upload-file*)", "Bash(wget *--post-*)",
  "Bash(scp *)", "Bash(sftp *)", "Bash(ftp *)", "Bash(rsync *:*)",
  "Bash(nc *)", "Bash(ncat *)", "Bash(netcat *)", "Bash(socat *)", "Bash(telnet *)",
  "Bash(ssh *)",
  # Publishing the project: what is in it (an unignored .env) goes public.
  "Bash(npm publish*)", "Bash(pnpm publish*)", "Bash(yarn publish*)", "Bash(yarn npm publish*)", "Bash(cargo publish*)",
  "Bash(gem push*)", "Bash(twine upload*)", "Bash(poetry publish*)", "Bash(uv publish*)", "Bash(flit publish*)",
  "Bash(docker push*)", "Bash(podman push*)", "Bash(vsce publish*)", "Bash(gh release create*)",
  # Serving the working directory (its .env included) to the network.
  "Bash(python -m http.server*)", "Bash(python3 -m http.server*)", "Bash(php -S *)", "Bash(npx serve*)", "Bash(npx http-server*)",
]

# Edits outside the workspace (other projects, dotfiles) are not under
# version control here: 2.5x the default (allow above 0.98).
[[class]]
name = "write-outside-workspace"
costs = { allow = 50.0, block = 2.0, ask = 1.0 }
keys = [
  "Edit:outside*", "Write:outside*", "MultiEdit:outside*", "NotebookEdit:outside*",
  "Edit:home-dotfile*", "Write:home-dotfile*", "MultiEdit:home-dotfile*", "NotebookEdit:home-dotfile*",
]

# Edits inside the workspace are reviewed and can be undone with git: half
# the default (allow above 0.9).
[[class]]
name = "write-workspace"
costs = { allow = 10.0, block = 2.0, ask = 1.0 }
keys = ["Edit:workspace*", "Write:workspace*", "MultiEdit:workspace*", "NotebookEdit:workspace*"]
match = ["Edit(./**)"]

# Reading changes nothing (secrets were classed above), but what is read
# can still leave through the model. At a quarter of the default cost
# (allow above 0.8) the replay of real permission lists let through 3 in 100
# reads their owners refused; at the default it lets through fewer than 1.
# The class stays so that reads show as such, and so it can be loosened.
[[class]]
name = "read-only"
costs = { allow = 20.0, block = 2.0, ask = 1.0 }
match = [
  "Read",
  "Bash(ls)", "Bash(ls *)", "Bash(pwd)", "Bash(echo *)", "Bash(cat *)", "Bash(head *)",
  "Bash(tail *)", "Bash(wc *)", "Bash(grep *)", "Bash(rg *)", "Bash(find *)", "Bash(tree *)",
  "Bash(which *)", "Bash(file *)", "Bash(stat *)", "Bash(du *)", "Bash(df *)",
  "Bash(git status*)", "Bash(git log*)", "Bash(git diff*)", "Bash(git show*)",
  "Bash(git branch)", "Bash(git rev-parse *)", "Bash(git remote -v)",
]
# A redirection that writes a file is not read-only ("echo x > f").
except = ["Bash(*>*)", "Bash(tail -f *)"]
except_keys = ["Bash:*>*"]

# Everything else: the default costs.
[[class]]
name = "unknown"
`
