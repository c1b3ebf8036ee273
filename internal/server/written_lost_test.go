package server

import (
	"fmt"
	"testing"

	"github.com/limenhq/limen/action"
)

// TestWrittenForgetsNothingSilently: a flood of writes that pushes a
// written module out of the bounded record leaves its directory asked
// about (the twelfth red-team pass wrote 3,600 files to evict its
// scripts/json.py), and a person's approval of a run there clears it.
func TestWrittenForgetsNothingSilently(t *testing.T) {
	w := newWritten()
	w.max = 8
	write := func(p string) action.Part { return action.Part{Tool: "Write", Subject: p} }
	w.record("ana", []action.Part{write("/p/scripts/json.py")})
	for i := range 20 {
		w.record("ana", []action.Part{write(fmt.Sprintf("/p/build/e/f%d", i))})
	}
	runs := []string{"/p/scripts/gen.py", "/p/scripts/**/*.py"}
	wrote := w.wrote("ana", nil)
	if !wrote(runs[1]) {
		t.Fatal("python3 scripts/gen.py after its module was pushed out of the record: not asked")
	}
	if w.wrote("ana", nil)("/q/**/*.py") {
		t.Error("a run in a directory nothing was written to is asked")
	}
	w.approved("ana", []action.Part{{Tool: "Bash", Runs: runs}})
	if w.wrote("ana", nil)(runs[1]) {
		t.Error("still asked after a person approved running it")
	}
	// Past the bound on lost directories, every run is asked.
	for i := range maxLostDirs + 10 {
		w.record("ana", []action.Part{write(fmt.Sprintf("/d%d/x", i))})
	}
	if !w.wrote("ana", nil)("/q/**/*.py") {
		t.Error("past the bound on lost directories a run is not asked")
	}
}
