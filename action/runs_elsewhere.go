package action

import (
	"path"
	"strings"
)

// Code from outside the project. An approved test or build command runs
// the project's code; the same command pointed at packages, tests or
// include directories elsewhere runs someone else's (go test ../...,
// go test github.com/x/y, pytest --pyargs pkg, make -I /tmp/evil,
// cargo -Zscript /tmp/x.rs), and an assignment can move where it
// installs (make PREFIX=/usr/local install). These are the ninth red-team
// pass's classes, marked runs-outside and write-outside like a script
// from outside the project (keys_cmd.go).

// goRunsCode are the go subcommands that run the packages they are given
// (test binaries, programs, generators, analyzers).
// build and install too: go build -C /tmp/evil compiles (and with cgo or
// toolchain lines runs) what is there (the thirteenth pass).
var goRunsCode = set("test", "run", "generate", "vet", "build", "install")

// elsewhereMarks returns the marks of a command that runs code from, or
// writes into, places outside the project.
func (w walker) elsewhereMarks(prog, sub string, args []word) []string {
	switch {
	case prog == "go" && goRunsCode[sub]:
		return w.goElsewhere(args)
	case prog == "pytest" || prog == "py.test":
		return pytestElsewhere(args)
	case prog == "cargo":
		return w.cargoElsewhere(args)
	case prog == "make" || prog == "gmake":
		return w.makeElsewhere(args)
	}
	return nil
}

// goElsewhere: package patterns outside the working directory (../...,
// /tmp/evil/..., another module's import path), a go.mod of another
// place (-modfile), or -C given after the subcommand (go test -C DIR,
// which go accepts as the first flag there too).
func (w walker) goElsewhere(args []word) []string {
	var marks []string
	seenSub := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !seenSub {
			if a.lit && strings.HasPrefix(t, "-") {
				if t == "-C" {
					i++
				}
				continue
			}
			seenSub = true // the subcommand
			continue
		}
		if t == "-args" || t == "--args" {
			break // what follows goes to the test binary
		}
		if a.lit && strings.HasPrefix(t, "-") {
			name, v, hasValue := strings.Cut(strings.Replace(t, "--", "-", 1), "=")
			switch name {
			case "-gcflags", "-asmflags", "-ldflags":
				// -gcflags=-cpuprofile=/root/.bashrc: the compiler writes it
				if !hasValue && i+1 < len(args) {
					v = args[i+1].text
				}
				if strings.Contains(v, "profile=") || strings.Contains(v, "trace=") || !args[i].lit {
					marks = append(marks, "write-outside")
				}
			case "-C":
				marks = append(marks, elsewhereMark)
			case "-modfile":
				if !hasValue && i+1 < len(args) {
					v = args[i+1].text
				}
				if w.leavesWorkspace(v) {
					marks = append(marks, "runs-outside")
				}
			}
			if !hasValue && goRunValueFlags[t] {
				i++
			}
			continue
		}
		if w.goPackageOutside(a) {
			marks = append(marks, "runs-outside")
			break
		}
	}
	return marks
}

// goPackageOutside reports whether a go package pattern names code that
// is not the project's: a directory outside it, or an import path (a
// first element with a dot, as every module path outside the standard
// library has). Files and ./relative patterns inside are the project's;
// the standard library (fmt, net/http) is not a risk.
func (w walker) goPackageOutside(a word) bool {
	t := a.text
	if !a.lit {
		return true
	}
	if v, _, ok := strings.Cut(t, "@"); ok {
		t = v // go run example.com/cmd@latest
	}
	pattern := strings.TrimSuffix(strings.TrimSuffix(t, "..."), "/")
	switch {
	case pattern == "" || pattern == ".":
		return false
	case strings.HasPrefix(pattern, ".") || strings.HasPrefix(pattern, "/") || strings.HasPrefix(pattern, "~"):
		return w.leavesWorkspace(pattern)
	}
	first, _, _ := strings.Cut(pattern, "/")
	return strings.Contains(first, ".") && !strings.HasSuffix(first, ".go")
}

// pytestElsewhere: pytest-xdist's --tx runs tests in another
// interpreter or on another host (popen//python=/tmp/evil,
// ssh=host//python=…), --rsyncdir copies a directory there, and
// --pyargs imports the tests as packages found on sys.path, wherever
// they are.
func pytestElsewhere(args []word) []string {
	for _, a := range args {
		name, _, _ := strings.Cut(a.text, "=")
		switch name {
		case "--tx", "--rsyncdir", "--pyargs":
			return []string{"runs-outside"}
		case "--pastebin":
			return []string{"uploads"} // sends the test session's output to bpaste.net
		}
		if a.lit && a.text == "-d" {
			return []string{"runs-outside"} // --dist=load over the --tx given
		}
	}
	return nil
}

// cargoElsewhere: cargo -Zscript FILE (or cargo +nightly -Zscript FILE)
// runs a single-file package; from outside the project, someone else's.
func (w walker) cargoElsewhere(args []word) []string {
	script := false
	for i, a := range args {
		t := a.text
		if t == "-Zscript" || t == "-Z" && i+1 < len(args) && args[i+1].text == "script" {
			script = true
			continue
		}
		if script && !strings.HasPrefix(t, "-") && t != "script" && !strings.HasPrefix(t, "+") {
			if !a.lit || w.leavesWorkspace(t) {
				return []string{"runs-outside"}
			}
			return nil
		}
	}
	return nil
}

// makeElsewhere: make -I DIR reads makefiles it includes from DIR, and an
// assignment whose value is a path outside the project (PREFIX=/usr/local,
// DESTDIR=/) moves where the recipes write.
func (w walker) makeElsewhere(args []word) []string {
	var marks []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		var dir string
		switch {
		case t == "-I" || t == "--include-dir":
			if i+1 < len(args) {
				dir = args[i+1].text
				i++
			}
		case strings.HasPrefix(t, "--include-dir="):
			dir = strings.TrimPrefix(t, "--include-dir=")
		case strings.HasPrefix(t, "-I") && len(t) > 2:
			dir = t[2:]
		case a.lit && isAssignment(t):
			_, v, _ := strings.Cut(t, "=")
			if v = strings.TrimLeft(v, "="); v != "" && (strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(path.Clean(v), "..")) && w.outside(v) {
				marks = append(marks, "write-outside")
			}
			continue
		}
		if dir != "" && w.leavesWorkspace(dir) {
			marks = append(marks, "runs-outside")
		}
	}
	return marks
}
