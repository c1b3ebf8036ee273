package action

import (
	"slices"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Programs that run code given in their arguments are seen through: the
// command or script they run is what is keyed, recursively, so that
// `nice rm -rf ~`, `su -c 'rm -rf ~'` and `git -c core.pager='rm -rf ~' log`
// are keyed as the rm they run. When the code cannot be recovered (an
// interpreter's program, a script built at run time, commands read from a
// pipe), the part is opaque: only a rule or the person's approval of the
// exact text can allow it.
//
// The knowledge is this table, one row per program; each row has a test in
// exec_table_test.go. The columns say where the code is; a row's see
// function holds what does not fit them.

// execHow says what a program's operands are.
type execHow int8

const (
	// operandsData: the operands are data. Only the script and code
	// options run anything (su -c, script -c, perl -e).
	operandsData execHow = iota
	// operandsArgv: the operands after skip are a command and its
	// arguments (nice, strace, chroot ROOT, systemd-run).
	operandsArgv
	// operandsScript: the operands after skip, joined by spaces, are a
	// shell script (eval, watch, ssh HOST).
	operandsScript
)

// execRule is one row of the table.
type execRule struct {
	how  execHow
	opts optSpec
	// skip is how many operands come before the command or script: the
	// duration of timeout, the lock file of flock, the host of ssh.
	skip int
	// script are options whose value is a shell script that limen parses
	// (su -c 'cmd', flock -c 'cmd', env -S 'cmd args').
	script []string
	// code are options whose value is code limen does not read, or a
	// file of it (python -c, gdb -ex, vim -S): the part is opaque.
	code []string
	// argvAfter are options after which the remaining words are a
	// command (gdb --args prog …).
	argvAfter []string
	// priv marks a wrapper that raises privileges (sudo).
	priv bool
	// keep keys the program itself too, besides what it runs: ssh HOST
	// cmd is a part for the ssh and parts for cmd.
	keep bool
	// see, when set, decides instead of the columns.
	see func(w walker, c *execCall) (next int, done bool)
}

// execTable is what limen knows of programs that run other code: the rows
// of execRows, and a row for each shell and interpreter. It is filled by
// init, as its see functions walk commands that look rows up.
var execTable map[string]execRule

// execRows are the table's rows.
func execRows() map[string]execRule {
	return map[string]execRule{
		// Privilege and process wrappers: the rest is a command.
		"sudo":        {how: operandsArgv, priv: true, see: seeSudo, opts: optSpec{valueShort: "uUgCDhprtT", valueLong: set("--user", "--group", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user", "--close-from", "--command-timeout"), assigns: true}},
		"doas":        {how: operandsArgv, priv: true, opts: optSpec{valueShort: "uC"}},
		"pkexec":      {how: operandsArgv, priv: true, opts: optSpec{valueLong: set("--user")}},
		"run0":        {how: operandsArgv, priv: true, opts: optSpec{valueShort: "uD", valueLong: set("--user", "--chdir", "--description", "--setenv")}},
		"env":         {how: operandsArgv, opts: optSpec{valueShort: "uC", valueLong: set("--unset", "--chdir"), assigns: true}, script: []string{"-S", "--split-string"}},
		"timeout":     {how: operandsArgv, skip: 1, opts: optSpec{valueShort: "sk", valueLong: set("--signal", "--kill-after")}},
		"nice":        {how: operandsArgv, opts: optSpec{valueShort: "n", valueLong: set("--adjustment")}},
		"ionice":      {how: operandsArgv, opts: optSpec{valueShort: "cnp", valueLong: set("--class", "--classdata")}},
		"nohup":       {how: operandsArgv},
		"setsid":      {how: operandsArgv},
		"time":        {how: operandsArgv, opts: optSpec{valueShort: "fo", valueLong: set("--format", "--output")}},
		"command":     {how: operandsArgv, see: seeCommand},
		"builtin":     {how: operandsArgv},
		"exec":        {how: operandsArgv, opts: optSpec{valueShort: "a"}},
		"stdbuf":      {how: operandsArgv, opts: optSpec{valueShort: "ioe", valueLong: set("--input", "--output", "--error")}},
		"caffeinate":  {how: operandsArgv, opts: optSpec{valueShort: "tw"}},
		"chronic":     {how: operandsArgv},
		"unbuffer":    {how: operandsArgv},
		"busybox":     {how: operandsArgv},
		"toybox":      {how: operandsArgv},
		"flock":       {how: operandsArgv, skip: 1, opts: optSpec{valueShort: "wE", valueLong: set("--timeout", "--wait", "--conflict-exit-code")}, script: []string{"-c", "--command"}},
		"chroot":      {how: operandsArgv, skip: 1, opts: optSpec{valueLong: set("--userspec", "--groups")}},
		"unshare":     {how: operandsArgv, opts: optSpec{valueShort: "SGRwl", valueLong: set("--setuid", "--setgid", "--root", "--wd", "--propagation")}},
		"nsenter":     {how: operandsArgv, opts: optSpec{valueShort: "tSGrwTe", valueLong: set("--target", "--setuid", "--setgid", "--root", "--wd")}},
		"strace":      {how: operandsArgv, opts: optSpec{valueShort: "abeEIoOpPsSuUX", valueLong: set("--output", "--trace", "--signal", "--attach", "--user", "--env")}},
		"ltrace":      {how: operandsArgv, opts: optSpec{valueShort: "aAeEFlnopsuwxD", valueLong: set("--output", "--library")}},
		"valgrind":    {how: operandsArgv},
		"systemd-run": {how: operandsArgv, opts: optSpec{valueShort: "upEMH", valueLong: set("--unit", "--property", "--description", "--slice", "--setenv", "--uid", "--gid", "--working-directory", "--machine", "--host", "--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property", "--path-property", "--socket-property", "--service-type", "--nice")}},
		"sshpass":     {how: operandsArgv, opts: optSpec{valueShort: "pfde"}},
		"xvfb-run":    {how: operandsArgv, opts: optSpec{valueShort: "nsfep", valueLong: set("--server-num", "--server-args", "--auth-file", "--error-file")}},
		"dbus-launch": {how: operandsArgv},
		"ssh-agent":   {how: operandsArgv, opts: optSpec{valueShort: "aEPt"}},
		"torsocks":    {how: operandsArgv},
		"proxychains": {how: operandsArgv, opts: optSpec{valueShort: "f"}},
		"firejail":    {how: operandsArgv},
		"faketime":    {how: operandsArgv, skip: 1},
		"xargs":       {how: operandsArgv, opts: optSpec{valueShort: "aEdILnPsi", valueLong: set("--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var", "--replace")}, see: seeXargs},
		"gdb":         {code: []string{"-ex", "-iex", "-x", "-ix", "--eval-command", "--init-eval-command", "--command", "--init-command", "-eval-command", "-init-eval-command", "-command", "-init-command"}, argvAfter: []string{"--args", "-args"}},

		// A shell script in an option or in the operands.
		"eval":    {how: operandsScript, see: seeEval},
		"watch":   {how: operandsScript, opts: optSpec{valueShort: "nqd", valueLong: set("--interval", "--differences")}},
		"su":      {priv: true, script: []string{"-c", "--command", "--session-command"}, opts: optSpec{valueShort: "sgGw", valueLong: set("--shell", "--group", "--supp-group", "--whitelist-environment")}},
		"runuser": {priv: true, script: []string{"-c", "--command", "--session-command"}, opts: optSpec{valueShort: "sgGuw", valueLong: set("--shell", "--group", "--supp-group", "--user", "--whitelist-environment")}, see: seeRunuser},
		"sg":      {script: []string{"-c"}, how: operandsScript, skip: 1},
		"script":  {script: []string{"-c", "--command"}, opts: optSpec{valueShort: "EBIOTo", valueLong: set("--echo", "--log-io", "--log-in", "--log-out", "--log-timing", "--output-limit")}},
		"npx":     {script: []string{"-c", "--call"}, see: withScriptShell(seeNpx)},
		"npm":     {script: []string{"-c", "--call"}, see: withScriptShell(seeNpmExec)},
		"pnpm":    {see: withScriptShell(seePnpmExec)},
		"yarn":    {see: withScriptShell(seePnpmExec)},
		"ssh":     {keep: true, how: operandsScript, skip: 1, opts: optSpec{valueShort: "BbcDEeFIiJLlmOopQRSWw"}, see: seeSSH},
		"trap":    {see: seeTrap},
		"alias":   {see: seeAlias},
		"source":  {see: seeSource},
		".":       {see: seeSource},

		// Programs with code in a language of their own.
		"awk":      {keep: true, see: seeAwk},
		"gawk":     {keep: true, see: seeAwk},
		"mawk":     {keep: true, see: seeAwk},
		"nawk":     {keep: true, see: seeAwk},
		"sed":      {keep: true, see: seeSed},
		"gsed":     {keep: true, see: seeSed},
		"tar":      {keep: true, see: seeTar},
		"gtar":     {keep: true, see: seeTar},
		"bsdtar":   {keep: true, see: seeTar},
		"git":      {keep: true, see: seeGit},
		"vim":      {keep: true, see: seeVim},
		"vi":       {keep: true, see: seeVim},
		"nvim":     {keep: true, see: seeVim},
		"gvim":     {keep: true, see: seeVim},
		"view":     {keep: true, see: seeVim},
		"vimdiff":  {keep: true, see: seeVim},
		"ex":       {keep: true, see: seeVim},
		"emacs":    {keep: true, code: []string{"--eval", "-eval", "--execute", "-l", "--load", "-f", "--funcall", "-batch", "--batch", "--script", "-x"}},
		"ed":       {see: seeStdinCode},
		"docker":   {keep: true, see: seeCompose},
		"podman":   {keep: true, see: seeCompose},
		"nerdctl":  {keep: true, see: seeCompose},
		"kubectl":  {keep: true, see: seeKubectl},
		"oc":       {keep: true, see: seeKubectl},
		"find":     {keep: true, see: seeFind},
		"crontab":  {keep: true, see: seeCrontab},
		"at":       {see: seeAt},
		"batch":    {see: seeAt},
		"tmux":     {keep: true, see: seeTmux},
		"expect":   {code: []string{"-c"}, see: seeInterpreter},
		"parallel": {see: seeParallel},

		// Compose runs the containers its file describes: host mounts,
		// privileged mode, commands. The file is code limen does not read.
		"docker-compose": {keep: true, see: seeCompose},
		"podman-compose": {keep: true, see: seeCompose},

		// Options whose value is a command, on programs that are data
		// otherwise.
		"rsync":     {keep: true, script: []string{"-e", "--rsh", "--rsync-path"}, opts: optSpec{valueShort: "BfT", valueLong: set("--exclude", "--include", "--filter", "--files-from", "--temp-dir", "--backup-dir", "--suffix", "--port", "--log-file", "--password-file", "--chmod", "--chown", "--timeout", "--bwlimit", "--compare-dest", "--copy-dest", "--link-dest")}},
		"scp":       {keep: true, script: []string{"-S"}, see: seeSSHOptions},
		"sftp":      {keep: true, script: []string{"-S", "-D"}, see: seeSSHOptions},
		"man":       {keep: true, script: []string{"-P", "--pager", "-H", "--html"}},
		"nodemon":   {keep: true, script: []string{"-x", "--exec"}},
		"entr":      {keep: true, script: []string{"-s"}, how: operandsArgv},
		"hyperfine": {keep: true, script: []string{"-p", "--prepare", "-s", "--setup", "-c", "--cleanup", "--conclude"}, see: seeHyperfine},
		"ansible":   {keep: true, see: seeAnsible},

		// Tool runners: a subcommand after which the rest is a command run in
		// the tool's environment (uv run rm …, bundle exec rm …). The runner
		// is keyed too.
		"uv":         {keep: true, see: subArgv(set("run"), set("--with", "--python", "-p", "--project", "--directory", "--package", "--extra", "--group", "--env-file", "--index", "--index-url", "--with-requirements"))},
		"poetry":     {keep: true, see: subArgv(set("run"), set("-C", "--directory", "-P", "--project"))},
		"pipenv":     {keep: true, see: subArgv(set("run"), nil)},
		"conda":      {keep: true, see: subArgv(set("run"), set("-n", "--name", "-p", "--prefix", "--cwd"))},
		"mamba":      {keep: true, see: subArgv(set("run"), set("-n", "--name", "-p", "--prefix", "--cwd"))},
		"micromamba": {keep: true, see: subArgv(set("run"), set("-n", "--name", "-p", "--prefix", "--cwd"))},
		"pixi":       {keep: true, see: subArgv(set("run", "exec"), set("-e", "--environment", "--manifest-path"))},
		"bundle":     {keep: true, see: subArgv(set("exec"), set("--gemfile"))},
		"rbenv":      {keep: true, see: subArgv(set("exec"), nil)},
		"pyenv":      {keep: true, see: subArgv(set("exec"), nil)},
		"mise":       {keep: true, see: subArgv(set("exec", "x"), nil)},
		"asdf":       {keep: true, see: subArgv(set("exec"), nil)},
		"volta":      {keep: true, see: subArgv(set("run"), set("--node", "--npm", "--yarn"))},
		"fnm":        {keep: true, see: subArgv(set("exec"), set("--using"))},
		"direnv":     {keep: true, see: subArgv(set("exec"), nil), skip: 1},
		"nix":        {keep: true, script: []string{"-c", "--command"}, see: seeNix},
		"nix-shell":  {keep: true, script: []string{"--run", "--command"}},
		"vagrant":    {keep: true, script: []string{"-c", "--command"}},
		"doppler":    {keep: true, see: subArgv(set("run"), set("-p", "--project", "-c", "--config", "--command"))},
		"op":         {keep: true, see: subArgv(set("run"), set("--env-file"))},
		"aws-vault":  {keep: true, see: subArgv(set("exec"), set("-d", "--duration", "--region")), skip: 1},
		"infisical":  {keep: true, see: subArgv(set("run"), set("--env", "--path", "--projectId", "--command"))},
		"dotenv":     {keep: true, see: seeDashDash},
		"psql":       {keep: true, code: []string{"-c", "--command"}, see: seeSQLClient},
		"mysql":      {keep: true, code: []string{"-e", "--execute"}, see: seeSQLClient},
		"mariadb":    {keep: true, code: []string{"-e", "--execute"}, see: seeSQLClient},
		"sqlite3":    {keep: true, see: seeSQLite},
		"lldb":       {code: []string{"-o", "--one-line", "-O", "--one-line-before-file", "-s", "--source", "-S", "--source-before-file", "-k", "--one-line-on-crash"}, argvAfter: []string{"--"}},
		"make":       {code: []string{"--eval", "-E"}, see: seeMake},
		"gmake":      {code: []string{"--eval", "-E"}, see: seeMake},

		// Options and variables whose value is a command, on build tools
		// that are data otherwise: go test -exec X, cargo --config
		// build.rustc-wrapper=X, sort --compress-program=X.
		"go":    {keep: true, see: seeGo},
		"cargo": {keep: true, see: seeCargo},
		"sort":  {keep: true, script: []string{"--compress-program"}},
		"zip":   {keep: true, script: []string{"-TT", "--unzip-command"}},
		// netcat's program to serve a connection with; fd's command for
		// each file it finds (the rest of the line); nmap's scripts.
		"nc":      {keep: true, script: []string{"-e", "-c"}},
		"netcat":  {keep: true, script: []string{"-e", "-c"}},
		"ncat":    {keep: true, script: []string{"-e", "--exec", "-c", "--sh-exec"}, code: []string{"--lua-exec"}},
		"fd":      {keep: true, code: []string{"-x", "--exec", "-X", "--exec-batch"}},
		"fdfind":  {keep: true, code: []string{"-x", "--exec", "-X", "--exec-batch"}},
		"nmap":    {keep: true, code: []string{"--script", "-sC", "--script-args-file"}},
		"mongosh": {keep: true, code: []string{"--eval", "-f", "--file"}},
		"aws":     {keep: true, see: seeAwsConfigure},
		// Debuggers run the commands, and so the code, their input gives.
		"dlv":   {keep: true, see: seeDebugger},
		"jdb":   {keep: true, see: seeDebugger},
		"rdbg":  {keep: true, see: seeDebugger},
		"pdb":   {keep: true, see: seeDebugger},
		"ipdb":  {keep: true, see: seeDebugger},
		"pudb":  {keep: true, see: seeDebugger},
		"rg":    {keep: true, script: []string{"--hostname-bin"}, see: seeRg},
		"socat": {keep: true, see: seeSocat},
		// A config file or command sets any option, the output file too.
		"curl":    {keep: true, see: seeCurl, code: []string{"-K", "--config", "--expand-config", "--engine"}, opts: optSpec{valueShort: "oOdHuAeXTFwrbcDE", valueLong: set("--output", "--data", "--header", "--user", "--url", "--request", "--form", "--write-out", "--upload-file")}},
		"wget":    {keep: true, code: []string{"-e", "--execute", "--config", "--use-askpass"}, opts: optSpec{valueShort: "oaOPiBTtwQUlAR", valueLong: set("--output-document", "--output-file", "--directory-prefix", "--user-agent", "--header", "--input-file")}},
		"aria2c":  {keep: true, script: []string{"--on-download-complete", "--on-download-start", "--on-download-error", "--on-download-stop", "--on-download-pause", "--on-bt-download-complete"}},
		"ag":      {keep: true, script: []string{"--pager"}},
		"ack":     {keep: true, script: []string{"--pager"}},
		"bat":     {keep: true, script: []string{"--pager"}},
		"gcc":     {keep: true, see: seeCC},
		"g++":     {keep: true, see: seeCC},
		"cc":      {keep: true, see: seeCC},
		"c++":     {keep: true, see: seeCC},
		"clang":   {keep: true, see: seeCC},
		"clang++": {keep: true, see: seeCC},
		"pytest":  {keep: true, see: seePytest},
		"py.test": {keep: true, see: seePytest},
	}
}

// seeCurl: curl 8.3 takes --expand- before any long option and then
// replaces {{NAME}} in its value with a --variable (an environment
// variable, a file's content): the URL, header, data, output or config
// file is only known when it runs, so the part is opaque. Otherwise the
// columns apply (-K, --config and --expand-config read options from a
// file limen does not read).
func seeCurl(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		t := cmd[i].text
		if !cmd[i].lit || !strings.HasPrefix(t, "--expand-") {
			continue
		}
		value := ""
		if _, v, ok := strings.Cut(t, "="); ok {
			value = v
		} else if i+1 < len(cmd) {
			if !cmd[i+1].lit {
				return 0, w.opaqueCall(c, "its --expand- option's value is built when it runs")
			}
			value = cmd[i+1].text
		}
		if strings.Contains(value, "{{") {
			return 0, w.opaqueCall(c, "its "+t+" value is filled in from variables (the environment, files) when it runs")
		}
	}
	return w.seeColumns(c)
}

// composeRuns are the compose verbs that create, start or build the
// containers of a compose file (or print it with .env's values filled in:
// composeReads).
var composeRuns = set("up", "run", "create", "start", "restart", "exec", "build", "watch", "scale", "unpause", "attach", "cp", "alpha", "publish", "deploy")

// composeReads are the compose verbs that print the compose file
// interpolated with the project's .env: a read of it.
var composeReads = set("config", "convert")

// composeValueOpts are compose's options that take a value.
var composeValueOpts = set("-f", "--file", "-p", "--project-name", "--env-file", "--profile", "--project-directory", "--parallel", "--ansi", "--progress",
	"-H", "--host", "--context", "-c", "--config", "-l", "--log-level", "--podman-path", "--podman-args", "--in-pod")

// composeVerb returns the compose verb of docker compose …, podman compose
// …, docker-compose … and podman-compose …, after their options.
func composeVerb(cmd []word) string {
	prog := programName(cmd[0])
	i := 1
	skip := func() {
		for i < len(cmd) && cmd[i].lit && strings.HasPrefix(cmd[i].text, "-") {
			if composeValueOpts[cmd[i].text] {
				i++
			}
			i++
		}
	}
	skip()
	if prog != "docker-compose" && prog != "podman-compose" {
		if i >= len(cmd) || cmd[i].text != "compose" {
			return ""
		}
		i++
		skip()
	}
	if i >= len(cmd) || !cmd[i].lit {
		return ""
	}
	return cmd[i].text
}

// seeCompose: a compose verb that runs containers runs what the compose
// file says, which limen does not read, so the part is opaque (the
// command is keyed too); docker run and exec are seeContainer's.
func seeCompose(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	sub := subcommand(programName(cmd[0]), cmd[1:])
	if composeRuns[composeVerb(cmd)] || sub == "stack" && hasWord(cmd, "deploy") || sub == "buildx bake" || sub == "buildx" && hasWord(cmd, "bake") {
		// docker stack deploy -c FILE and docker buildx bake read a
		// compose (or bake) file too.
		w.opaqueCall(c, "it runs the containers its compose file describes (host mounts, privileged mode, commands), which limen does not read")
	}
	return seeContainer(w, c)
}

// nodeCode are node's options that run code inline or load a module or
// a file of options: -r/--import/--loader preload one, --test-global-setup
// runs one around the tests, --experimental-config-file and
// --openssl-config read files that name more (options, engines).
var nodeCode = []string{"-e", "--eval", "-p", "--print", "-r", "--require", "--import", "--loader", "--experimental-loader",
	"--test-global-setup", "--experimental-config-file", "--openssl-config", "--snapshot-blob"}

// nodeReporters are node --test's built-in reporters; any other
// --test-reporter value is a module node loads and runs.
var nodeReporters = set("spec", "tap", "dot", "junit", "lcov")

// moduleHow says where a module run with python -m finds code to run.
type moduleHow int8

const (
	moduleData   moduleHow = iota
	moduleStdin            // a REPL: run piped input as a program
	moduleCode             // its arguments are Python statements
	moduleScript           // its first operand is a script it runs
)

// pythonModules are the standard (and common) modules that run code
// python -m hands them: the REPLs code, asyncio, IPython … run what a pipe
// feeds them as `python3 -` does; timeit runs its arguments; pdb, the
// profilers and trace run a script file.
var pythonModules = map[string]moduleHow{
	"code": moduleStdin, "asyncio": moduleStdin, "IPython": moduleStdin, "ipython": moduleStdin, "bpython": moduleStdin,
	"ptpython": moduleStdin, "idlelib": moduleStdin, "idlelib.idle": moduleStdin, "rlcompleter": moduleStdin, "jupyter_console": moduleStdin,
	"timeit": moduleCode, "doctest": moduleScript,
	"pdb": moduleScript, "cProfile": moduleScript, "profile": moduleScript, "trace": moduleScript, "pyinstrument": moduleScript,
	"scalene": moduleScript, "memory_profiler": moduleScript,
}

// pdbCommands reports whether pdb is given commands (-c) beyond the
// harmless ones that only move through the program (continue, next,
// where): any other is a statement, Python.
func pdbCommands(args []word) bool {
	for i, a := range args {
		if a.text == "-c" || a.text == "--command" {
			if i+1 >= len(args) || !args[i+1].lit || !pdbMoves[strings.TrimSpace(args[i+1].text)] {
				return true
			}
		}
	}
	return false
}

// pdbMoves are pdb's commands that run no code of their own.
var pdbMoves = set("c", "cont", "continue", "n", "next", "s", "step", "r", "return", "q", "quit", "bt", "w", "where", "u", "up", "d", "down", "l", "list")

// debuggerModules are the Python debuggers: their commands (-c, or their
// input) are Python.
var debuggerModules = set("pdb", "ipdb", "pudb")

// moduleValued are the options of pythonModules' script runners whose
// value is the next word: pdb -c COMMAND, cProfile -o FILE -s KEY.
var moduleValued = map[string][]string{
	"pdb": {"-c", "--command"}, "cProfile": {"-o", "-s"}, "profile": {"-o", "-s"},
	"trace": {"-f", "--file", "-C", "--coverdir", "--ignore-module", "--ignore-dir"}, "doctest": {"-o", "--option"},
	"pyinstrument": {"-o", "--outfile", "-r", "--renderer"}, "scalene": {"--outfile"},
}

// inspectsOpen reports whether a node option opens the inspector on an
// address other than loopback (--inspect=0.0.0.0:9229): anyone who
// reaches the port runs code in the process.
func inspectsOpen(t string) bool {
	name, v, ok := strings.Cut(t, "=")
	switch name {
	case "--inspect", "--inspect-brk", "--inspect-wait", "--inspect-port", "--debug-port":
	default:
		return false
	}
	if !ok {
		return false // 127.0.0.1 by default
	}
	host, _, hasPort := strings.Cut(v, ":")
	if !hasPort && !strings.Contains(v, ".") && v != "localhost" {
		return false // a port alone: loopback
	}
	return host != "127.0.0.1" && host != "localhost" && host != "[::1]"
}

// seeJq: a jq program read from a file (-f, --from-file, its input), or
// one that imports or includes modules (-L, import, include), reads
// files limen does not see: `jq -n -L / 'import "root/.docker/config" as
// $c; $c'` printed a credentials file (the thirteenth pass).
func seeJq(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		x := cmd[i]
		t := x.text
		switch {
		case t == "-f" || t == "--from-file" || strings.HasPrefix(t, "--from-file=") || t == "-L" || t == "--library-path" || strings.HasPrefix(t, "-L") && len(t) > 2:
			return 0, w.opaqueCall(c, "jq reads its program or modules from files limen does not read")
		case strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsRune(t, 'f') && len(t) < 6:
			return 0, w.opaqueCall(c, "jq reads its program from a file limen does not read")
		case !strings.HasPrefix(t, "-") && (strings.Contains(t, "import ") || strings.Contains(t, "include ") || strings.Contains(t, "input_filename") || strings.Contains(t, "$__loc__")):
			return 0, w.opaqueCall(c, "the jq program imports modules from files limen does not read")
		}
	}
	return 0, false
}

// seeDebugger: a debugger fed on its input (a redirection, a here-string,
// a pipe) runs what it is told, expressions and shell escapes included:
// the part is opaque (the eighteenth pass forged an approval through
// pytest --trace <<< '…').
func seeDebugger(w walker, c *execCall) (int, bool) {
	if stdinFed(c) {
		return 0, w.opaqueCall(c, "its debugger runs what its input says, code limen does not read")
	}
	return 0, false
}

// stdinFed reports whether a call's standard input is something other
// than the runtime's: a file, a here-string or document, a pipe.
func stdinFed(c *execCall) bool { return c.ctx.stdin || c.ctx.piped || readsStdin(c.rs) }

// seeAwsConfigure: aws configure set of a credential_process (or a
// plugin path) stores a command that every later aws call with that
// profile runs.
func seeAwsConfigure(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	ops := operandsOf(cmd[1:], nil)
	if len(ops) < 3 || ops[0].text != "configure" || ops[1].text != "set" && ops[1].text != "import" {
		return 0, false
	}
	if ops[1].text == "import" || !ops[2].lit || strings.Contains(ops[2].text, "credential_process") || strings.Contains(ops[2].text, "plugin") {
		return 0, w.opaqueCall(c, "it stores a command that later aws calls run")
	}
	return 0, false
}

// seeAliasSet: gh alias set NAME '!cmd' (or --shell) and gh alias import
// store a shell command that a later `gh NAME` runs, which limen then
// sees only as gh: the definition is opaque, as git's alias.* is.
func seeAliasSet(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	ops := operandsOf(cmd[1:], nil)
	if len(ops) >= 2 && (ops[0].text == "extension" || ops[0].text == "ext" || ops[0].text == "extensions") && ops[1].text == "install" {
		return 0, w.opaqueCall(c, "it installs an extension, a program that `gh NAME` then runs")
	}
	if len(ops) < 2 || ops[0].text != "alias" || ops[1].text != "set" && ops[1].text != "import" {
		return 0, false
	}
	if ops[1].text == "import" {
		return 0, w.opaqueCall(c, "it imports aliases, which may run shell commands, from a file limen does not read")
	}
	for _, x := range cmd[1:] {
		if !x.lit || x.text == "-s" || x.text == "--shell" || strings.HasPrefix(x.text, "!") {
			return 0, w.opaqueCall(c, "it defines an alias that runs a shell command when it is used")
		}
	}
	return 0, false
}

// pythonInteractive reports whether a python option cluster (-i, -qi,
// -ui) holds -i: after the script, python runs its input as code. The
// letters after one that takes a value (-c, -m, -W, -X) are that value.
func pythonInteractive(t string) bool {
	if len(t) < 2 || t[0] != '-' || t[1] == '-' {
		return false
	}
	for _, r := range t[1:] {
		switch r {
		case 'i':
			return true
		case 'c', 'm', 'W', 'X':
			return false
		}
	}
	return false
}

// interpreterCode are the options that give each interpreter its program
// inline.
var interpreterCode = map[string][]string{
	"python": {"-c"}, "python2": {"-c"}, "python3": {"-c"}, "pypy": {"-c"}, "pypy3": {"-c"},
	"node": nodeCode, "nodejs": nodeCode,
	"ruby": {"-e", "-r"}, "perl": {"-e", "-E", "-M", "-m"}, "php": {"-r", "-B", "-R", "-E"},
	"pwsh": {"-c", "-Command", "-command", "-EncodedCommand", "-e", "-ec"}, "powershell": {"-c", "-Command", "-command", "-EncodedCommand", "-e", "-ec"},
	"osascript": {"-e"}, "lua": {"-e", "-l"}, "Rscript": {"-e"}, "deno": {}, "bun": {"-e", "--eval", "-p", "--print", "-r", "--preload"},
	"tsx": {"-e", "--eval", "-p", "--print"}, "ts-node": {"-e", "--eval", "-p", "--print", "-r", "--require"},
	"julia": {"-e", "--eval", "-E", "--print", "-L", "--load"}, "tclsh": {}, "wish": {},
}

func init() {
	execTable = execRows()
	for name := range shells {
		execTable[name] = execRule{see: seeShell}
	}
	for name, code := range interpreterCode {
		execTable[name] = execRule{code: code, see: seeInterpreter}
	}
	execTable["deno"] = execRule{see: seeDeno}
	for _, name := range []string{"jq", "gojq", "jaq"} {
		execTable[name] = execRule{see: seeJq}
	}
	execTable["bun"] = execRule{code: interpreterCode["bun"], see: seeBun}
	for _, name := range []string{"gh", "glab"} {
		execTable[name] = execRule{see: seeAliasSet}
	}
	longOptions = buildLongOptions()
}

// longOptions are, for each program, the long options the tables name
// (execTable's columns, the see functions' lists, outputRows,
// projectOptions). GNU getopt_long, git, argparse and npm take any
// unambiguous prefix of a long option, so `tar --to-com=CMD`, `sort
// --out=F` and `git rebase --exe CMD` are those options: expandLong
// spells them out before the tables are read.
var longOptions map[string][]string

func buildLongOptions() map[string][]string {
	m := map[string][]string{}
	add := func(prog string, names ...string) {
		for _, n := range names {
			if strings.HasPrefix(n, "--") && !contains(m[prog], n) {
				m[prog] = append(m[prog], n)
			}
		}
	}
	for prog, r := range execTable {
		add(prog, r.script...)
		add(prog, r.code...)
		add(prog, r.argvAfter...)
		for n := range r.opts.valueLong {
			add(prog, n)
		}
	}
	for _, tar := range []string{"tar", "gtar", "bsdtar"} {
		add(tar, tarScripts...)
		add(tar, "--checkpoint-action", "--extract", "--create", "--append", "--update", "--file")
	}
	for _, opts := range gitScripts {
		add("git", opts...)
	}
	add("git", "--git-dir", "--work-tree", "--exec-path", "--config-env")
	for _, sed := range []string{"sed", "gsed"} {
		add(sed, "--expression", "--file", "--in-place")
	}
	for _, pm := range []string{"npm", "npx", "pnpm", "yarn"} {
		add(pm, scriptShells...)
		add(pm, npmConfigCode...)
	}
	for key, r := range outputRows {
		prog, _, _ := strings.Cut(key, " ")
		for _, o := range r.opts {
			add(prog, o.name)
		}
	}
	for prog, opts := range projectOptions {
		add(prog, opts...)
	}
	for _, make := range []string{"make", "gmake"} {
		add(make, "--eval", "--file", "--makefile", "--directory")
	}
	add("cargo", "--config")
	add("rg", "--pre") // seeRg's

	for prog := range m {
		// Shortest first, so that --outp is --output, not git
		// format-patch's --output-directory: the same on every run.
		sort.Slice(m[prog], func(i, j int) bool {
			a, b := m[prog][i], m[prog][j]
			return len(a) < len(b) || len(a) == len(b) && a < b
		})
	}
	return m
}

// exactLong are programs that take long options only as spelled out
// (node refuses --test-rep as a bad option), where a prefix is another
// option: node --test-reporter is not --test-reporter-destination, nor
// --cpu-prof --cpu-prof-dir.
var exactLong = set("node", "nodejs")

// fullOptions are options, spelled out, that are also the start of an
// option the tables name: npm --global is not --globalconfig.
var fullOptions = map[string][]string{
	"npm": {"--global"}, "npx": {"--global"}, "pnpm": {"--global"}, "yarn": {"--global"},
}

// expandLong returns ws with each abbreviated long option of prog
// (--to-com=x) spelled out (--to-command=x); ws itself when none is.
func expandLong(prog string, ws []word) []word {
	longs := longOptions[prog]
	if len(longs) == 0 || exactLong[prog] {
		return ws
	}
	var out []word
	for i, x := range ws {
		if !x.lit || !strings.HasPrefix(x.text, "--") || len(x.text) < 3 {
			continue
		}
		name, value, hasValue := strings.Cut(x.text, "=")
		if contains(longs, name) || contains(fullOptions[prog], name) {
			continue
		}
		for _, l := range longs {
			if strings.HasPrefix(l, name) {
				if out == nil {
					out = append([]word(nil), ws...)
				}
				out[i].text = l
				if hasValue {
					out[i].text += "=" + value
				}
				break
			}
		}
	}
	if out == nil {
		return ws
	}
	return out
}

// execRuleFor returns the row of prog, with versioned interpreter names
// (python3.12) found under their family.
func execRuleFor(prog string) (execRule, bool) {
	if r, ok := execTable[prog]; ok {
		return r, true
	}
	if base := interpreterBase(prog); base != prog {
		r, ok := execTable[base]
		return r, ok
	}
	return execRule{}, false
}

// execCall is one command being seen through: words[start] is the
// program, earlier words are assignments and the wrappers crossed.
type execCall struct {
	rule  execRule
	words []word
	start int
	ctx   shellCtx
	rs    []*syntax.Redirect
	priv  string
}

func (c *execCall) cmd() []word { return c.words[c.start:] }

// seeThrough applies prog's row: next > start is the index of the command
// it runs (a wrapper); done means the parts were added.
func (w walker) seeThrough(c *execCall) (next int, done bool) {
	if long := expandLong(programName(c.words[c.start]), c.words[c.start:]); &long[0] != &c.words[c.start] {
		// Seen as spelled out; the index of what it runs is the same.
		c.words = append(append([]word(nil), c.words[:c.start]...), long...)
	}
	if debuggers[programName(c.words[c.start])] && stdinFed(c) {
		return seeDebugger(w, c)
	}
	if c.rule.see != nil {
		return c.rule.see(w, c)
	}
	return w.seeColumns(c)
}

// debuggers are the rows whose program reads debugger commands, and so
// code, from its input (seeDebugger).
var debuggers = set("gdb", "lldb", "dlv", "jdb", "rdbg", "pdb", "ipdb", "pudb")

// seeColumns applies a row's columns.
func (w walker) seeColumns(c *execCall) (int, bool) {
	r := c.rule
	cmd := c.cmd()
	operands := 0
	i := 1
	for i < len(cmd) {
		x := cmd[i]
		if x.lit && x.text == "--" {
			if contains(r.argvAfter, "--") && i+1 < len(cmd) {
				return c.start + i + 1, false
			}
			i++
			break
		}
		// Options may come before, between and after the skipped operands
		// (flock FILE -c CMD); the first other operand starts the command.
		if x.lit && len(x.text) > 1 && x.text[0] == '-' {
			if contains(r.argvAfter, x.text) {
				if i+1 < len(cmd) {
					return c.start + i + 1, false
				}
				return 0, false
			}
			if val, at, ok := optionValue(cmd, i, r.script); ok {
				return 0, w.runScript(c, at, val, true)
			}
			if _, _, ok := optionValue(cmd, i, r.code); ok {
				return 0, w.opaqueCall(c, "it runs code limen does not read")
			}
			i = skipOne(cmd, i, r.opts)
			continue
		}
		if r.opts.assigns && operands == 0 && x.lit && isAssignment(x.text) {
			if w.assignmentRuns(c, x) {
				return 0, true
			}
			i++
			continue
		}
		if operands < r.skip || r.how == operandsData {
			operands++
			i++
			continue
		}
		break
	}
	if i >= len(cmd) || operands < r.skip {
		return 0, false
	}
	switch r.how {
	case operandsArgv:
		return c.start + i, false
	case operandsScript:
		return 0, w.runWords(c, i)
	}
	return 0, false
}

// skipOne returns the index of the word after option cmd[i] and its value.
func skipOne(cmd []word, i int, spec optSpec) int {
	t := cmd[i].text
	if strings.HasPrefix(t, "--") {
		if !strings.Contains(t, "=") && spec.valueLong[t] {
			return i + 2
		}
		return i + 1
	}
	for k := 1; k < len(t); k++ {
		if strings.IndexByte(spec.valueShort, t[k]) >= 0 {
			if k == len(t)-1 {
				return i + 2
			}
			return i + 1
		}
	}
	return i + 1
}

// optionValue reports whether cmd[i] is one of opts and returns its
// value and the index of the word holding it: "-c CMD", "-cCMD",
// "-lc CMD" (a cluster ending in the option), "--command=CMD".
func optionValue(cmd []word, i int, opts []string) (string, int, bool) {
	if len(opts) == 0 {
		return "", 0, false
	}
	t := cmd[i].text
	for _, o := range opts {
		switch {
		case t == o:
			if i+1 < len(cmd) {
				return cmd[i+1].text, i + 1, true
			}
			return "", i, true
		case strings.HasPrefix(o, "--") && strings.HasPrefix(t, o+"="):
			return t[len(o)+1:], i, true
		case len(o) == 2 && !strings.HasPrefix(t, "--") && len(t) > 2:
			k := strings.IndexByte(t[1:], o[1])
			if k < 0 {
				continue
			}
			k++
			if k == len(t)-1 {
				if i+1 < len(cmd) {
					return cmd[i+1].text, i + 1, true
				}
				return "", i, true
			}
			if k == 1 {
				return t[2:], i, true
			}
			return t[k+1:], i, true
		}
	}
	return "", 0, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// runScript parses the shell script in word at (an index into the
// command) and adds its parts. A script that is not literal is opaque.
// Fresh says it runs in a new shell, where nothing the script set is known.
func (w walker) runScript(c *execCall, at int, script string, fresh bool) bool {
	cmd := c.cmd()
	if at >= len(cmd) || !cmd[at].lit || cmd[at].glob && !fresh {
		return w.opaqueCall(c, "the command it runs is built when it runs")
	}
	if strings.TrimSpace(script) == "" {
		return false
	}
	return w.parseInner(c, at, script, fresh)
}

// runWords parses the words from at on, joined by spaces, as a shell
// script (eval, ssh host cmd, watch cmd).
func (w walker) runWords(c *execCall, at int) bool {
	cmd := c.cmd()
	parts := make([]string, 0, len(cmd)-at)
	for _, x := range cmd[at:] {
		if !x.lit {
			return w.opaqueCall(c, "the command it runs is built when it runs")
		}
		parts = append(parts, x.text)
	}
	script := strings.Join(parts, " ")
	if strings.TrimSpace(script) == "" {
		return false
	}
	return w.parseInner(c, at, script, true)
}

// parseInner walks script as commands run by the command, its exact keys
// prefixed by the words before at.
func (w walker) parseInner(c *execCall, at int, script string, fresh bool) bool {
	inner := c.ctx
	inner.priv = c.priv
	inner.piped = false
	inner.prefix = c.ctx.prefix + joinWords(c.words[:c.start+at]) + " "
	if w.depth >= w.out.lim.depth || len(script) > w.out.lim.length {
		// Past the limits the part is one of Capped's, so the server
		// checks the rules on the whole command with CheckedParts.
		what, why := capTooLong, "the command it runs is too long to read"
		if w.depth >= w.out.lim.depth {
			what, why = capTooDeep, "it nests commands too deeply to read"
		}
		w.out.capped = true
		p := opaquePart("Bash", what, script)
		p.Why = why
		w.out.add(p)
		return true
	}
	sub := walker{out: w.out, depth: w.depth + 1, cwd: w.cwd, home: w.home, top: w.top, vars: w.vars, dir: w.dir}
	if fresh {
		// A shell of its own: it starts where this one is, and its cd
		// stays there.
		sub.vars = &shellVars{}
		sub = sub.copyDir()
	}
	before := len(w.out.parts)
	if !sub.parse(script, inner) {
		w.out.parts = w.out.parts[:before]
		return w.opaqueCall(c, "the command it runs does not parse")
	}
	return len(w.out.parts) > before || w.out.overflow
}

// opaqueCall adds the command as an opaque part.
func (w walker) opaqueCall(c *execCall, why string) bool {
	subject := joinWords(c.cmd())
	if subject == "" {
		subject = joinWords(c.words) // an assignment alone: PAGER="$x"
	}
	w.opaque(subject, why, c.ctx.marks)
	return true
}

// assignmentRuns handles an assignment that makes the command run code:
// GIT_SSH_COMMAND='…' git fetch runs its value, LD_PRELOAD=x.so cmd runs x.
func (w walker) assignmentRuns(c *execCall, a word) bool {
	name, value, _ := strings.Cut(a.text, "=")
	switch envRuns(name) {
	case envFlags:
		return w.flagsRun(c, a, name, value)
	case envCCFlags:
		if !a.lit || ccRuns(strings.Fields(value)) {
			return w.opaqueCall(c, "its compiler flags load or run programs limen does not read")
		}
	case envScript:
		if value == "" {
			return false
		}
		if !a.lit {
			return w.opaqueCall(c, "the command it runs is built when it runs")
		}
		w.parseInner(c, 0, value, true)
		return false // the command itself is still keyed
	case envCode:
		if value == "" {
			return false
		}
		return w.opaqueCall(c, "it loads code limen does not read")
	}
	if pathEnv(name, value) && c.start >= len(c.words) {
		// export GIT_INDEX_FILE=~/.claude/settings.json; git add -A: the
		// commands after it write or read the file, and limen does not
		// follow the variable to them. A protected file makes it a
		// control; any other makes it opaque.
		n := len(w.out.parts)
		w.opaqueCall(c, "it points the commands after it at a file through "+name)
		for _, d := range w.dirs() {
			s := &controlScope{self: w.out.self, cwd: d, home: w.home}
			if why := s.pathHits(name, []word{{text: value, lit: a.lit}}, false); why != "" && len(w.out.parts) > n {
				w.out.parts[n].Control = why
				break
			}
		}
		return true
	}
	if pathEnv(name, value) && (w.secretAt(value) || w.holdsSecrets(value) || environFile(value)) {
		// GIT_INDEX_FILE=~/.ssh/id_rsa git diff reads the key as its
		// index: a secret read that only the exact approval allows.
		return w.opaqueCall(c, "its "+name+" points it at a secret ("+value+")")
	}
	return false
}

type envHow int8

const (
	envNone envHow = iota
	envScript
	envCode
	// envFlags: the value is options for the program (GOFLAGS,
	// MAKEFLAGS), some of which run commands.
	envFlags
	// envCCFlags: the value is a C compiler's flags, some of which run
	// programs (-wrapper, -fplugin=, -B).
	envCCFlags
	// envPath: the value is a file or directory the program writes or
	// reads as its own (GIT_INDEX_FILE, GIT_TRACE_CURL, SSLKEYLOGFILE):
	// a protected path is a control, a secret one is read, any other is
	// marked config-env (pathEnv).
	envPath
)

// execEnv are environment variables whose value programs run: a shell
// command (envScript) or code limen does not read (envCode).
var execEnv = map[string]envHow{
	"GIT_SSH_COMMAND": envScript, "GIT_SSH": envScript, "GIT_PAGER": envScript, "PAGER": envScript, "MANPAGER": envScript,
	"GIT_EDITOR": envScript, "EDITOR": envScript, "VISUAL": envScript, "GIT_SEQUENCE_EDITOR": envScript,
	"GIT_EXTERNAL_DIFF": envScript, "GIT_ASKPASS": envScript, "SSH_ASKPASS": envScript, "GIT_PROXY_COMMAND": envScript,
	"RSYNC_RSH": envScript, "LESSOPEN": envScript, "LESSCLOSE": envScript, "PROMPT_COMMAND": envScript,
	// With xtrace on (SHELLOPTS=xtrace), a shell expands PS4 before every
	// command it traces: PS4='$(curl … | sh)' runs it.
	"PS4": envCode, "SHELLOPTS": envCode, "BASHOPTS": envCode, "PS0": envCode, "SUDO_ASKPASS": envScript,
	"LD_PRELOAD": envCode, "LD_AUDIT": envCode, "LD_LIBRARY_PATH": envCode, "DYLD_INSERT_LIBRARIES": envCode,
	"BASH_ENV": envCode, "ENV": envCode, "ZDOTDIR": envCode, "PERL5OPT": envCode, "NODE_OPTIONS": envCode,
	"PYTHONSTARTUP": envCode, "PYTHONINSPECT": envCode, "RUBYOPT": envCode, "GIT_CONFIG_GLOBAL": envCode,
	"GIT_CONFIG_PARAMETERS": envCode, "GIT_CONFIG_COUNT": envCode, "GIT_EXEC_PATH": envCode, "GIT_TEMPLATE_DIR": envCode,
	// Build tools run the programs these name: make's implicit rules and
	// cgo run $CC, cargo runs its rustc wrapper, npm its script shell.
	"CC": envScript, "CXX": envScript, "LD": envScript, "AR": envScript, "AS": envScript, "CPP": envScript, "FC": envScript,
	"RM": envScript, "RUSTC_WRAPPER": envScript, "RUSTC_WORKSPACE_WRAPPER": envScript, "RUSTC": envScript, "RUSTDOC": envScript,
	"CARGO_BUILD_RUSTC_WRAPPER": envScript, "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER": envScript, "CARGO_BUILD_RUSTC": envScript,
	"CARGO_BUILD_RUSTDOC": envScript, "CARGO_REGISTRY_CREDENTIAL_PROVIDER": envScript,
	"npm_config_script_shell": envScript, "NPM_CONFIG_SCRIPT_SHELL": envScript, "YARN_SCRIPT_SHELL": envScript,
	"RUSTFLAGS": envCode, "CARGO_ENCODED_RUSTFLAGS": envCode, "CARGO_BUILD_RUSTFLAGS": envCode, "CARGO_HOME": envCode,
	"GOROOT": envCode, "GOENV": envCode, "CGO_LDFLAGS": envCode, "MAKEFILES": envCode,
	"npm_config_userconfig": envCode, "NPM_CONFIG_USERCONFIG": envCode, "npm_config_globalconfig": envCode, "NPM_CONFIG_GLOBALCONFIG": envCode,
	"npm_config_node_options": envCode, "NPM_CONFIG_NODE_OPTIONS": envCode,
	// GNU make reads GNUMAKEFLAGS as it reads MAKEFLAGS (-E/--eval
	// included), and MAKEOVERRIDES holds the variable definitions MAKEFLAGS
	// passes on (SHELL=X).
	"GOFLAGS": envFlags, "MAKEFLAGS": envFlags, "MFLAGS": envFlags, "GNUMAKEFLAGS": envFlags, "MAKEOVERRIDES": envFlags,
	// PATH decides which program every command word names.
	"PATH": envCode,
	// pytest loads these plugins and options; git obeys that repository.
	"PYTEST_ADDOPTS": envCode, "PYTEST_PLUGINS": envCode, "GIT_DIR": envCode, "GIT_WORK_TREE": envCode, "GIT_COMMON_DIR": envCode,
	"CFLAGS": envCCFlags, "CXXFLAGS": envCCFlags, "CPPFLAGS": envCCFlags, "LDFLAGS": envCCFlags,
	"CGO_CFLAGS": envCCFlags, "CGO_CXXFLAGS": envCCFlags, "CGO_CPPFLAGS": envCCFlags, "CGO_FFLAGS": envCCFlags,
	"npm_config_shell": envScript, "NPM_CONFIG_SHELL": envScript, "BAT_PAGER": envScript,
	// rg reads its options from this file, and --pre=CMD runs CMD on
	// every file it searches.
	"RIPGREP_CONFIG_PATH": envCode,
	// Files and directories programs write or read as their own: git
	// writes its index, objects and traces there, curl and every TLS
	// client append their session keys to SSLKEYLOGFILE.
	"GIT_INDEX_FILE": envPath, "GIT_OBJECT_DIRECTORY": envPath, "GIT_ALTERNATE_OBJECT_DIRECTORIES": envPath,
	"GIT_TRACE": envPath, "GIT_TRACE_CURL": envPath, "GIT_TRACE_PACK_ACCESS": envPath, "GIT_TRACE_PACKET": envPath,
	"GIT_TRACE_PACKFILE": envPath, "GIT_TRACE_PERFORMANCE": envPath, "GIT_TRACE_SETUP": envPath, "GIT_TRACE_SHALLOW": envPath,
	"GIT_TRACE_REFS": envPath, "GIT_TRACE_FSMONITOR": envPath, "GIT_TRACE2": envPath, "GIT_TRACE2_EVENT": envPath,
	"GIT_TRACE2_PERF": envPath, "GIT_SHALLOW_FILE": envPath, "GIT_SSL_CAINFO": envPath, "GIT_SSL_CERT": envPath, "GIT_SSL_KEY": envPath,
	"SSLKEYLOGFILE": envPath, "HISTFILE": envPath, "LESSHISTFILE": envPath, "NODE_REPL_HISTORY": envPath, "SQLITE_HISTORY": envPath,
	"MYSQL_HISTFILE": envPath, "PSQL_HISTORY": envPath, "PYTHON_HISTORY": envPath, "COVERAGE_FILE": envPath, "LLVM_PROFILE_FILE": envPath,
	"GOCOVERDIR": envPath, "NODE_V8_COVERAGE": envPath, "TF_LOG_PATH": envPath, "NETRC": envPath, "PGPASSFILE": envPath,
	"AWS_SHARED_CREDENTIALS_FILE": envPath, "AWS_CONFIG_FILE": envPath, "GOOGLE_APPLICATION_CREDENTIALS": envPath,
	"SSL_CERT_FILE": envPath, "SSL_CERT_DIR": envPath, "CURL_CA_BUNDLE": envPath, "REQUESTS_CA_BUNDLE": envPath, "NODE_EXTRA_CA_CERTS": envPath,
}

// pathEnvSuffixes and pathEnvPrefixes are the shape of the variables
// execEnv cannot list whose value, when it is a path, is a file a program
// writes or reads as its own: FOO_FILE, FOO_LOG, FOORC, a program's own
// prefix (CURL_, PIP_, DOCKER_ …).
var (
	pathEnvSuffixes = []string{"_FILE", "_FILES", "_PATH", "_DIR", "_DIRS", "_LOG", "_LOGFILE", "LOGFILE", "HISTFILE", "_CONFIG", "CONFIG", "RC",
		"_HOME", "_FILENAME", "_CACHE", "_ROOT", "_PREFIX", "_SOCK", "_SOCKET", "_DB", "_DATABASE", "_OUTPUT", "_OUT", "_DEST", "_TARGET"}
	pathEnvPrefixes = []string{"GIT_", "CURL_", "WGET", "NPM_", "npm_", "PIP_", "UV_", "POETRY_", "CARGO_", "RUSTUP_", "GO", "PYTEST_",
		"PYTHON", "RIPGREP_", "RG_", "DOCKER_", "CONTAINER", "PODMAN_", "KUBE", "HELM_", "TF_", "ANSIBLE_", "BUNDLE_", "GEM", "NODE_",
		"DENO_", "BUN_", "YARN_", "PNPM_", "SSH_", "GNUPG", "GPG_", "LESS", "MAKE", "XDG_", "SSL", "AWS_", "GOOGLE_", "CLOUDSDK_",
		"AZURE_", "VAULT_", "PG", "MYSQL", "SQLITE", "REDIS", "JAVA_", "MAVEN_", "GRADLE_", "ESLINT", "PRETTIER", "RUFF_", "MYPY",
		"JEST_", "VITEST_", "CLAUDE_", "CODEX_", "GEMINI_", "LIMEN_", "OPENSSL_", "BAT_", "JQ_", "PERL", "RUBY", "LD_", "DYLD_"}
)

// pathEnv reports whether the assignment NAME=value points a program at
// a file or directory it writes or reads as its own: a name of execEnv's
// envPath rows with any value but a number or a boolean (GIT_TRACE=1
// traces to stderr), or a name of the pathEnvSuffixes/Prefixes shape
// whose value is a path.
func pathEnv(name, value string) bool {
	if value == "" {
		return false
	}
	if execEnv[name] == envPath {
		switch strings.ToLower(value) {
		case "true", "false", "yes", "no", "on", "off":
			return false
		}
		return !isNumber(value)
	}
	if !strings.ContainsRune(value, '/') && value[0] != '~' && value[0] != '.' {
		return false
	}
	for _, s := range pathEnvSuffixes {
		if strings.HasSuffix(name, s) && len(name) > len(s) {
			return true
		}
	}
	for _, p := range pathEnvPrefixes {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			return true
		}
	}
	return false
}

// execEnvPatterns are the variables execEnv cannot list, by prefix and
// suffix: CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER.
var execEnvPatterns = []struct {
	prefix, suffix string
	how            envHow
}{
	{"CARGO_TARGET_", "_RUNNER", envScript},
	{"CARGO_TARGET_", "_LINKER", envScript},
	{"CARGO_TARGET_", "_RUSTFLAGS", envCode},
	{"CARGO_REGISTRIES_", "_CREDENTIAL_PROVIDER", envScript},
}

// envRuns says what a program does with the value of environment
// variable name.
func envRuns(name string) envHow {
	if how, ok := execEnv[name]; ok {
		return how
	}
	for _, p := range execEnvPatterns {
		if strings.HasPrefix(name, p.prefix) && strings.HasSuffix(name, p.suffix) && len(name) > len(p.prefix)+len(p.suffix) {
			return p.how
		}
	}
	return envNone
}

// flagsRun handles GOFLAGS='-toolexec=X' and MAKEFLAGS='SHELL=X': the
// options in the value are checked as if they were given on the command
// line. It reports whether the part was made opaque.
func (w walker) flagsRun(c *execCall, a word, name, value string) bool {
	if strings.TrimSpace(value) == "" {
		return false
	}
	if !a.lit {
		return w.opaqueCall(c, "its "+name+" are built when it runs")
	}
	fields := strings.Fields(value)
	ws := make([]word, len(fields))
	for i, f := range fields {
		ws[i] = word{text: f, lit: true}
	}
	if name == "GOFLAGS" {
		for i := range ws {
			if v, _, ok := goCommandFlag(ws, i); ok {
				w.parseInner(c, 0, v, true)
			}
		}
		return false
	}
	// MAKEFLAGS: single letters (ks), options and variable overrides.
	for i, f := range ws {
		// -E CODE, -ECODE, -kE CODE: a short cluster holding E evaluates.
		if makeFileFromInput(ws, i) || strings.HasPrefix(f.text, "--eval") || strings.HasPrefix(f.text, "-") && !strings.HasPrefix(f.text, "--") && strings.Contains(f.text, "E") {
			return w.opaqueCall(c, "its "+name+" give make code limen does not read")
		}
		if isMakeAssignment(f.text) && w.makeVariable(c, 0, f) {
			return true
		}
	}
	return false
}

// seeSudo: sudo -s and sudo -i run their operands through a shell, as
// one script; otherwise the operands are a command.
func seeSudo(w walker, c *execCall) (int, bool) {
	next, done := w.seeColumns(c)
	if done || next <= c.start {
		return next, done
	}
	cmd := c.cmd()
	for _, x := range cmd[1 : next-c.start] {
		t := x.text
		if t == "--shell" || t == "--login" || len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsAny(t, "si") {
			cc := *c
			cc.priv = programName(cmd[0])
			return 0, w.runWords(&cc, next-c.start)
		}
	}
	return next, false
}

// seeCommand: `command -v x` looks a name up and runs nothing.
func seeCommand(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	if len(cmd) > 1 && (cmd[1].text == "-v" || cmd[1].text == "-V") {
		return 0, false
	}
	return w.seeColumns(c)
}

// seeEval: eval runs its words, joined, in the same shell.
func seeEval(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	if len(cmd) < 2 {
		return 0, false
	}
	i := 1
	if cmd[1].text == "--" {
		i = 2
	}
	for _, x := range cmd[i:] {
		if !x.lit {
			return 0, w.opaqueCall(c, "the command it runs is built when it runs")
		}
	}
	parts := make([]string, 0, len(cmd)-i)
	for _, x := range cmd[i:] {
		parts = append(parts, x.text)
	}
	script := strings.Join(parts, " ")
	if strings.TrimSpace(script) == "" {
		return 0, false
	}
	// eval runs in this shell, so what the script set is known in it;
	// what eval sets is not known after it.
	done := w.parseInner(c, i, script, false)
	w.vars.clear()
	return 0, done
}

// seeRunuser: runuser -u user -- cmd runs a command; without -u it is su.
func seeRunuser(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	for _, x := range cmd[1:] {
		if x.text == "-u" || x.text == "--user" || strings.HasPrefix(x.text, "--user=") {
			cc := *c
			cc.rule.how, cc.rule.script = operandsArgv, nil
			return w.seeColumns(&cc)
		}
	}
	return w.seeColumns(c)
}

// seeNpx: npx -c 'cmd' runs a shell command; npx pkg runs a package.
func seeNpx(w walker, c *execCall) (int, bool) { return w.seeScriptOption(c) }

// seeNpmExec: npm exec -c 'cmd'.
func seeNpmExec(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	if subcommand("npm", cmd[1:]) != "exec" && subcommand("npm", cmd[1:]) != "x" {
		return 0, false
	}
	return w.seeScriptOption(c)
}

// seeScriptOption finds one of the row's script options anywhere before
// "--" and runs its value.
func (w walker) seeScriptOption(c *execCall) (int, bool) {
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		if cmd[i].text == "--" {
			break
		}
		if val, at, ok := optionValue(cmd, i, c.rule.script); ok && cmd[i].lit && strings.HasPrefix(cmd[i].text, "-") {
			return 0, w.runScript(c, at, val, true)
		}
	}
	return 0, false
}

// seePnpmExec: pnpm exec cmd and yarn exec cmd run a command.
func seePnpmExec(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	prog := programName(cmd[0])
	i := 1
	for i < len(cmd) && cmd[i].lit && strings.HasPrefix(cmd[i].text, "-") {
		if subcommandPrograms[prog][cmd[i].text] {
			i++
		}
		i++
	}
	if i >= len(cmd) || cmd[i].text != "exec" && !(prog == "pnpm" && cmd[i].text == "dlx") {
		return 0, false
	}
	if cmd[i].text == "dlx" {
		return 0, false
	}
	i++
	for i < len(cmd) && cmd[i].lit && strings.HasPrefix(cmd[i].text, "-") {
		if cmd[i].text == "--" {
			i++
			break
		}
		if cmd[i].text == "-c" || cmd[i].text == "--shell-mode" {
			// pnpm exec -c 'cmd' runs a shell script
			if i+1 < len(cmd) {
				return 0, w.runScript(c, i+1, cmd[i+1].text, true)
			}
		}
		i++
	}
	if i >= len(cmd) {
		return 0, false
	}
	return c.start + i, false
}

// seeSSHOptions: scp and sftp take ssh's -o options (ProxyCommand runs
// a command) besides their own script options.
func seeSSHOptions(w walker, c *execCall) (int, bool) {
	if w.sshOptions(c) {
		return 0, true
	}
	return w.seeColumns(c)
}

// seeHyperfine: each operand of hyperfine is a shell command it runs.
func seeHyperfine(w walker, c *execCall) (int, bool) {
	if next, done := w.seeColumns(c); done || next > 0 {
		return next, done
	}
	cmd := c.cmd()
	done := false
	for i := 1; i < len(cmd); i++ {
		t := cmd[i].text
		if strings.HasPrefix(t, "-") {
			if len(t) == 2 && strings.ContainsRune("wrmMnNSPLu", rune(t[1])) || strings.HasPrefix(t, "--") && !strings.Contains(t, "=") && t != "--show-output" && t != "--ignore-failure" && t != "-i" {
				i++
			}
			continue
		}
		if w.runScript(c, i, t, true) {
			done = true
		}
	}
	return 0, done
}

// seeAnsible: ansible HOSTS -m shell|command|raw|script -a ARGS runs ARGS.
func seeAnsible(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	module, args := "command", -1
	for i := 1; i < len(cmd); i++ {
		switch t := cmd[i].text; {
		case (t == "-m" || t == "--module-name") && i+1 < len(cmd):
			module = cmd[i+1].text
			i++
		case (t == "-a" || t == "--args") && i+1 < len(cmd):
			args = i + 1
			i++
		}
	}
	if args < 0 {
		return 0, false
	}
	switch strings.TrimPrefix(strings.TrimPrefix(module, "ansible.builtin."), "ansible.legacy.") {
	case "shell", "command", "raw":
		return 0, w.runScript(c, args, cmd[args].text, true)
	case "script", "expect", "win_shell", "win_command", "psexec":
		return 0, w.opaqueCall(c, "it runs commands limen cannot read on other machines")
	}
	return 0, false
}

// seeSSH: ssh host cmd… runs cmd on host through its shell; -o
// ProxyCommand and LocalCommand run a local one.
func seeSSH(w walker, c *execCall) (int, bool) {
	if w.sshOptions(c) {
		return 0, true
	}
	if next, done := w.seeColumns(c); done || next > 0 {
		return next, done
	}
	// ssh host with no command runs what its input holds on host.
	if in, _ := w.stdinOf(c); in != stdinNone && hasOperand(c.cmd(), c.rule.opts) {
		return 0, w.opaqueCall(c, "it runs its input as commands on another machine")
	}
	return 0, false
}

// sshOptions parses the commands of ssh's -o options (ProxyCommand,
// LocalCommand, KnownHostsCommand, RemoteCommand); true when it found
// one.
func (w walker) sshOptions(c *execCall) bool {
	cmd := c.cmd()
	found := false
	for i := 1; i < len(cmd); i++ {
		t := cmd[i].text
		opt := ""
		switch {
		case t == "-o" && i+1 < len(cmd):
			opt = cmd[i+1].text
			if !cmd[i+1].lit {
				return w.opaqueCall(c, "an ssh option is built when it runs")
			}
		case strings.HasPrefix(t, "-o") && len(t) > 2:
			opt = t[2:]
		default:
			continue
		}
		key, val, ok := strings.Cut(opt, "=")
		if !ok {
			key, val, _ = strings.Cut(opt, " ")
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "proxycommand", "localcommand", "knownhostscommand", "remotecommand":
			if w.parseInner(c, i, strings.TrimSpace(val), true) {
				found = true
			}
		}
	}
	return found
}

// hasOperand reports whether cmd has a word that is not an option.
func hasOperand(cmd []word, spec optSpec) bool {
	for i := 1; i < len(cmd); {
		if !strings.HasPrefix(cmd[i].text, "-") {
			return true
		}
		i = skipOne(cmd, i, spec)
	}
	return false
}

// seeTrap: trap 'cmd' SIGNAL… runs cmd later, when nothing the script set
// by then is known.
func seeTrap(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	i := 1
	if i < len(cmd) && (cmd[i].text == "-p" || cmd[i].text == "-l" || cmd[i].text == "-P") {
		return 0, false
	}
	if i < len(cmd) && cmd[i].text == "--" {
		i++
	}
	if len(cmd)-i < 2 {
		return 0, false // trap SIG resets; trap alone lists
	}
	if cmd[i].lit && (cmd[i].text == "-" || cmd[i].text == "") {
		return 0, false
	}
	return 0, w.runScript(c, i, cmd[i].text, true)
}

// seeAlias: alias name='cmd' makes name run cmd.
func seeAlias(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	done := false
	for i := 1; i < len(cmd); i++ {
		x := cmd[i]
		if !x.lit {
			return 0, w.opaqueCall(c, "the alias is built when it runs")
		}
		_, val, ok := strings.Cut(x.text, "=")
		if !ok || strings.TrimSpace(val) == "" {
			continue
		}
		if w.parseInner(c, i, val, true) {
			done = true
		}
	}
	return 0, done
}

// seeSource: source of a literal file is keyed as running that file;
// source of anything else (a process substitution, stdin, a variable) runs
// code limen cannot read.
func seeSource(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	if len(cmd) < 2 {
		return 0, false
	}
	f := cmd[1]
	if !f.lit || f.glob || readsStdinPath(f.text) {
		return 0, w.opaqueCall(c, "it runs code limen cannot read")
	}
	return 0, false
}

// readsStdinPath reports whether a file name is the process's input.
func readsStdinPath(p string) bool {
	switch p {
	case "-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/") && strings.Contains(p, "/fd/")
}

// seeShell: bash -c 'script' is its script's commands; bash <(…), bash
// "$x" and a shell reading a pipe run code limen cannot read.
func seeShell(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	if at := shellScriptArg(cmd); at >= 0 {
		return 0, w.runScript(c, at, cmd[at].text, true)
	}
	for i := 1; i < len(cmd); i++ {
		x := cmd[i]
		if !x.lit {
			return 0, w.opaqueCall(c, "the script it runs is built when it runs")
		}
		if x.text == "-c" || len(x.text) > 1 && x.text[0] == '-' && !strings.HasPrefix(x.text, "--") && strings.IndexByte(x.text, 'c') > 0 {
			return 0, w.opaqueCall(c, "the script it runs is built when it runs")
		}
		if x.text == "-o" || x.text == "-O" || x.text == "+o" || x.text == "+O" {
			i++
			continue
		}
		if x.text == "-s" || x.text == "-" {
			break
		}
		if x.text == "--" {
			if i+1 < len(cmd) {
				return w.scriptOperand(c, cmd[i+1], true)
			}
			break
		}
		if strings.HasPrefix(x.text, "-") || strings.HasPrefix(x.text, "+") {
			continue
		}
		return w.scriptOperand(c, x, true)
	}
	return w.stdinScript(c, true)
}

// scriptOperand decides on the script file a shell or interpreter is
// given: a path is keyed as it is, but a script built at run time (a
// substitution, a glob), a descriptor (/dev/fd/3, <(…)) or its input is
// code limen cannot read.
func (w walker) scriptOperand(c *execCall, x word, shell bool) (int, bool) {
	switch {
	case !x.lit || x.glob:
		return 0, w.opaqueCall(c, "the script it runs is only known when it runs")
	case x.text == "-" || x.text == "/dev/stdin" || x.text == "/dev/fd/0" || x.text == "/proc/self/fd/0":
		return w.stdinScript(c, shell)
	case readsStdinPath(x.text):
		return 0, w.opaqueCall(c, "it runs code read from a file descriptor")
	}
	return 0, false // a script file, keyed by its path
}

// stdinScript handles a program that runs what its standard input holds:
// a literal here-document or here-string is parsed when shell is set;
// anything else it reads (a pipe, a file, a process substitution) is code
// limen cannot read.
func (w walker) stdinScript(c *execCall, shell bool) (int, bool) {
	in, text := w.stdinOf(c)
	switch in {
	case stdinNone:
		return 0, false
	case stdinLiteral:
		if shell {
			if strings.TrimSpace(text) == "" {
				return 0, false
			}
			return 0, w.parseInner(c, len(c.cmd()), text, true)
		}
	}
	return 0, w.opaqueCall(c, "it runs what its input holds, which limen cannot read")
}

type stdinKind int8

const (
	stdinNone    stdinKind = iota // the terminal: nothing the agent wrote
	stdinLiteral                  // a here-document or here-string limen can read
	stdinOther                    // a pipe, a file, a substitution
)

// stdinOf says what a command's standard input is.
func (w walker) stdinOf(c *execCall) (stdinKind, string) {
	kind, text := stdinNone, ""
	if c.ctx.piped || c.ctx.stdin {
		kind = stdinOther
	}
	for _, r := range c.rs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
			kind, text = stdinOther, ""
		case syntax.WordHdoc:
			if x := w.word(r.Word); x.lit {
				kind, text = stdinLiteral, x.text+"\n"
			} else {
				kind, text = stdinOther, ""
			}
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc == nil {
				kind, text = stdinLiteral, ""
				continue
			}
			if x := w.word(r.Hdoc); x.lit {
				kind, text = stdinLiteral, x.text
			} else {
				kind, text = stdinOther, ""
			}
		}
	}
	return kind, text
}

