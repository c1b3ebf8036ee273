package action

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Options that write a path. `sort -o F`, `git diff --output=F`, `curl -o
// F`, `go build -o F` and a sed script's `w F` write F as surely as a
// redirection does, though F is only an option's value. A written path
// outside the workspace and /tmp is marked write-outside (so approving
// `sort -o out.txt a` vouches for nothing about `sort -o ~/.bashrc a`), a
// device is marked device-write, and every written path is checked by
// limen's self-protection (outputControl), so `sort -o
// ~/.claude/settings.json x` is a control whatever the history says.
//
// The knowledge is outputRows, one row per program or program and
// subcommand; each row has a test in outputs_test.go.

// outputOpt is an option whose value is a path the command writes.
type outputOpt struct {
	name string
	// removes says the command deletes the path and what is under it
	// (pytest --basetemp empties its directory first).
	removes bool
	// dir says the value is a directory the command writes into (tar -C,
	// unzip -d): what it writes there can be any file below it.
	dir bool
	// covReport says the value is pytest-cov's TYPE[:PATH]: the path after
	// the colon is written (a directory for html).
	covReport bool
}

// outputRule is one row of outputRows.
type outputRule struct {
	opts []outputOpt
	// when, if set, says whether the options write in this mode (tar -C
	// changes where an extraction writes, but a creation only reads there).
	when func(args []word) bool
	// rewrites, if set, says the operands are files the command rewrites
	// in place (a formatter): given one of these flags, or "" for always.
	rewrites []string
	// unless are the flags that make a formatter only check (black
	// --check, ruff format --diff).
	unless []string
}

// inPlace are formatters' rows: the operands are rewritten in place with
// one of the flags (gofmt -w), or always unless a check flag is given
// (black). gofmt -l -w ~ rewrites every .go file under the home
// directory: a write outside, whatever approving `gofmt -l .` said.
func inPlace(flags ...string) outputRule { return outputRule{rewrites: flags} }

func inPlaceUnless(unless ...string) outputRule {
	return outputRule{rewrites: []string{""}, unless: unless}
}

func outs(names ...string) []outputOpt {
	out := make([]outputOpt, len(names))
	for i, n := range names {
		out[i] = outputOpt{name: n}
	}
	return out
}

func dirs(names ...string) []outputOpt {
	out := outs(names...)
	for i := range out {
		out[i].dir = true
	}
	return out
}

