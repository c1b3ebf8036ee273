package action

import "strings"

// riskyTable maps a command ("rm", or "git push" for a subcommand) to the
// flags that make it riskier, each to its canonical spelling, so that
// `rm -rf`, `rm -fr`, `rm -r -f` and `rm --recursive --force` share the
// level `Bash:rm [-f -r]`.
var riskyTable = map[string]map[string]string{
	"rm":      {"-r": "-r", "-R": "-r", "--recursive": "-r", "-f": "-f", "--force": "-f", "--no-preserve-root": "--no-preserve-root"},
	"cp":      {"-r": "-r", "-R": "-r", "--recursive": "-r", "-f": "-f", "--force": "-f"},
	"mv":      {"-f": "-f", "--force": "-f"},
	"ln":      {"-f": "-f", "--force": "-f"},
	"chmod":   {"-R": "-r", "--recursive": "-r"},
	"chown":   {"-R": "-r", "--recursive": "-r"},
	"chgrp":   {"-R": "-r", "--recursive": "-r"},
	"shred":   {"-u": "-u", "--remove": "-u"},
	"kill":    {"-9": "-9", "-KILL": "-9", "-SIGKILL": "-9"},
	"pkill":   {"-9": "-9", "-KILL": "-9", "-SIGKILL": "-9", "-f": "-f"},
	"killall": {"-9": "-9", "-KILL": "-9", "-SIGKILL": "-9"},
	"find":    {"-delete": "-delete", "-exec": "-exec", "-execdir": "-exec", "-ok": "-exec", "-okdir": "-exec"},
	"sed":     {"-i": "-i", "--in-place": "-i", "-f": "-f", "--file": "-f"},
	"awk":     {"-f": "-f", "--file": "-f"},
	"gawk":    {"-f": "-f", "--file": "-f"},
	"perl":    {"-i": "-i"},
	"curl": {"-d": "-d", "--data": "-d", "--data-binary": "-d", "--data-raw": "-d", "--data-urlencode": "-d",
		"-F": "-d", "--form": "-d", "-T": "-d", "--upload-file": "-d", "-X": "-X", "--request": "-X",
		"-o": "-o", "--output": "-o", "-O": "-o", "--remote-name": "-o", "-k": "-k", "--insecure": "-k"},
	"wget":              {"--post-data": "--post", "--post-file": "--post", "-O": "-O", "--output-document": "-O"},
	"rsync":             {"--delete": "--delete", "--delete-after": "--delete", "--delete-before": "--delete", "--delete-during": "--delete", "--remove-source-files": "--remove-source-files"},
	"git add":           {"-f": "-f", "--force": "-f"}, // adds what .gitignore keeps out (.env)
	"git push":          {"-f": "-f", "--force": "-f", "--force-with-lease": "--force-with-lease", "--force-if-includes": "--force-with-lease", "-d": "-d", "--delete": "-d", "--mirror": "--mirror", "--no-verify": "--no-verify", "--prune": "--prune", "--all": "--all", "--tags": "--tags", "--follow-tags": "--tags"},
	"git reset":         {"--hard": "--hard", "--merge": "--merge", "--keep": "--keep"},
	"git clean":         {"-f": "-f", "--force": "-f", "-d": "-d", "-x": "-x", "-X": "-x"},
	"git checkout":      {"-f": "-f", "--force": "-f", "-B": "-B", "--": "--"},
	"git switch":        {"-f": "-f", "--force": "-f", "--discard-changes": "-f", "-C": "-C"},
	"git branch":        {"-D": "-D", "-d": "-d", "--delete": "-d", "-f": "-f", "--force": "-f", "-M": "-M"},
	"git tag":           {"-d": "-d", "--delete": "-d", "-f": "-f", "--force": "-f"},
	"git commit":        {"-n": "--no-verify", "--no-verify": "--no-verify", "--amend": "--amend"},
	"git rebase":        {"--no-verify": "--no-verify", "-i": "-i", "--interactive": "-i"},
	"git restore":       {"--staged": "--staged", "-W": "-W", "--worktree": "-W", "--source": "--source", "-s": "--source"},
	"git filter-branch": {"-f": "-f", "--force": "-f"},
	"git update-ref":    {"-d": "-d", "--stdin": "--stdin"}, // deletes a ref, or whatever its input says
	"git symbolic-ref":  {"-d": "-d", "--delete": "-d"},
	"git replace":       {"-d": "-d", "--delete": "-d", "-f": "-f", "--force": "-f"},
	"docker":            {"--privileged": "--privileged", "-f": "-f", "--force": "-f", "-a": "-a", "--all": "-a", "--volumes": "--volumes", "-v": "-v", "--volume": "-v", "--net": "--net", "--network": "--net", "--pid": "--pid"},
	"podman":            {"--privileged": "--privileged", "-f": "-f", "--force": "-f", "-a": "-a", "--all": "-a", "--volumes": "--volumes"},
	"kubectl":           {"--force": "--force", "--all": "--all", "-A": "-A", "--all-namespaces": "-A", "--grace-period": "--grace-period", "--cascade": "--cascade"},
	"terraform":         {"-auto-approve": "-auto-approve", "--auto-approve": "-auto-approve", "-destroy": "-destroy"},
	"tofu":              {"-auto-approve": "-auto-approve", "-destroy": "-destroy"},
	"npm":               {"-g": "-g", "--global": "-g", "-f": "-f", "--force": "-f"},
	"pnpm":              {"-g": "-g", "--global": "-g", "-f": "-f", "--force": "-f"},
	"yarn":              {"-g": "-g", "--global": "-g"},
	"pip":               {"--break-system-packages": "--break-system-packages", "--force-reinstall": "--force-reinstall", "-i": "--index-url", "--index-url": "--index-url", "--extra-index-url": "--index-url", "--trusted-host": "--trusted-host"},
	"pip3":              {"--break-system-packages": "--break-system-packages", "--force-reinstall": "--force-reinstall", "-i": "--index-url", "--index-url": "--index-url", "--extra-index-url": "--index-url", "--trusted-host": "--trusted-host"},
	"apt":               {"-y": "-y", "--yes": "-y", "--assume-yes": "-y", "--purge": "--purge"},
	"apt-get":           {"-y": "-y", "--yes": "-y", "--assume-yes": "-y", "--purge": "--purge"},
	"dnf":               {"-y": "-y", "--assumeyes": "-y"},
	"yum":               {"-y": "-y", "--assumeyes": "-y"},
	"brew":              {"-f": "-f", "--force": "-f", "--zap": "--zap"},
	"gh":                {"--yes": "--yes", "-y": "--yes", "--force": "--force", "-X": "-X", "--method": "-X"},
	"chattr":            {"-R": "-r"},
	"truncate":          {"-s": "-s", "--size": "-s"},
	"ssh":               {"-R": "-R", "-L": "-L", "-D": "-D", "-o": "-o"},
	"tar":               {"-x": "-x", "--extract": "-x", "-C": "-C", "--directory": "-C", "--overwrite": "--overwrite"},
	"unzip":             {"-o": "-o"},
	"crontab":           {"-r": "-r", "-e": "-e"},
	"systemctl":         {"--force": "--force", "--now": "--now"},
}