// seeInterpreter: inline code (python -c, perl -e), a script built at run
// time (python "$f", node <(…)) and code read from a pipe are opaque; a
// script file is keyed by its path.
func seeInterpreter(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	node := programName(cmd[0]) == "node" || programName(cmd[0]) == "nodejs"
	python := interpreterBase(programName(cmd[0])) == "python"
	if stdinFed(c) && len(cmd) > 1 {
		// node inspect, perl -d: the debugger runs what its input says.
		if node && cmd[1].text == "inspect" || programName(cmd[0]) == "perl" && slices.ContainsFunc(cmd[1:], func(x word) bool { return strings.HasPrefix(x.text, "-d") }) {
			return 0, w.opaqueCall(c, "its debugger runs what its input says, code limen does not read")
		}
	}
	for i := 1; i < len(cmd); i++ {
		x := cmd[i]
		if !x.lit {
			return 0, w.opaqueCall(c, "the program it runs is built when it runs")
		}
		if name, _, _ := strings.Cut(x.text, "="); node && (name == "--env-file" || name == "--env-file-if-exists") {
			// NODE_OPTIONS=--require … in that file runs code (the
			// fourteenth pass).
			return 0, w.opaqueCall(c, "node takes its environment from a file limen does not read, NODE_OPTIONS included")
		}
		if node && inspectsOpen(x.text) {
			return 0, w.opaqueCall(c, "node opens its debugger to the network, and whoever reaches it runs code")
		}
		if v, _, ok := optionValue(cmd, i, []string{"--test-reporter"}); node && ok && !nodeReporters[v] {
			return 0, w.opaqueCall(c, "node loads its test reporter "+v+" as a module, whose code limen does not read")
		}
		if _, _, ok := optionValue(cmd, i, c.rule.code); ok && strings.HasPrefix(x.text, "-") {
			return 0, w.opaqueCall(c, "it runs code limen does not read")
		}
		if x.text == "-" {
			break
		}
		if x.text == "--" {
			if i+1 < len(cmd) {
				return w.scriptOperand(c, cmd[i+1], false)
			}
			break
		}
		if python && pythonInteractive(x.text) {
			// python -i script.py runs the script, then what its input
			// holds as code (the eleventh red-team pass).
			return w.stdinScript(c, false)
		}
		if python && (x.text == "-X" && i+1 < len(cmd) && strings.HasPrefix(cmd[i+1].text, "pycache_prefix") || strings.HasPrefix(x.text, "-Xpycache_prefix")) {
			return 0, w.opaqueCall(c, "python loads compiled modules from the -X pycache_prefix directory, whose code limen does not read")
		}
		if strings.HasPrefix(x.text, "-") {
			if x.text == "-m" || x.text == "-W" || x.text == "-X" || x.text == "-I" {
				if x.text == "-m" {
					if i+1 < len(cmd) && (cmd[i+1].text == "pytest" || cmd[i+1].text == "py.test") {
						// python -m pytest -p evil loads the plugin as pytest does
						cc := *c
						cc.start = c.start + i + 1
						return seePytest(w, &cc)
					}
					if i+1 < len(cmd) {
						switch pythonModules[cmd[i+1].text] {
						case moduleStdin:
							return w.stdinScript(c, false)
						case moduleCode:
							return 0, w.opaqueCall(c, "python -m "+cmd[i+1].text+" runs code given in its arguments, which limen does not read")
						case moduleScript:
							if debuggerModules[cmd[i+1].text] && (stdinFed(c) || pdbCommands(cmd[i+2:])) {
								return 0, w.opaqueCall(c, "python -m "+cmd[i+1].text+" runs the debugger commands it is given, code limen does not read")
							}
							valued := moduleValued[cmd[i+1].text]
							for k := i + 2; k < len(cmd); k++ {
								y := cmd[k]
								if !strings.HasPrefix(y.text, "-") || !y.lit {
									return w.scriptOperand(c, y, false)
								}
								if y.text == "-m" {
									return 0, false // python -m pdb -m module: a module
								}
								if contains(valued, y.text) {
									k++ // pdb -c CMD, cProfile -o FILE
								}
							}
							return w.stdinScript(c, false)
						}
					}
					return 0, false // a module, keyed as python -m name
				}
				i++
			}
			continue
		}
		return w.scriptOperand(c, x, false)
	}
	return w.stdinScript(c, false)
}