// outputRows are the programs (and "program subcommand"s) with options
// whose value is a written path.
var outputRows = map[string]outputRule{
	"git log":          {opts: outs("--output")},
	"git diff":         {opts: outs("--output")},
	"git show":         {opts: outs("--output")},
	"git format-patch": {opts: append(dirs("-o", "--output-directory"), outs("--output")...)},
	"git range-diff":   {opts: outs("--output")},
	"sort":             {opts: outs("-o", "--output")},
	"find":             {opts: outs("-fprint", "-fprint0", "-fprintf", "-fls")},
	"cp":               {opts: dirs("-t", "--target-directory")},
	"mv":               {opts: dirs("-t", "--target-directory")},
	"install":          {opts: dirs("-t", "--target-directory")},
	"ln":               {opts: dirs("-t", "--target-directory")},
	"shuf":             {opts: outs("-o", "--output")},
	"pytest":           {opts: append([]outputOpt{{name: "--basetemp", removes: true, dir: true}}, pytestOutputs...)},
	"py.test":          {opts: append([]outputOpt{{name: "--basetemp", removes: true, dir: true}}, pytestOutputs...)},
	"curl":             {opts: append(dirs("--output-dir"), outs("-o", "--output", "-c", "--cookie-jar", "--hsts", "--alt-svc", "--ssl-sessions", "-D", "--dump-header", "--trace", "--trace-ascii", "--stderr", "--etag-save", "--libcurl")...)},
	"wget":             {opts: append(dirs("-P", "--directory-prefix"), outs("-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "--save-cookies")...)},
	"tar":              {opts: dirs("-C", "--directory"), when: tarExtracts},
	"gtar":             {opts: dirs("-C", "--directory"), when: tarExtracts},
	"bsdtar":           {opts: dirs("-C", "--directory"), when: tarExtracts},
	"unzip":            {opts: dirs("-d")},
	"go build":         {opts: outs(append([]string{"-o"}, goDebugOutputs...)...)},
	"go run":           {opts: outs(goDebugOutputs...)},
	"go install":       {opts: outs(goDebugOutputs...)},
	"go vet":           {opts: outs(goDebugOutputs...)},
	"go test": {opts: append(dirs("-outputdir", "-test.outputdir", "-test.fuzzcachedir", "-fuzzcachedir", "-test.gocoverdir", "-pkgdir"), outs("-debug-trace", "-debug-actiongraph", "-debug-runtime-trace", "-o", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace",
		// the test binary's own flags, given after -args
		"-test.coverprofile", "-test.cpuprofile", "-test.memprofile", "-test.blockprofile", "-test.mutexprofile", "-test.trace", "-test.testlogfile")...)},
	"go mod vendor": {opts: dirs("-o")},
	"gcc":           {opts: outs("-o")},
	"g++":           {opts: outs("-o")},
	"cc":            {opts: outs("-o")},
	"c++":           {opts: outs("-o")},
	"clang":         {opts: outs("-o")},
	"clang++":       {opts: outs("-o")},
	"ld":            {opts: outs("-o")},
	"rustc":         {opts: append(dirs("--out-dir"), outs("-o")...)},
	"cargo":         {opts: append(dirs("--target-dir", "--artifact-dir", "--out-dir"), outs("--lockfile-path")...)},
	"patch":         {opts: outs("-o", "--output")},
	"openssl":       {opts: outs("-out", "-keyout")},
	"ssh-keygen":    {opts: outs("-f")},
	"base64":        {opts: outs("-o", "--output")},
	"pip install":   {opts: dirs("-t", "--target", "--prefix", "--root")},
	"pip3 install":  {opts: dirs("-t", "--target", "--prefix", "--root")},
	"pip download":  {opts: dirs("-d", "--dest")},
	"npm pack":      {opts: dirs("--pack-destination")},
	"cargo install": {opts: dirs("--root", "--target-dir")},
	"tree":          {opts: outs("-o")},
	"less":          {opts: outs("-o", "-O", "--log-file", "--LOG-FILE")},
	"node":          {opts: nodeOutputs},
	"nodejs":        {opts: nodeOutputs},
	// gofmt and its kin also write a CPU profile where -cpuprofile says
	// (the ninth red-team pass: gofmt -cpuprofile ~/.bashrc main.go).
	"gofmt":        {rewrites: []string{"-w"}, opts: outs("-cpuprofile")},
	"goimports":    {rewrites: []string{"-w"}, opts: outs("-cpuprofile", "-memprofile")},
	"gofumpt":      {rewrites: []string{"-w"}, opts: outs("-cpuprofile")},
	"golines":      inPlace("-w", "--write-output"),
	"prettier":     inPlace("-w", "--write"),
	"eslint":       {opts: outs("-o", "--output-file"), rewrites: []string{"--fix"}},
	"biome format": inPlace("--write"),
	"biome check":  inPlace("--write", "--apply", "--fix"),
	"biome lint":   inPlace("--write", "--apply", "--fix"),
	"standard":     inPlace("--fix"),
	"rubocop":      inPlace("-a", "-A", "--autocorrect", "--auto-correct", "--autocorrect-all", "--auto-correct-all"),
	"ruff":         {opts: outs("-o", "--output-file"), rewrites: []string{"--fix", "format"}, unless: []string{"--check", "--diff"}}, // ruff check --fix, ruff format
	// Linters' and bundlers' -o: the report or the bundle (eslint's is above).
	"stylelint":     {opts: outs("-o", "--output-file")},
	"pandoc":        {opts: outs("-o", "--output")},
	"rollup":        {opts: append(outs("-o", "--file"), dirs("-d", "--dir")...)},
	"webpack":       {opts: dirs("-o", "--output-path")},
	"babel":         {opts: append(outs("-o", "--out-file"), dirs("-d", "--out-dir")...)},
	"terser":        {opts: outs("-o", "--output")},
	"uglifyjs":      {opts: outs("-o", "--output")},
	"swc":           {opts: append(outs("-o", "--out-file"), dirs("-d", "--out-dir")...)},
	"black":         inPlaceUnless("--check", "--diff"),
	"isort":         inPlaceUnless("--check", "--check-only", "-c", "--diff"),
	"autopep8":      inPlace("-i", "--in-place"),
	"yapf":          inPlace("-i", "--in-place"),
	"autoflake":     inPlace("-i", "--in-place"),
	"rustfmt":       inPlaceUnless("--check"),
	"clang-format":  inPlace("-i"),
	"shfmt":         inPlace("-w", "--write"),
	"stylua":        inPlaceUnless("--check", "-c"),
	"dprint fmt":    inPlaceUnless("--diff"),
	"taplo fmt":     inPlaceUnless("--check"),
	"terraform fmt": inPlaceUnless("-check", "-diff"),
	"tofu fmt":      inPlaceUnless("-check", "-diff"),
	"xxd":           {},
	"split":         {},
	"uniq":          {},
	"dd":            {},
	"tee":           {},
	"sed":           {},
	"gsed":          {},
}

// nodeOutputs are node's options that write a file or into a directory:
// the test reporter's destination, warnings, trace events, profiles,
// diagnostic reports. A profile's or report's name is written in its
// directory (nodeJoined).
var nodeOutputs = append(outs("--test-reporter-destination", "--redirect-warnings", "--tls-keylog", "--trace-event-file-pattern", "--cpu-prof-name",
	"--heap-prof-name", "--report-filename", "--localstorage-file", "--trace-log-file", "--logfile"),
	dirs("--cpu-prof-dir", "--heap-prof-dir", "--diagnostic-dir", "--report-directory", "--report-dir")...)

// nodeJoined are node's name options and the directory options they are
// written in, in order: --cpu-prof-dir=~/.claude --cpu-prof-name=settings.json
// writes ~/.claude/settings.json.
var nodeJoined = map[string][]string{
	"--cpu-prof-name":   {"--cpu-prof-dir", "--diagnostic-dir"},
	"--heap-prof-name":  {"--heap-prof-dir", "--diagnostic-dir"},
	"--report-filename": {"--report-directory", "--report-dir", "--diagnostic-dir"},
}

// nodeOutputsJoined returns the files node writes at a name option joined
// with its directory option (nodeJoined).
func nodeOutputsJoined(args []word) []written {
	value := func(opt string) (word, bool) {
		for i := range args {
			if v, ok := outputValue(args, i, opt); ok {
				return v, true
			}
		}
		return word{}, false
	}
	var out []written
	for name, dirOpts := range nodeJoined {
		n, ok := value(name)
		if !ok {
			continue
		}
		for _, d := range dirOpts {
			if dir, ok := value(d); ok {
				out = append(out, written{w: word{text: strings.TrimSuffix(dir.text, "/") + "/" + n.text, lit: dir.lit && n.lit}})
				break
			}
		}
	}
	return out
}

// outputRow returns the row of prog with subcommand sub: the subcommand's
// own, or the program's.
func outputRow(prog, sub string) (outputRule, bool) {
	if sub != "" {
		if r, ok := outputRows[prog+" "+sub]; ok {
			return r, true
		}
	}
	r, ok := outputRows[prog]
	return r, ok
}

// written is a path a command writes.
type written struct {
	w       word
	removes bool
	dir     bool
}

// outputsOf returns the paths prog writes through its options, operands
// of the few programs whose operands are outputs (dd of=, tee, split,
// uniq) and the w commands of sed scripts.
func outputsOf(prog string, args []word) []written {
	prog, args = asModule(prog, args)
	args = expandLong(prog, args)
	if prog == "curl" {
		args = curlUnexpanded(args)
	}
	r, ok := outputRow(prog, subcommand(prog, args))
	if !ok {
		return namedOutputs(args, nil)
	}
	out := namedOutputs(args, r.opts)
	switch prog {
	case "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a.text, "of="); ok {
				out = append(out, written{w: word{text: v, lit: a.lit}})
			}
		}
	case "tee":
		for _, a := range operandsOf(args, nil) {
			out = append(out, written{w: a})
		}
	case "split", "uniq", "xxd":
		// split FILE PREFIX, uniq IN OUT, xxd IN OUT: the second operand
		// is written.
		if ops := operandsOf(args, secondOutValued[prog]); len(ops) >= 2 {
			out = append(out, written{w: ops[1]})
		}
	case "tar", "gtar", "bsdtar":
		if !tarExtracts(args) && tarWrites(args) {
			// tar czf ARCHIVE …: a creation writes its archive.
			if len(args) > 1 && !strings.HasPrefix(args[0].text, "-") && strings.ContainsRune(args[0].text, 'f') {
				out = append(out, written{w: args[1]})
			}
			for i, a := range args {
				if a.lit && strings.HasPrefix(a.text, "-") {
					for _, o := range []string{"-f", "--file"} {
						if v, ok := outputValue(args, i, o); ok {
							out = append(out, written{w: v})
						}
					}
				}
			}
		}
	case "curl":
		// -O, --remote-name and --remote-name-all save each URL under
		// its last segment, in the working directory (or --output-dir,
		// which is a directory): a Makefile fetched that way is one the
		// approved make then runs (the eleventh red-team pass).
		if curlRemoteName(args) {
			for _, a := range args {
				if !a.lit || strings.HasPrefix(a.text, "-") || !strings.Contains(a.text, "://") {
					continue
				}
				u := a.text
				if i := strings.IndexAny(u, "?#"); i >= 0 {
					u = u[:i]
				}
				if _, rest, ok := strings.Cut(u, "://"); ok {
					if _, p, ok := strings.Cut(rest, "/"); ok && path.Base(p) != "." && path.Base(p) != "/" && p != "" {
						out = append(out, written{w: word{text: path.Base(p), lit: true}})
					}
				}
			}
		}
		// -w '%output{FILE}…' (curl 8.3) writes the rest of the format to FILE.
		for i := range args {
			for _, o := range []string{"-w", "--write-out"} {
				if v, ok := outputValue(args, i, o); ok {
					for _, m := range curlOutputRE.FindAllStringSubmatch(v.text, -1) {
						out = append(out, written{w: word{text: strings.TrimPrefix(m[1], ">>"), lit: v.lit}})
					}
				}
			}
		}
	case "cargo":
		// libtest's own options, after --: cargo test -- --logfile
		// ~/.bashrc writes the test log there (the thirteenth pass).
		if sub := subcommand(prog, args); sub == "test" || sub == "bench" || sub == "t" {
			after := false
			for i, a := range args {
				if a.text == "--" {
					after = true
					continue
				}
				if after {
					if v, ok := outputValue(args, i, "--logfile"); ok {
						out = append(out, written{w: v})
					}
				}
			}
		}
	case "node", "nodejs":
		out = append(out, nodeOutputsJoined(args)...)
	case "sed", "gsed":
		files, ok := sedOutputs(args)
		if !ok {
			// A script limen cannot read may write anywhere.
			return []written{{w: word{text: "<sed script>"}}}
		}
		for _, f := range files {
			out = append(out, written{w: f})
		}
	}
	if len(r.rewrites) > 0 && rewritesInPlace(args, r) {
		sub := subcommand(prog, args)
		for _, a := range operandsOf(args, nil) {
			if sub != "" && a.text == sub {
				sub = "" // the subcommand word: ruff format
				continue
			}
			out = append(out, written{w: a})
		}
	}
	if r.when != nil && !r.when(args) {
		return out
	}
	for i, a := range args {
		if !a.lit || !strings.HasPrefix(a.text, "-") {
			continue
		}
		if a.text == "--" {
			break
		}
		for _, o := range r.opts {
			if v, ok := outputValue(args, i, o.name); ok {
				if o.covReport {
					kind, p, ok := strings.Cut(v.text, ":")
					if !ok || p == "" {
						continue // term, xml: pytest-cov's default file in the working directory
					}
					out = append(out, written{w: word{text: p, lit: v.lit, glob: v.glob}, dir: kind == "html" || kind == "annotate"})
					continue
				}
				out = append(out, written{w: v, removes: o.removes, dir: o.dir})
			}
		}
	}
	if dir, ok := changedDir(prog, args); ok {
		// git -C ~ diff --output=.claude/settings.json writes below ~.
		for k := range out {
			if t := out[k].w.text; t != "" && !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "~") {
				out[k].w = word{text: strings.TrimSuffix(dir.text, "/") + "/" + t, lit: dir.lit && out[k].w.lit}
			}
		}
	}
	return out
}