// riskyAnywhere are long flags that raise the risk of any command.
var riskyAnywhere = map[string]string{
	"--force": "--force", "--hard": "--hard", "--no-verify": "--no-verify", "--delete": "--delete",
	"--prune": "--prune", "--no-preserve-root": "--no-preserve-root", "--privileged": "--privileged",
	"--force-with-lease": "--force-with-lease", "--dangerously-skip-permissions": "--dangerously-skip-permissions",
	"--yolo": "--yolo", "--insecure": "--insecure", "--allow-root": "--allow-root", "--unsafe-perm": "--unsafe-perm",
}

// noCluster are programs whose single-dash options are whole words (find
// -delete, terraform -destroy), so -xyz is not split into -x -y -z.
var noCluster = set("find", "terraform", "tofu", "java", "go", "dd", "kill", "pkill", "killall", "gcc", "clang", "tsc", "ffmpeg", "xcodebuild", "mvn", "./mvnw")

// riskyFlags returns the canonical risky flags of a command's arguments,
// unsorted, possibly repeated.
func riskyFlags(prog, sub string, args []word) []string {
	sub1, _, _ := strings.Cut(sub, " ")
	bySub := riskyTable[prog+" "+sub1]
	byProg := riskyTable[prog]
	var out []string
	lookup := func(f string) bool {
		if c, ok := bySub[f]; ok {
			out = append(out, c)
			return true
		}
		if c, ok := byProg[f]; ok {
			out = append(out, c)
			return true
		}
		if c, ok := riskyAnywhere[f]; ok {
			out = append(out, c)
			return true
		}
		return false
	}
	for _, a := range args {
		if !a.lit {
			continue
		}
		t := a.text
		switch {
		case prog == "dd" && strings.HasPrefix(t, "of="):
			out = append(out, "of=")
			continue
		case prog == "git" && sub1 == "push" && len(t) > 1 && t[0] == '+':
			out = append(out, "-f") // git push origin +main forces
			continue
		case prog == "git" && sub1 == "push" && len(t) > 1 && t[0] == ':':
			out = append(out, "-d") // git push origin :branch deletes
			continue
		case prog == "git" && sub1 == "push" && !strings.HasPrefix(t, "-") && pushesTo(t) != "":
			// Where a push lands is the decision: an approval of
			// pushing feature-x says nothing about main, a src:dst
			// mapping or refs/stash (the eleventh red-team pass).
			out = append(out, pushesTo(t))
			continue
		case t == "--":
			if prog == "git" && sub1 == "checkout" {
				out = append(out, "--")
			}
			return out
		case len(t) < 2 || t[0] != '-':
			continue
		}
		if name, _, ok := strings.Cut(t, "="); ok {
			t = name
		}
		if lookup(t) {
			continue
		}
		if strings.HasPrefix(t, "--") {
			// Long options may be abbreviated (git push --mirro, --delet):
			// a prefix of a risky option is that option.
			if len(t) >= 4 {
				for _, table := range []map[string]string{bySub, byProg} {
					for f, c := range table {
						if strings.HasPrefix(f, "--") && strings.HasPrefix(f, t) {
							out = append(out, c)
						}
					}
				}
			}
			continue
		}
		if (prog == "sed" || prog == "perl") && strings.HasPrefix(t, "-i") {
			out = append(out, "-i") // sed -i.bak: an in-place edit
			continue
		}
		if noCluster[prog] || (bySub == nil && byProg == nil) {
			continue
		}
		for k := 1; k < len(t); k++ {
			c := t[k]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				break
			}
			lookup(shortFlags[c])
		}
	}
	return out
}