// rgPreprocessors are programs that only read the file rg --pre hands
// them and print text (decompressors, document converters): rg --pre
// zcat is keyed as zcat. Any other program is run on every file rg
// searches, with the file as its argument (--pre node runs each file as a
// script), which limen cannot see.
var rgPreprocessors = set("zcat", "gzcat", "gunzip", "bzcat", "xzcat", "zstdcat", "lz4cat", "lzcat", "unxz", "pdftotext", "rga-preproc",
	"catdoc", "docx2txt", "odt2txt", "pandoc", "cat")

// seeRg: rg --pre CMD runs CMD FILE for each file it searches
// (--pre-glob only narrows which); --hostname-bin runs a program.
func seeRg(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		if cmd[i].lit && cmd[i].text == "--" {
			break
		}
		v, at, ok := optionValue(cmd, i, []string{"--pre"})
		if !ok || !strings.HasPrefix(cmd[i].text, "--pre") {
			continue
		}
		if v == "" && at == i {
			continue // --pre= turns a preprocessor off
		}
		// The program is keyed as what runs (so that its controls and
		// marks are seen) and, unless it only converts text, the rg part
		// is opaque too.
		done := w.runScript(c, at, v, true)
		fields := strings.Fields(v)
		if !cmd[at].lit || len(fields) != 1 || !rgPreprocessors[programName(word{text: fields[0], lit: true})] {
			return 0, w.opaqueCall(c, "rg --pre runs "+v+" on every file it searches, with the file as its argument")
		}
		if done {
			return 0, true
		}
	}
	return w.seeColumns(c)
}