// namedOutputs are the files written through long options whose name says
// they take an output file, for any program, besides its row's options
// (known): --output-file, --outfile, --log-file, --output-dir (the
// fifteenth red-team pass wrote ~/.bashrc with ruff check
// --output-file). A bare --output or --out is a file unless its value
// is a format's name (--output json).
func namedOutputs(args []word, known []outputOpt) []written {
	var out []written
	for i, a := range args {
		t := a.text
		if !a.lit || !strings.HasPrefix(t, "--") {
			continue
		}
		if t == "--" {
			break
		}
		name, _, _ := strings.Cut(t, "=")
		if slices.ContainsFunc(known, func(o outputOpt) bool { return o.name == name }) {
			continue
		}
		dir, ok := outputOptionName(strings.TrimPrefix(name, "--"))
		if !ok {
			continue
		}
		v, ok := outputValue(args, i, name)
		if !ok || v.text == "" || v.text == "-" || (name == "--output" || name == "--out") && outputFormats[v.text] {
			continue
		}
		out = append(out, written{w: v, dir: dir})
	}
	return out
}

// outputOptionName reports whether a long option's name says it takes a
// file (or, dir, a directory) it writes.
func outputOptionName(n string) (dir, ok bool) {
	n = strings.ReplaceAll(strings.ToLower(n), "_", "-")
	for _, suffix := range []string{"-format", "-mode", "-type", "-style", "-level", "-encoding", "-fields", "-columns", "-template", "-width", "-color", "-colour", "-sort", "-limit", "-name-only"} {
		if strings.HasSuffix(n, suffix) {
			return false, false
		}
	}
	switch {
	case n == "output" || n == "out" || n == "outfile" || n == "out-file" || strings.HasPrefix(n, "output-file") || n == "output-path" ||
		n == "log-file" || n == "logfile" || strings.HasSuffix(n, "-log-file") || strings.HasSuffix(n, "-output-file") ||
		strings.HasSuffix(n, "-outfile") || strings.HasSuffix(n, "-out-file") || strings.HasSuffix(n, "-output") && !strings.HasPrefix(n, "no-") ||
		n == "report-file" || n == "dump-file" || n == "save-to" || n == "write-to" || n == "trace-file" || n == "profile-file":
		return false, true
	case n == "outdir" || n == "out-dir" || strings.HasSuffix(n, "-out") || // protoc --python_out=DIR
		n == "output-dir" || n == "output-directory" || strings.HasSuffix(n, "-output-dir") || strings.HasSuffix(n, "-out-dir"):
		return true, true
	}
	return false, false
}

