package main

import (
	"os"
	"strings"

	"github.com/limenhq/limen/internal/paths"
)

// The environment variables limenctl reads, in one table. Each is either
// the default of a flag (a flag given wins over it, as for limend) or
// where another program keeps its files. limenctl reads the environment
// only through this file (TestEnvOnlyThroughTable), and `limenctl --help`
// lists the table (TestEnvInHelp).

// envVar is one environment variable limenctl reads.
type envVar struct {
	name string
	flag string // the flag it is the default of, as "command --flag"; "" for none
	help string // what it sets, for --help
}

// get returns the variable's value, "" when it is unset.
func (e envVar) get() string { return os.Getenv(e.name) }

var (
	envSocket     = envVar{paths.EnvSocket, "--socket", "limend's Unix socket"}
	envHTTPSocket = envVar{paths.EnvHTTPSocket, "hook install --http-socket", "limend's HTTP socket, which the hook command names"}
	envDB         = envVar{paths.EnvDB, "doctor --db", "the database limend uses"}
	envClaudeDir  = envVar{"CLAUDE_CONFIG_DIR", "", "Claude Code's user settings directory (default ~/.claude)"}
	envCodexHome  = envVar{"CODEX_HOME", "", "Codex's directory (default ~/.codex)"}
	envVisual     = envVar{"VISUAL", "", "the editor policy edit opens, else $EDITOR, else vi"}
	envEditor     = envVar{"EDITOR", "", "the editor policy edit opens when $VISUAL is unset"}
	envStateHome  = envVar{"XDG_STATE_HOME", "", "where tui logs by default ($XDG_STATE_HOME/limen/tui.log)"}
	envRuntimeDir = envVar{"XDG_RUNTIME_DIR", "", "where limend's sockets are by default ($XDG_RUNTIME_DIR/limen)"}
)

// envVars is the table, in the order --help lists it. The XDG directories
// that locate limend's socket and database are read by internal/paths,
// the same way for limend, limenctl and limen-hook; they are listed here
// because they change where limenctl looks.
var envVars = []envVar{
	envSocket, envHTTPSocket, envDB, envRuntimeDir,
	{"XDG_DATA_HOME", "", "where limend's database is by default ($XDG_DATA_HOME/limen)"},
	envStateHome, envClaudeDir, envCodexHome, envVisual, envEditor,
}

// shellEnv expands a variable in a hook command the way the runtime's
// shell will when it runs the command: from the whole environment, not
// only the table's.
func shellEnv(name string) string { return os.Getenv(name) }

// envHelp is the Environment section of limenctl --help.
func envHelp() string {
	width := 0
	for _, e := range envVars {
		width = max(width, len(e.name))
	}
	var b strings.Builder
	b.WriteString("Environment:\n")
	for _, e := range envVars {
		b.WriteString("  " + e.name + strings.Repeat(" ", width-len(e.name)+2) + e.help)
		if e.flag != "" {
			b.WriteString(" (" + e.flag + ")")
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