// seeSocat: socat's EXEC:cmd and SYSTEM:cmd addresses run cmd (SYSTEM
// through sh), with the address's options after a comma.
func seeSocat(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		kind, v, ok := strings.Cut(cmd[i].text, ":")
		if k := strings.ToUpper(kind); !ok || k != "EXEC" && k != "SYSTEM" {
			if !cmd[i].lit && strings.Contains(strings.ToUpper(cmd[i].text), "EXEC") || !cmd[i].lit && strings.Contains(strings.ToUpper(cmd[i].text), "SYSTEM") {
				return 0, w.opaqueCall(c, "the command its address runs is built when it runs")
			}
			continue
		}
		v, _, _ = strings.Cut(v, ",")
		if w.runScript(c, i, v, true) {
			return 0, true
		}
	}
	return 0, false
}

// seeDeno: deno eval 'code' runs code; deno run <url|file> is keyed.
func seeDeno(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	if len(cmd) > 1 && (cmd[1].text == "eval" || cmd[1].text == "repl") {
		return 0, w.opaqueCall(c, "it runs code limen does not read")
	}
	return 0, false
}

// seeBun: bun -e code; bun x / bunx run packages; bun run scripts.
func seeBun(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		if _, _, ok := optionValue(cmd, i, c.rule.code); ok && strings.HasPrefix(cmd[i].text, "-") {
			return 0, w.opaqueCall(c, "it runs code limen does not read")
		}
	}
	return 0, false
}