// outputFormats are the values of --output that name a format, not a file.
var outputFormats = set("json", "jsonc", "yaml", "yamlc", "yml", "text", "txt", "table", "tsv", "csv", "none", "wide", "name", "plain", "raw",
	"pretty", "short", "full", "human", "junit", "xml", "html", "markdown", "md", "sarif", "github", "gitlab", "grouped", "concise", "compact",
	"quiet", "verbose", "summary", "tap", "dot", "spec", "list", "env", "shell", "go-template", "jsonpath", "default")

// rewritesInPlace reports whether a formatter's flags make it rewrite its
// operands (a flag of r.rewrites, also in a short cluster: gofmt -lw).
func rewritesInPlace(args []word, r outputRule) bool {
	has := func(flags []string) bool {
		for _, a := range args {
			t, _, _ := strings.Cut(a.text, "=")
			for _, f := range flags {
				if f != "" && (t == f || len(f) == 2 && !strings.HasPrefix(t, "--") && strings.HasPrefix(t, "-") && strings.ContainsRune(t[1:], rune(f[1]))) {
					return true
				}
			}
		}
		return false
	}
	if has(r.unless) {
		return false
	}
	return contains(r.rewrites, "") || has(r.rewrites)
}

var curlOutputRE = regexp.MustCompile(`%output\{([^}]*)\}`)

