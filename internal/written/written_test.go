package written

import (
	"fmt"
	"testing"
)

// TestForgetsNothingSilently: a flood of writes that pushes a written
// module out of the bounded record leaves its directory asked about (the
// twelfth red-team pass wrote 3,600 files to evict its scripts/json.py),
// and a person's approval of a run there clears it.
func TestForgetsNothingSilently(t *testing.T) {
	r := New(8, nil)
	r.Add("ana", []string{"/p/scripts/json.py"})
	for i := range 20 {
		r.Add("ana", []string{fmt.Sprintf("/p/build/e/f%d", i)})
	}
	runs := []string{"/p/scripts/gen.py", "/p/scripts/**/*notdata"}
	if !r.Wrote("ana", runs[1], Pending{}) {
		t.Fatal("python3 scripts/gen.py after its module was pushed out of the record: not asked")
	}
	if r.Wrote("ana", "/q/**/*notdata", Pending{}) {
		t.Error("a run in a directory nothing was written to is asked")
	}
	r.Allowed("ana", runs)
	if r.Wrote("ana", runs[1], Pending{}) {
		t.Error("still asked after a person approved running it")
	}
	// Past the bound on lost directories, every run is asked.
	for i := range maxLostDirs + 10 {
		r.Add("ana", []string{fmt.Sprintf("/d%d/x", i)})
	}
	for i := range 20 {
		r.Add("ana", []string{fmt.Sprintf("/e/f%d", i)})
	}
	if !r.Wrote("ana", "/q/**/*notdata", Pending{}) {
		t.Error("past the bound on lost directories a run is not asked")
	}
}

// TestTreesAreAskedUntilRunWhole: an extracted archive's files are
// unknown, so every run at or below its tree is asked. Allowing git,
// which runs only its hooks and config there, stops git's asks and no
// one else's; allowing a runner of the whole tree forgets it; extracting
// again asks git again.
func TestTreesAreAskedUntilRunWhole(t *testing.T) {
	r := New(MaxPerUser, nil)
	git := []string{"/p/.git/", "/p/.githooks/"}
	make := []string{"/p/**/*notdata", "/p/**/package.json"}
	r.Add("ana", []string{"/p/"})
	for _, run := range []string{git[0], make[0], "/p/scripts/x.sh", "/p/sub/**/*notdata", "/**/*notdata"} {
		if !r.Wrote("ana", run, Pending{}) {
			t.Errorf("%s after an archive was extracted in /p: not asked", run)
		}
	}
	for _, run := range []string{"/q/**/*notdata", "/q/x.sh"} {
		if r.Wrote("ana", run, Pending{}) {
			t.Errorf("%s, outside the extracted tree: asked", run)
		}
	}
	r.Allowed("ana", git)
	if r.Wrote("ana", git[0], Pending{}) {
		t.Error("git asked again after a person allowed it")
	}
	if !r.Wrote("ana", make[0], Pending{}) {
		t.Error("make allowed after only git was: git's approval vouched for the whole tree")
	}
	r.Add("ana", []string{"/p/"})
	if !r.Wrote("ana", git[0], Pending{}) {
		t.Error("git not asked after a second extraction")
	}
	r.Allowed("ana", make)
	for _, run := range append(git, make...) {
		if r.Wrote("ana", run, Pending{}) {
			t.Errorf("%s asked after a person allowed running the whole tree", run)
		}
	}
	// A tree below the allowed run's directory is covered; one above is
	// not: another directory's runs are still asked.
	r.Add("ana", []string{"/p/vendor/", "/"})
	r.Allowed("ana", []string{"/p/**/*notdata"})
	if !r.Wrote("ana", "/q/**/*notdata", Pending{}) {
		t.Error("an archive extracted at / is covered by allowing make in /p")
	}
}

// TestRestoresAskAboutOtherContent: a file a person allowed, put back by
// git, is asked about only when its content is not what they allowed;
// where git's objects hold what limen never saw written, a restore is a
// tree written; a restore in an earlier part of the same action asks
// about the files it may put back.
func TestRestoresAskAboutOtherContent(t *testing.T) {
	content := map[string]string{}
	r := New(MaxPerUser, func(p string) string { return content[p] })
	build, runs := "/p/scripts/build.js", []string{"/p/**/*notdata"}
	r.Add("ana", []string{build})
	content[build] = "clean" // stashed while the person approved
	r.Allowed("ana", runs)
	r.Restore("ana", []string{"/p"})
	if r.Wrote("ana", runs[0], Pending{}) {
		t.Fatal("asked after git put back what was allowed")
	}
	content[build] = "evil" // popped
	if !r.Wrote("ana", runs[0], Pending{}) {
		t.Fatal("not asked after git put back other content than was allowed")
	}
	r.Allowed("ana", runs)
	if !r.Wrote("ana", runs[0], Pending{Restores: []string{"/p"}}) {
		t.Error("a restore earlier in the same action is not asked about")
	}
	if r.Wrote("ana", "/q/**/*notdata", Pending{Restores: []string{"/p"}}) {
		t.Error("a restore in /p asks about runs in /q")
	}
	// A file that cannot be read (a replica that does not see the
	// laptop's files) is not known to be what was allowed.
	r.Allowed("ana", runs)
	delete(content, build)
	r.Restore("ana", []string{"/p"})
	if !r.Wrote("ana", runs[0], Pending{}) {
		t.Error("a restored file that cannot be read is taken to be what was allowed")
	}
	r.Import("ana", []string{"/p"})
	r.Restore("ana", []string{"/p"})
	if !r.Wrote("ana", "/p/.git/", Pending{}) {
		t.Error("a checkout of what was fetched from elsewhere is not a tree written")
	}
}