// seeStdinCode: ed and the like run the commands of their input.
func seeStdinCode(w walker, c *execCall) (int, bool) { return w.stdinScript(c, false) }

// seeXargs: xargs runs its command with arguments read from its input.
// A shell or interpreter given its code that way, and a command word made
// of the replace string, run code limen cannot read.
func seeXargs(w walker, c *execCall) (int, bool) {
	next, done := w.seeColumns(c)
	if done || next <= c.start {
		return next, done
	}
	cmd := c.cmd()
	repl := ""
	for i := 1; i < next-c.start; i++ {
		t := cmd[i].text
		switch {
		case t == "-I" && i+1 < len(cmd):
			repl = cmd[i+1].text
		case strings.HasPrefix(t, "-I") && len(t) > 2:
			repl = t[2:]
		case t == "-i" || t == "--replace":
			repl = "{}"
		case strings.HasPrefix(t, "-i") && len(t) > 2:
			repl = t[2:]
		case strings.HasPrefix(t, "--replace="):
			repl = t[len("--replace="):]
		}
	}
	target := c.words[next:]
	if repl != "" && anyContains(target, repl) {
		w.placeholders(c, next, repl)
		return 0, true
	}
	if repl == "" && runsCode(target) {
		// Its code, or a script to run, comes from the input.
		return 0, w.opaqueCall(c, "it runs code read from its input")
	}
	return next, false
}