// curlUnexpanded returns curl's arguments with --expand-X spelled --X:
// with no {{variable}} in its value (seeCurl makes those opaque),
// --expand-output F writes F as --output F does.
func curlUnexpanded(args []word) []word {
	var out []word
	for i, a := range args {
		if rest, ok := strings.CutPrefix(a.text, "--expand-"); ok && a.lit {
			if out == nil {
				out = append([]word(nil), args...)
			}
			out[i].text = "--" + rest
		}
	}
	if out == nil {
		return args
	}
	return out
}

// changedDir returns the directory git -C DIR (or make -C DIR) runs in,
// against which the relative paths it writes resolve.
func changedDir(prog string, args []word) (word, bool) {
	if prog != "git" && prog != "make" && prog != "gmake" {
		return word{}, false
	}
	var dir word
	found := false
	for i := 0; i+1 < len(args); i++ {
		t := args[i].text
		if prog == "git" && !strings.HasPrefix(t, "-") {
			break
		}
		if t == "-C" || t == "--directory" {
			d := args[i+1]
			if found && !strings.HasPrefix(d.text, "/") && !strings.HasPrefix(d.text, "~") {
				d = word{text: dir.text + "/" + d.text, lit: dir.lit && d.lit} // -C a -C b is a/b
			}
			dir, found = d, true
			i++
		}
	}
	return dir, found
}