// shortFlags holds "-a" … "-z", "-A" … "-Z", so splitting -rf allocates nothing.
var shortFlags = func() (t [128]string) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = "-" + string(c)
		t[c-'a'+'A'] = "-" + string(c-'a'+'A')
	}
	return t
}()

// pushesTo returns the flag level of a git push refspec whose landing
// needs its own answer: "to:main" for a branch people protect, "src:dst"
// for a mapping of one ref onto another, "" for a plain branch.
func pushesTo(spec string) string {
	src, dst, mapped := strings.Cut(spec, ":")
	if !mapped {
		dst = src
	}
	dst = strings.TrimPrefix(dst, "refs/heads/")
	switch {
	case protectedBranch(dst):
		return "to:" + dst
	case mapped && src != dst, strings.HasPrefix(src, "refs/") && !strings.HasPrefix(src, "refs/heads/"):
		return "src:dst"
	}
	return ""
}

// protectedBranch reports whether a branch name is one teams guard: the
// default branches and release and production lines.
func protectedBranch(b string) bool {
	switch b {
	case "main", "master", "trunk", "develop", "development", "production", "prod", "stable", "gh-pages", "HEAD":
		return true
	}
	return strings.HasPrefix(b, "release") || strings.HasPrefix(b, "prod/") || strings.HasPrefix(b, "hotfix")
}