// runsCode reports whether a command is one that would take its code from
// arguments xargs appends: a shell, an interpreter, eval, source.
func runsCode(cmd []word) bool {
	if len(cmd) == 0 || !cmd[0].lit {
		return true
	}
	prog := programName(cmd[0])
	base := interpreterBase(prog)
	if shells[base] && shellScriptArg(cmd) >= 0 && cmd[shellScriptArg(cmd)].lit {
		return false // sh -c 'rm "$@"' _: the input gives its arguments, not its code
	}
	return shells[base] || interpreters[base] || prog == "eval" || prog == "source" || prog == "." || prog == "xargs"
}

func anyContains(ws []word, s string) bool {
	for _, x := range ws {
		if strings.Contains(x.text, s) {
			return true
		}
	}
	return false
}

// placeholders keys the command at next with every word holding the
// replace string made non-literal: what replaces it is read at run time.
func (w walker) placeholders(c *execCall, next int, repl string) {
	words := append([]word(nil), c.words...)
	for i := next; i < len(words); i++ {
		if strings.Contains(words[i].text, repl) {
			words[i].lit = false
		}
	}
	w.command(words, next, c.ctx.withPriv(c.priv), c.rs)
}

func (ctx shellCtx) withPriv(p string) shellCtx {
	if p != "" {
		ctx.priv = p
	}
	return ctx
}

// seeFind: find -exec cmd {} ; runs cmd on each file (a part of its own;
// find itself is keyed too, after).
func seeFind(w walker, c *execCall) (int, bool) {
	args := c.cmd()[1:]
	for i := 0; i < len(args); i++ {
		switch args[i].text {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(args) && !(args[j].lit && (args[j].text == ";" || args[j].text == "+")) {
			j++
		}
		if j > i+1 {
			inner := c.ctx
			inner.piped = false
			inner.priv = c.priv
			inner.prefix = c.ctx.prefix + "find -exec "
			words := append([]word(nil), args[i+1:j]...)
			for k := range words {
				if strings.Contains(words[k].text, "{}") {
					words[k].lit = false // a file name, known when it runs
				}
			}
			w.command(words, 0, inner, nil)
		}
		i = j
	}
	return 0, false
}

// seeCrontab: crontab - and crontab FILE install a schedule limen cannot
// read; -l lists, -e edits, -r removes.
func seeCrontab(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		t := cmd[i].text
		if t == "-u" {
			i++
			continue
		}
		if t == "-l" || t == "-e" || t == "-r" || t == "-i" {
			return 0, false
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			return 0, w.opaqueCall(c, "it installs a schedule of commands limen cannot read")
		}
	}
	// crontab with no operand reads the schedule from its input.
	if in, _ := w.stdinOf(c); in != stdinNone {
		return 0, w.opaqueCall(c, "it installs a schedule of commands limen cannot read")
	}
	return 0, false
}