// outputValue returns the value of option name at args[i]: "-o F",
// "-oF" (one-letter options, also at the end of a cluster: -sSLo F),
// "--output=F", "--output F" and Go's "-o=F", "-coverprofile=F".
func outputValue(args []word, i int, name string) (word, bool) {
	t := args[i].text
	next := func() (word, bool) {
		if i+1 < len(args) {
			return args[i+1], true
		}
		return word{}, false
	}
	switch {
	case t == name:
		return next()
	case strings.HasPrefix(t, name+"="):
		return word{text: t[len(name)+1:], lit: args[i].lit}, true
	case !strings.HasPrefix(name, "--") && len(name) > 2 && t == "-"+name:
		// Go and curl accept a double dash for a single-dash option.
		return next()
	case !strings.HasPrefix(name, "--") && len(name) > 2 && strings.HasPrefix(t, "-"+name+"="):
		return word{text: t[len(name)+2:], lit: args[i].lit}, true
	case len(name) == 2 && !strings.HasPrefix(t, "--") && len(t) > 2:
		k := strings.IndexByte(t[1:], name[1]) + 1
		switch {
		case k == 0:
			return word{}, false
		case k == len(t)-1:
			return next()
		case k == 1:
			return word{text: strings.TrimPrefix(t[2:], "="), lit: args[i].lit}, true
		case isLetters(t[1:k]):
			// -uo/etc/x: the letters before are flags, the rest the value
			return word{text: t[k+1:], lit: args[i].lit}, true
		}
	}
	return word{}, false
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// operandsOf returns the words of args that are no options (nor the
// values of valued options).
func operandsOf(args []word, valued map[string]bool) []word {
	var ops []word
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			return append(ops, args[i+1:]...)
		case args[i].lit && strings.HasPrefix(t, "-") && t != "-":
			if valued[t] {
				i++
			}
		default:
			ops = append(ops, args[i])
		}
	}
	return ops
}

// secondOutValued are the options that take a value, of the programs
// whose second operand is their output.
var secondOutValued = map[string]map[string]bool{
	"split": set("-l", "-b", "-C", "-n", "-a", "-t", "--additional-suffix", "--filter", "--lines", "--bytes", "--number"),
	"uniq":  set("-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"),
	"xxd":   set("-c", "-g", "-l", "-o", "-s", "-n", "-cols", "-len", "-seek", "-groupsize", "-name"),
}

// tarExtracts reports whether a tar command extracts (so -C DIR is where
// it writes).
func tarExtracts(args []word) bool {
	for k, a := range args {
		t := a.text
		switch {
		case t == "--extract" || t == "--get":
			return true
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") || k == 0:
			// -xzf, or the old form's first word: xzf
			if strings.ContainsRune(strings.TrimPrefix(t, "-"), 'x') {
				return true
			}
		}
	}
	return false
}

// tarWrites reports whether a tar command creates, appends to or
// updates its archive.
func tarWrites(args []word) bool {
	for k, a := range args {
		t := a.text
		switch {
		case t == "--create" || t == "--append" || t == "--update" || t == "--concatenate" || t == "--delete":
			return true
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") || k == 0:
			if strings.ContainsAny(strings.TrimPrefix(t, "-"), "cruA") {
				return true
			}
		}
	}
	return false
}

// sedOutputs returns the files sed's scripts write with w and W commands
// and the s command's w flag; ok is false when a script cannot be read.
func sedOutputs(args []word) ([]word, bool) {
	scripts := parseSed(args).scripts
	var files []word
	for _, s := range scripts {
		if !s.lit {
			return nil, false
		}
		fs, ok := sedScriptWrites(s.text)
		if !ok {
			return nil, false
		}
		for _, f := range fs {
			files = append(files, word{text: f, lit: true})
		}
	}
	return files, true
}

// sedScriptWrites reads a sed script far enough to find the files its w
// and W commands and its s commands' w flags write. A script it cannot
// read is reported with ok false.
func sedScriptWrites(s string) (files []string, ok bool) {
	files, _, ok = sedScriptFiles(s)
	return files, ok
}

// sedScriptReads returns the files a sed script's r and R commands put
// into its output (even under -n: sed -n '1r /etc/shadow' f prints the
// file); ok is false when the script cannot be read.
func sedScriptReads(s string) (files []string, ok bool) {
	_, files, ok = sedScriptFiles(s)
	return files, ok
}

