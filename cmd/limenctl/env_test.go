package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnvOnlyThroughTable: no file of limenctl but env.go reads the
// environment, so the table in env.go is every variable limenctl reads.
func TestEnvOnlyThroughTable(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if name == "env.go" || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && (pkg.Name == "os" || pkg.Name == "syscall") {
				switch sel.Sel.Name {
				case "Getenv", "LookupEnv", "Environ", "ExpandEnv":
					t.Errorf("%s: %s.%s: read the environment through env.go's table", fset.Position(sel.Pos()), pkg.Name, sel.Sel.Name)
				}
			}
			return true
		})
	}
}

// TestEnvInHelp: limenctl --help lists every variable of the table, and
// each variable that is a flag's default is that flag's default and is
// named in the flag's help.
func TestEnvInHelp(t *testing.T) {
	code, help := limenctl(t, "--help")
	if code != exitOK {
		t.Fatalf("--help: exit %d", code)
	}
	seen := map[string]bool{}
	for _, e := range envVars {
		if seen[e.name] {
			t.Errorf("%s is in the table twice", e.name)
		}
		seen[e.name] = true
		if !strings.Contains(help, "\n  "+e.name+" ") {
			t.Errorf("limenctl --help does not list %s:\n%s", e.name, help)
		}
		if e.flag == "" {
			continue
		}
		t.Run(e.name, func(t *testing.T) {
			value := "/from/" + e.name
			t.Setenv(e.name, value)
			root := newRoot(&app{out: io.Discard, errOut: io.Discard})
			words := strings.Fields(e.flag)
			cmd, _, err := root.Find(words[:len(words)-1])
			if err != nil {
				t.Fatal(err)
			}
			f := cmd.Flag(strings.TrimPrefix(words[len(words)-1], "--"))
			if f == nil {
				t.Fatalf("%s has no flag %s", cmd.CommandPath(), words[len(words)-1])
			}
			if f.DefValue != value {
				t.Errorf("with %s=%s, %s defaults to %q", e.name, value, e.flag, f.DefValue)
			}
			if !strings.Contains(f.Usage, e.name) {
				t.Errorf("the help of %s does not name %s: %q", e.flag, e.name, f.Usage)
			}
		})
	}
}