// seeAt: at TIME and batch run the commands of their input (or of -f
// FILE) later; -l, -r, -d and -c only list, remove or show jobs.
func seeAt(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		t := cmd[i].text
		switch {
		case t == "-l" || t == "-r" || t == "-d" || t == "-c":
			return 0, false
		case t == "-f" || strings.HasPrefix(t, "-f"):
			return 0, w.opaqueCall(c, "it runs a file of commands later")
		case t == "-q" || t == "-t":
			i++
		}
	}
	in, text := w.stdinOf(c)
	if in == stdinLiteral && strings.TrimSpace(text) != "" {
		return 0, w.parseInner(c, len(cmd), text, true)
	}
	return 0, w.opaqueCall(c, "it runs commands from its input later")
}

// seeTmux: tmux runs shell commands given to new-session, new-window,
// split-window, respawn-pane, run-shell, if-shell and display-popup, and
// types keys into a shell with send-keys.
func seeTmux(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	i := 1
	for i < len(cmd) && strings.HasPrefix(cmd[i].text, "-") {
		if cmd[i].text == "-L" || cmd[i].text == "-S" || cmd[i].text == "-f" || cmd[i].text == "-c" || cmd[i].text == "-T" {
			if cmd[i].text == "-c" {
				return 0, w.runScript(c, i+1, textAt(cmd, i+1), true)
			}
			i++
		}
		i++
	}
	if i >= len(cmd) {
		return 0, false
	}
	switch cmd[i].text {
	case "send-keys", "send", "send-prefix", "paste-buffer", "pasteb", "set-buffer", "setb", "load-buffer", "loadb", "source-file", "source", "bind-key", "bind", "set-hook", "pipe-pane", "pipep":
		return 0, w.opaqueCall(c, "it makes tmux type or run commands limen cannot read")
	case "new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp", "respawn-window", "respawnw", "run-shell", "run", "if-shell", "if", "display-popup", "popup":
	default:
		return 0, false
	}
	// The shell command is the first operand after the options (values:
	// -c -t -n -s -e -F -x -y -l -p -w -h …).
	j := i + 1
	for j < len(cmd) && strings.HasPrefix(cmd[j].text, "-") {
		t := cmd[j].text
		if len(t) == 2 && strings.ContainsRune("ctnsefFxylpwhdTTbBEe", rune(t[1])) && !strings.ContainsRune("dPbE", rune(t[1])) {
			j++
		}
		j++
	}
	if j >= len(cmd) {
		return 0, false
	}
	return 0, w.runWords(c, j)
}

func textAt(cmd []word, i int) string {
	if i < len(cmd) {
		return cmd[i].text
	}
	return ""
}

// seeParallel: GNU parallel runs its command template through a shell,
// with input substituted for {}: a template naming {} or reading the
// arguments from ::: is code limen cannot fully read.
func seeParallel(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	i := 1
	for i < len(cmd) && strings.HasPrefix(cmd[i].text, "-") {
		i++
	}
	end := i
	for end < len(cmd) && cmd[end].text != ":::" && cmd[end].text != "::::" {
		end++
	}
	if end == i {
		return 0, w.opaqueCall(c, "it runs commands read from its input")
	}
	words := append([]word(nil), c.words[:c.start+end]...)
	for k := c.start + i; k < len(words); k++ {
		if strings.Contains(words[k].text, "{") {
			words[k].lit = false
		}
	}
	if len(words)-(c.start+i) == 1 {
		cc := *c
		cc.words = words
		return 0, w.runScript(&cc, i, words[c.start+i].text, true)
	}
	w.command(words, c.start+i, c.ctx.withPriv(c.priv), c.rs)
	return 0, true
}

// subArgv makes the see function of a tool runner: after one of its
// subcommands subs (and the options, values in values), the rest is a
// command. skip is the row's operands after the subcommand (direnv exec
// DIR, aws-vault exec PROFILE).
func subArgv(subs, values map[string]bool) func(w walker, c *execCall) (int, bool) {
	return func(w walker, c *execCall) (int, bool) {
		cmd := c.cmd()
		i := 1
		for i < len(cmd) && strings.HasPrefix(cmd[i].text, "-") {
			i++ // the tool's global options; their values are rare here
		}
		if i >= len(cmd) || !subs[cmd[i].text] {
			return 0, false
		}
		i++
		// Tool versions before -- (mise x node@20 -- cmd); any other word
		// starts the command, and a later -- is its own.
		for k := i; k < len(cmd)-1; k++ {
			t := cmd[k].text
			if t == "--" {
				return c.start + k + 1, false
			}
			if !strings.HasPrefix(t, "-") && !strings.Contains(t, "@") {
				break
			}
		}
		skipped := 0
		for i < len(cmd) {
			t := cmd[i].text
			if t == "--" {
				i++
				break
			}
			if strings.HasPrefix(t, "-") && cmd[i].lit {
				if values[t] {
					i++
				}
				i++
				continue
			}
			if skipped < c.rule.skip {
				skipped++
				i++
				continue
			}
			break
		}
		if i >= len(cmd) {
			return 0, false
		}
		return c.start + i, false
	}
}

// seeDashDash: after dotenv's options (and an optional --) comes the
// command: dotenv -e .env -- cmd, dotenv cmd.
func seeDashDash(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		t := cmd[i].text
		switch {
		case t == "--":
			if i+1 < len(cmd) {
				return c.start + i + 1, false
			}
			return 0, false
		case t == "-e" || t == "-v" || t == "-p":
			i++
		case strings.HasPrefix(t, "-"):
		default:
			return c.start + i, false
		}
	}
	return 0, false
}

// seeNix: nix develop|shell … -c CMD runs a command; nix run runs a
// package.
func seeNix(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		if t := cmd[i].text; t == "-c" || t == "--command" {
			if i+1 < len(cmd) {
				return c.start + i + 1, false
			}
		}
	}
	return 0, false
}

// seeSQLClient: psql -c and mysql -e run SQL, and their meta-commands
// (\! in psql, system and \! in mysql) run shell commands: SQL with one
// is opaque; other SQL is keyed as it is.
func seeSQLClient(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		if val, at, ok := optionValue(cmd, i, c.rule.code); ok && strings.HasPrefix(cmd[i].text, "-") {
			if !cmd[at].lit || sqlShells(val) {
				return 0, w.opaqueCall(c, "its SQL runs shell commands")
			}
		}
	}
	return 0, false
}

// sqlShells reports whether SQL text holds a client meta-command that runs
// a shell command.
func sqlShells(sql string) bool {
	l := strings.ToLower(sql)
	return strings.Contains(l, `\!`) || strings.Contains(l, "system ") || strings.Contains(l, `\system`) ||
		strings.Contains(l, "copy") && strings.Contains(l, "program") || strings.Contains(l, `\o |`) || strings.Contains(l, `\g |`)
}

// seeSQLite: sqlite3 DB '.shell cmd' and '.system cmd' run cmd.
func seeSQLite(w walker, c *execCall) (int, bool) {
	for _, x := range c.cmd()[1:] {
		t := strings.TrimSpace(x.text)
		if !x.lit || strings.Contains(t, ".shell") || strings.Contains(t, ".system") || strings.Contains(t, ".output |") || strings.Contains(t, ".once |") || strings.Contains(t, "load_extension") || strings.HasPrefix(t, ".load") {
			return 0, w.opaqueCall(c, "its commands run shell commands")
		}
	}
	return 0, false
}

// goCommands are the options of go build, test, run, vet and install
// whose value is a command the go command runs: the test binary's
// launcher and the wrapper of every compiler and linker run.
var goCommands = []string{"-exec", "-toolexec", "--exec", "--toolexec", "-vettool", "--vettool"}

// goCommandFlag returns the command of a go -exec or -toolexec option at
// ws[i] ("-exec X", "-exec=X") and the index of the word holding it.
func goCommandFlag(ws []word, i int) (string, int, bool) {
	t := ws[i].text
	for _, o := range goCommands {
		switch {
		case t == o:
			if i+1 < len(ws) {
				return ws[i+1].text, i + 1, true
			}
			return "", i, true
		case strings.HasPrefix(t, o+"="):
			return t[len(o)+1:], i, true
		}
	}
	return "", 0, false
}

// goBuilds are the go subcommands that build and run what they build.
var goBuilds = set("build", "test", "run", "vet", "install", "generate", "list", "get", "tool")

// seeGo: go test -exec X and go build -toolexec X run X (on every test
// binary, every compiler run); -ldflags=-extld=X runs X as the linker;
// go run /dev/stdin runs code read from its input; go env -w GOFLAGS=…
// sets such options for every later go command.
func seeGo(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	i := 1
	for i < len(cmd) && strings.HasPrefix(cmd[i].text, "-") {
		if cmd[i].text == "-C" {
			i++
		}
		i++
	}
	if i >= len(cmd) {
		return 0, false
	}
	sub := cmd[i].text
	if sub == "env" {
		for k := i + 1; k < len(cmd); k++ {
			if cmd[k].text == "-w" {
				for _, x := range cmd[k+1:] {
					if name, value, ok := strings.Cut(x.text, "="); ok && !strings.HasPrefix(x.text, "-") {
						if w.assignmentRuns(c, word{text: name + "=" + value, lit: x.lit}) {
							return 0, true
						}
					}
				}
			}
		}
		return 0, false
	}
	if !goBuilds[sub] {
		return 0, false
	}
	done := false
	first := true
	for k := i + 1; k < len(cmd); k++ {
		x := cmd[k]
		if v, at, ok := goCommandFlag(cmd, k); ok {
			if w.runScript(c, at, v, true) {
				done = true
			}
			continue
		}
		if strings.HasPrefix(x.text, "-") && (strings.Contains(x.text, "ldflags") || strings.Contains(x.text, "gccgoflags")) {
			v := x.text
			if !strings.Contains(v, "=") && k+1 < len(cmd) {
				v = cmd[k+1].text
			}
			if strings.Contains(v, "extld") || !x.lit {
				return 0, w.opaqueCall(c, "its linker flags name a program it runs")
			}
			continue
		}
		if x.text == "-overlay" || strings.HasPrefix(x.text, "-overlay=") || strings.HasPrefix(x.text, "--overlay") {
			return 0, w.opaqueCall(c, "an overlay replaces the source it builds with files limen does not read")
		}
		if sub == "run" && first && (x.text == "-" || !strings.HasPrefix(x.text, "-")) {
			// The first operand is the program: go run /dev/stdin and go
			// run - build code from the input.
			first = false
			if !x.lit || readsStdinPath(x.text) {
				return 0, w.opaqueCall(c, "it runs code read from its input or built when it runs")
			}
		}
	}
	return 0, done
}

// makePrograms are make's variables whose value is a program make runs:
// the shell of every recipe and the tools of its implicit rules.
var makePrograms = set("SHELL", "MAKESHELL", ".SHELLFLAGS", "CC", "CXX", "CPP", "LD", "AR", "AS", "FC", "RM", "MAKE",
	"YACC", "LEX", "M2C", "PC", "CO", "GET", "LINT", "MAKEINFO", "TEX", "TEXI2DVI", "WEAVE", "CWEAVE", "TANGLE", "CTANGLE", "GO", "CARGO", "PYTHON", "NPM", "INSTALL")

// isMakeAssignment reports whether a make operand is a variable
// assignment: NAME=v, NAME:=v, NAME::=v, NAME?=v, NAME+=v, NAME!=cmd.
func isMakeAssignment(t string) bool {
	k := strings.IndexByte(t, '=')
	if k <= 0 {
		return false
	}
	name := strings.TrimRight(t[:k], ":?+!")
	return name != "" && !strings.ContainsAny(name, " \t/")
}

// makeFileFromInput reports whether ws[i] is make's -f with a makefile
// read from the input or a descriptor: -f -, --file=/dev/stdin, -f <(…).
func makeFileFromInput(ws []word, i int) bool {
	t := ws[i].text
	var v word
	switch {
	case t == "-f" || t == "--file" || t == "--makefile":
		if i+1 >= len(ws) {
			return false
		}
		v = ws[i+1]
	case strings.HasPrefix(t, "--file=") || strings.HasPrefix(t, "--makefile="):
		_, f, _ := strings.Cut(t, "=")
		v = word{text: f, lit: ws[i].lit}
	case strings.HasPrefix(t, "-f") && !strings.HasPrefix(t, "--"):
		v = word{text: t[2:], lit: ws[i].lit}
	default:
		return false
	}
	return !v.lit || v.glob || readsStdinPath(v.text)
}