// sedScriptFiles returns the files a sed script writes (w, W, s///w) and
// reads (r, R).
func sedScriptFiles(s string) (files, reads []string, ok bool) {
	i := 0
	restOfLine := func() string {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			j = len(s) - i
		}
		line := s[i : i+j]
		i += j
		return strings.TrimSpace(line)
	}
	// field skips a delimited field (a regex or replacement) from i.
	field := func(delim byte) bool {
		for i < len(s) {
			switch s[i] {
			case '\\':
				i += 2
				continue
			case delim:
				i++
				return true
			}
			i++
		}
		return false
	}
	address := func() bool {
		switch {
		case i < len(s) && s[i] >= '0' && s[i] <= '9':
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case i < len(s) && s[i] == '$':
			i++
		case i < len(s) && s[i] == '/':
			i++
			if !field('/') {
				return false
			}
		case i+1 < len(s) && s[i] == '\\':
			d := s[i+1]
			i += 2
			if !field(d) {
				return false
			}
		default:
			return true
		}
		for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
			i++
		}
		return true
	}
	for i < len(s) {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '{' || c == '}' {
			i++
			continue
		}
		if c == '#' {
			restOfLine()
			continue
		}
		if !address() {
			return nil, nil, false
		}
		if i < len(s) && s[i] == ',' {
			i++
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
			}
			if !address() {
				return nil, nil, false
			}
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '!') {
			i++
		}
		if i >= len(s) {
			return files, reads, true
		}
		c = s[i]
		i++
		switch c {
		case '{', '}', ';':
		case 's', 'y':
			if i >= len(s) {
				return nil, nil, false
			}
			d := s[i]
			i++
			// Two fields, the regex and the replacement (field moves
			// past each).
			if !field(d) {
				return nil, nil, false
			}
			if !field(d) {
				return nil, nil, false
			}
			if c == 'y' {
				continue
			}
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				if s[i] == 'w' {
					i++
					files = append(files, restOfLine())
					break
				}
				i++
			}
		case 'w', 'W':
			files = append(files, restOfLine())
		case 'r', 'R':
			reads = append(reads, restOfLine())
		case 'a', 'i', 'c', 'e':
			// text or a command up to the end of the line
			for {
				line := restOfLine()
				if !strings.HasSuffix(line, `\`) || i >= len(s) {
					break
				}
				i++
			}
		case ':', 'b', 't', 'T':
			for i < len(s) && s[i] != ';' && s[i] != '\n' {
				i++
			}
		case 'q', 'Q', 'l', 'L':
			for i < len(s) && (s[i] == ' ' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
		case 'v':
			for i < len(s) && s[i] != ';' && s[i] != '\n' {
				i++
			}
		case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		default:
			return nil, nil, false
		}
	}
	return files, reads, true
}

// goDebugOutputs are the build flags of every go subcommand that compiles
// which write a file (the thirteenth pass wrote ~/.bashrc with them).
var goDebugOutputs = []string{"-debug-trace", "-debug-actiongraph", "-debug-runtime-trace"}

// curlRemoteName reports whether curl saves what it fetches under the
// URL's own name: -O (alone or in a cluster, -sLO), --remote-name,
// --remote-name-all.
func curlRemoteName(args []word) bool {
	for _, a := range args {
		t := a.text
		switch {
		case t == "--remote-name" || t == "--remote-name-all":
			return true
		case len(t) > 1 && t[0] == '-' && t[1] != '-':
			// Up to the O, letters of options that take no value (in
			// -XPOST the O is the value's).
			for _, r := range t[1:] {
				if r == 'O' {
					return true
				}
				if !strings.ContainsRune("sSLkfiIvqgGJRZnNl0123456#", r) {
					break
				}
			}
		}
	}
	return false
}

// asModule returns python -m pytest ARGS as pytest ARGS: the module
// takes the same options as its command.
func asModule(prog string, args []word) (string, []word) {
	prog = interpreterBase(prog)
	if interpreters[prog] && len(args) >= 2 && args[0].text == "-m" && outputModules[args[1].text] {
		return args[1].text, args[2:]
	}
	return prog, args
}

// outputModules are the Python modules that are also rows of outputRows.
var outputModules = set("pytest", "py.test", "pip", "pip3")

// pytestOutputs are pytest's and its common plugins' options that write
// a file: the junit and log files, pytest-html, pytest-reportlog,
// pytest-json-report, allure, and pytest-cov's reports (whose
// TYPE:PATH values are read by outputsOf's coverage rule).
var pytestOutputs = append(outs("--junitxml", "--junit-xml", "--resultlog", "--result-log", "--debug", "--log-file",
	"--report-log", "--html", "--json-report-file", "--md-report-output", "--self-contained-html"),
	append(dirs("--alluredir"), outputOpt{name: "--cov-report", covReport: true})...)

// blockDevice reports whether a written path is a device other than the
// harmless sinks: a disk (/dev/sda, /dev/nvme0n1, /dev/disk2,
// /dev/mapper/root), memory (/dev/mem) or anything else under /dev.
func blockDevice(p string) bool {
	p = path.Clean(p)
	return strings.HasPrefix(p, "/dev/") && !harmlessSink(p) && p != "/dev/shm" && !strings.HasPrefix(p, "/dev/shm/")
}

// fillers are devices that never run out: copying one to a file fills
// the disk.
var fillers = set("/dev/zero", "/dev/urandom", "/dev/random", "/dev/full")

// fillReaders copy what they read to a file or their output.
var fillReaders = set("cp", "dd", "install", "rsync", "cat", "pv", "head", "tail")

// outputMarks are the risk marks of the paths a command writes through
// its options and scripts (write-outside, device-write, rm-tree), of a
// copy from an endless device (fill-disk), of a move onto a device, and of
// git run on another repository (repo-outside), whose configuration can
// run hooks and an fsmonitor.
func (w walker) outputMarks(prog string, args []word) []string {
	prog, args = asModule(prog, args)
	args = expandLong(prog, args)
	var marks []string
	add := func(m string) {
		for _, x := range marks {
			if x == m {
				return
			}
		}
		marks = append(marks, m)
	}
	for _, o := range outputsOf(prog, args) {
		t := o.w.text
		switch {
		case !o.w.lit || o.w.glob || t == "<sed script>":
			add("write-outside") // a path limen cannot read may be anywhere
		case blockDevice(t):
			add("device-write")
		case w.outside(t):
			add("write-outside")
		}
		if o.w.lit && (w.writesConfig(t) || o.dir && w.runsConfig(path.Join(t, "x"))) {
			add("runs-config") // git log --output=.git/config, cp -t .git
		}
		if o.removes {
			add("rm-tree")
		}
	}
	if fillReaders[prog] {
		for _, a := range args {
			v := strings.TrimPrefix(a.text, "if=")
			if a.lit && fillers[v] {
				add("fill-disk")
			}
		}
	}
	switch prog {
	case "fallocate":
		add("fill-disk")
	case "cp", "install", "ln", "rsync":
		if ops := operandsOf(args, set("-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group")); len(ops) > 1 && blockDevice(ops[len(ops)-1].text) {
			add("device-write")
		}
	case "mv":
		if ops := operandsOf(args, set("-t", "--target-directory", "-S", "--suffix")); len(ops) > 1 && strings.HasPrefix(path.Clean(ops[len(ops)-1].text), "/dev/") {
			add("device-write") // as root, mv x /dev/null replaces the device
		}
	}
	if opts, ok := projectOptions[prog]; ok {
		for i, a := range args {
			t := a.text
			if prog == "git" && !strings.HasPrefix(t, "-") {
				break // git's subcommand: its -C is another option (git log -C)
			}
			if !a.lit || !strings.HasPrefix(t, "-") {
				continue
			}
			for _, o := range opts {
				if v, ok := outputValue(args, i, o); ok && v.text != "" && (!v.lit || w.outside(v.text)) {
					add("repo-outside")
				}
			}
		}
	}
	return marks
}

// projectOptions are the options that point a tool at another project,
// whose configuration it obeys: git -C DIR runs that repository's hooks
// and fsmonitor, make -C DIR its makefile, cargo --manifest-path its
// build scripts. A project outside the workspace and /tmp is marked
// repo-outside.
var projectOptions = map[string][]string{
	"git":    {"-C", "--git-dir", "--work-tree"},
	"make":   {"-C", "--directory", "-f", "--file", "--makefile"},
	"gmake":  {"-C", "--directory", "-f", "--file", "--makefile"},
	"go":     {"-C", "-modfile"},
	"cargo":  {"--manifest-path"},
	"npm":    {"--prefix"},
	"pnpm":   {"-C", "--dir"},
	"yarn":   {"--cwd"},
	"pytest": {"--rootdir", "-c", "--confcutdir"},
}

// outputControl says why the paths a command writes through its options
// and scripts make it one of limen's controls: `sort -o
// ~/.claude/settings.json x`, `git diff --output=~/.local/share/limen/limen.db`.
func (s *controlScope) outputControl(prog string, args []word) string {
	for _, o := range outputsOf(prog, args) {
		if o.w.text == "<sed script>" {
			continue
		}
		if why := s.pathHits(prog, []word{o.w}, o.removes || o.dir); why != "" {
			return fmt.Sprintf("%s (a path it writes)", why)
		}
	}
	return ""
}