// makeVariable handles a make variable override at index at of the
// command: a program's variable (SHELL=X, CC=X) runs X; X!=cmd runs cmd
// when make starts; any value with $( or ${ is make code that can call
// $(shell …). It reports whether the part was made opaque.
func (w walker) makeVariable(c *execCall, at int, a word) bool {
	k := strings.IndexByte(a.text, '=')
	name, value := a.text[:k], a.text[k+1:]
	shellAssign := strings.HasSuffix(name, "!")
	name = strings.TrimRight(name, ":?+!")
	switch {
	case !a.lit:
		if makePrograms[name] || shellAssign {
			return w.opaqueCall(c, "the program make is told to run is built when it runs")
		}
		return false
	case shellAssign:
		w.parseInner(c, at, value, true)
	case strings.Contains(value, "$(") || strings.Contains(value, "${"):
		return w.opaqueCall(c, "a variable given to make holds make code, which can run commands")
	case name == "MAKEFILES" || name == ".SHELLFLAGS" || strings.HasSuffix(name, "FLAGS") && ccRuns(strings.Fields(value)):
		return w.opaqueCall(c, "a variable given to make ("+name+") loads or runs code limen does not read")
	case makePrograms[name] && strings.TrimSpace(value) != "":
		w.parseInner(c, at, value, true)
	}
	return false
}

// seeMake: make -f - reads its makefile from the input; SHELL=X, CC=X
// and the other program variables run X; X!=cmd runs cmd; MAKEFLAGS in
// the command holds the same.
func seeMake(w walker, c *execCall) (int, bool) {
	if _, done := w.seeColumns(c); done {
		return 0, true
	}
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		x := cmd[i]
		if makeFileFromInput(cmd, i) {
			return 0, w.opaqueCall(c, "it reads its makefile from its input, which limen cannot read")
		}
		if strings.HasPrefix(x.text, "-") {
			continue
		}
		if isMakeAssignment(x.text) {
			if name, value, _ := strings.Cut(x.text, "="); name == "MAKEFLAGS" || name == "MFLAGS" || name == "GNUMAKEFLAGS" {
				if w.flagsRun(c, x, name, value) {
					return 0, true
				}
				continue
			}
			if w.makeVariable(c, i, x) {
				return 0, true
			}
		}
	}
	return 0, false
}

// cargoCommandKeys are the cargo configuration keys whose value is a
// program cargo runs.
var cargoCommandKeys = []struct{ prefix, suffix string }{
	{"build.rustc-wrapper", ""}, {"build.rustc-workspace-wrapper", ""}, {"build.rustc", ""}, {"build.rustdoc", ""},
	{"target.", ".runner"}, {"target.", ".linker"}, {"host.", ".runner"}, {"host.", ".linker"},
	{"registry.credential-provider", ""}, {"registries.", ".credential-provider"}, {"credential-alias.", ""},
}

// cargoHarmlessKeys are configuration keys (or their tables) that run
// nothing: how much to build in parallel, what profile, how to print.
var cargoHarmlessKeys = []string{"profile.", "build.jobs", "build.incremental", "build.target", "term.", "net.retry", "net.offline",
	"http.timeout", "http.multiplexing", "future-incompat-report.", "cargo-new.", "resolver."}

// seeCargo: cargo --config KEY=VALUE sets configuration for this run; a
// key naming a program (build.rustc-wrapper, target.*.runner) runs its
// value, and a key limen does not know to be harmless (env.*, a
// config file, target.*.rustflags) makes the part opaque.
func seeCargo(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	if len(cmd) > 1 && strings.HasPrefix(cmd[1].text, "+") && (strings.Contains(cmd[1].text, "/") || !cmd[1].lit) {
		// cargo +/path/to/toolchain build runs the cargo and rustc found
		// there (the twelfth pass built its own).
		return 0, w.opaqueCall(c, "cargo runs the toolchain at "+strings.TrimPrefix(cmd[1].text, "+")+", whose programs limen does not read")
	}
	done := false
	for i := 1; i < len(cmd); i++ {
		t := cmd[i].text
		var kv word
		at := i
		switch {
		case t == "--config" && i+1 < len(cmd):
			kv, at = cmd[i+1], i+1
			i++
		case strings.HasPrefix(t, "--config="):
			kv = word{text: t[len("--config="):], lit: cmd[i].lit}
		case t == "--":
			return 0, done
		default:
			continue
		}
		key, value, ok := strings.Cut(kv.text, "=")
		key = strings.TrimSpace(strings.Trim(strings.TrimSpace(key), `"`))
		value = strings.Trim(strings.TrimSpace(value), `"'`)
		if !kv.lit || !ok {
			// A config file (or one built at run time) can set any key.
			return 0, w.opaqueCall(c, "its --config names settings limen cannot read")
		}
		if cargoRuns(key) {
			if strings.HasPrefix(value, "[") || strings.HasPrefix(value, "{") {
				// a TOML array or table of words: not a shell line
				return 0, w.opaqueCall(c, "its --config "+key+" names a program as TOML limen does not read")
			}
			if w.runScript(c, at, value, true) {
				done = true
			}
			continue
		}
		harmless := false
		for _, h := range cargoHarmlessKeys {
			if key == strings.TrimSuffix(h, ".") || strings.HasPrefix(key, h) {
				harmless = true
			}
		}
		if !harmless || strings.Contains(key, "rustflags") {
			return 0, w.opaqueCall(c, "its --config "+key+" is a setting limen does not know to be harmless")
		}
	}
	return 0, done
}

// cargoRuns reports whether a cargo configuration key names a program.
func cargoRuns(key string) bool {
	for _, k := range cargoCommandKeys {
		if k.suffix == "" && key == k.prefix || k.suffix == "" && strings.HasSuffix(k.prefix, ".") && strings.HasPrefix(key, k.prefix) {
			return true
		}
		if k.suffix != "" && strings.HasPrefix(key, k.prefix) && strings.HasSuffix(key, k.suffix) {
			return true
		}
	}
	return false
}

// seePytest: pytest -p NAME loads a plugin, code limen does not read
// (-p no:NAME turns one off and runs nothing).
func seePytest(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	for i := 1; i < len(cmd); i++ {
		t := cmd[i].text
		var v string
		switch {
		case t == "-p" && i+1 < len(cmd):
			v = cmd[i+1].text
			i++
		case strings.HasPrefix(t, "-p") && !strings.HasPrefix(t, "--"):
			v = t[2:]
		case t == "--pdbcls" || strings.HasPrefix(t, "--pdbcls="):
			// --pdbcls=module:Class imports the module, as -p does.
			return 0, w.opaqueCall(c, "its --pdbcls imports a module of code limen does not read")
		case (t == "--trace" || t == "--pdb") && stdinFed(c):
			// The debugger runs what it reads on its input as Python
			// (pytest --trace <<< "import os; …", the eighteenth pass).
			return 0, w.opaqueCall(c, "its debugger runs its input as Python code limen does not read")
		case t == "-o" || t == "--override-ini" || strings.HasPrefix(t, "--override-ini=") || strings.HasPrefix(t, "-o") && !strings.HasPrefix(t, "--"):
			// -o addopts=-pevil: an ini setting given here
			ini := strings.TrimPrefix(strings.TrimPrefix(t, "--override-ini="), "-o")
			if t == "-o" || t == "--override-ini" {
				if i+1 >= len(cmd) {
					continue
				}
				i++
				ini = cmd[i].text
			}
			key, _, _ := strings.Cut(ini, "=")
			if !cmd[i].lit || !pytestHarmlessIni[strings.TrimSpace(key)] {
				return 0, w.opaqueCall(c, "it overrides pytest's "+key+" setting, which can load plugins and code limen does not read")
			}
			continue
		case t == "-c" || t == "--config-file" || strings.HasPrefix(t, "--config-file=") || strings.HasPrefix(t, "-c") && len(t) > 2 && !strings.HasPrefix(t, "--"):
			f := strings.TrimPrefix(strings.TrimPrefix(t, "--config-file="), "-c")
			if t == "-c" || t == "--config-file" {
				if i+1 >= len(cmd) {
					continue
				}
				i++
				f = cmd[i].text
			}
			if !cmd[i].lit || !pytestConfigs[strings.TrimPrefix(f, "./")] {
				return 0, w.opaqueCall(c, "it reads its configuration from "+f+", whose addopts can load plugins limen does not read")
			}
			continue
		default:
			continue
		}
		if !strings.HasPrefix(v, "no:") {
			return 0, w.opaqueCall(c, "it loads a plugin ("+v+"), code limen does not read")
		}
	}
	return 0, false
}

// pytestConfigs are the configuration files pytest finds by itself in the
// project: -c naming one of them changes nothing.
var pytestConfigs = set("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")

// pytestHarmlessIni are the ini settings -o may override without
// loading code: how output looks, warnings, markers, timeouts. Any other
// (addopts, pythonpath, required_plugins, python_files, testpaths,
// confcutdir, cache_dir …) makes the part opaque.
var pytestHarmlessIni = set("log_cli", "log_cli_level", "log_level", "log_format", "log_date_format", "log_cli_format", "filterwarnings",
	"xfail_strict", "console_output_style", "junit_family", "junit_suite_name", "junit_logging", "markers", "timeout", "faulthandler_timeout",
	"asyncio_mode", "asyncio_default_fixture_loop_scope", "empty_parameter_set_mark", "minversion", "doctest_optionflags",
	"verbosity_assertions", "verbosity_test_cases", "truncation_limit_lines", "truncation_limit_chars", "strict_markers")

// ccCode are C compiler options that run or load a program: -wrapper runs
// every compiler pass under it, -B finds the passes in a directory,
// plugins are loaded into the compiler.
var ccCode = []string{"-wrapper", "-fplugin", "-fpass-plugin", "-B", "-specs", "--specs", "-fuse-ld", "--ld-path", "-load", "-Wl,-plugin", "-Wl,--plugin", "-plugin", "--gcc-toolchain", "-ccc-install-dir"}

// ccRuns reports whether compiler flags hold one of ccCode. -fuse-ld=lld
// picks a linker by name; a path is a program of someone's choosing.
func ccRuns(flags []string) bool {
	for _, f := range flags {
		for _, o := range ccCode {
			if f == o || strings.HasPrefix(f, o) && len(f) > len(o) && (o == "-B" || f[len(o)] == '=' || f[len(o)] == ',') {
				if o == "-fuse-ld" && !strings.Contains(f, "/") {
					continue
				}
				return true
			}
		}
	}
	return false
}

// seeCC: a C compiler given ccCode runs a program limen does not read.
func seeCC(w walker, c *execCall) (int, bool) {
	cmd := c.cmd()
	flags := make([]string, 0, len(cmd))
	for _, x := range cmd[1:] {
		if !x.lit {
			flags = append(flags, "-wrapper") // a word built at run time may be any option
			continue
		}
		flags = append(flags, x.text)
	}
	if ccRuns(flags) {
		return 0, w.opaqueCall(c, "its options run or load a program limen does not read")
	}
	return 0, false
}

// scriptShells are the options of npm, pnpm and yarn whose value is the
// shell that runs every package script.
var scriptShells = []string{"--script-shell"}

// npmConfigCode are npm options that load configuration or code from a
// file limen does not read.
var npmConfigCode = []string{"--userconfig", "--globalconfig", "--node-options"}

// withScriptShell wraps a package manager's see function: npm test
// --script-shell X runs the test script with X, so X is what runs.
func withScriptShell(see func(w walker, c *execCall) (int, bool)) func(w walker, c *execCall) (int, bool) {
	return func(w walker, c *execCall) (int, bool) {
		cmd := c.cmd()
		if set := packageConfigSet(cmd); set >= 0 {
			// npm config set script-shell X: every later script runs with X
			key, value, ok := strings.Cut(cmd[set].text, "=")
			at := set
			if !ok && set+1 < len(cmd) {
				value, at = cmd[set+1].text, set+1
			}
			key = strings.TrimPrefix(key, "--")
			switch key {
			case "script-shell", "shell":
				return 0, w.runScript(c, at, value, true)
			case "userconfig", "globalconfig", "node-options", "prefix":
				return 0, w.opaqueCall(c, "it sets configuration that loads code limen does not read")
			}
		}
		for i := 1; i < len(cmd); i++ {
			if !strings.HasPrefix(cmd[i].text, "--") {
				continue
			}
			if cmd[i].text == "--" {
				break
			}
			if name, _, _ := strings.Cut(cmd[i].text, "="); strings.Contains(name, "_") {
				// npm reads --script_shell as --script-shell
				long := append([]word(nil), cmd...)
				long[i].text = strings.ReplaceAll(name, "_", "-") + strings.TrimPrefix(cmd[i].text, name)
				cmd = expandLong("npm", long)
			}
			if v, at, ok := optionValue(cmd, i, scriptShells); ok {
				return 0, w.runScript(c, at, v, true)
			}
			if _, _, ok := optionValue(cmd, i, npmConfigCode); ok {
				return 0, w.opaqueCall(c, "it loads configuration or code limen does not read")
			}
		}
		return see(w, c)
	}
}

// packageConfigSet returns the index of the key after `npm config set`
// (yarn, pnpm: the same), or -1.
func packageConfigSet(cmd []word) int {
	for i := 1; i+2 < len(cmd); i++ {
		if cmd[i].text == "config" && (cmd[i+1].text == "set" || cmd[i+1].text == "put") {
			k := i + 2
			for k < len(cmd) && strings.HasPrefix(cmd[k].text, "-") && !strings.HasPrefix(cmd[k].text, "--script-shell") {
				k++ // --global, -g, --location=user
			}
			if k < len(cmd) {
				return k
			}
		}
	}
	return -1
}
