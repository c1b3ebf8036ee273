package action

import "testing"

// TestReadsTreeOutside has a case per row of outsideTreeReaders, and the
// red-team pass's spellings: a tree read of a directory outside the
// workspace is marked; of the workspace, /tmp, or without the recursive
// flag it is not.
func TestReadsTreeOutside(t *testing.T) {
	rows := map[string][2]string{
		"rg":     {"rg x ..", "rg x src"},
		"ag":     {"ag x ~/other", "ag x"},
		"ack":    {"ack x /etc", "ack x src"},
		"tar":    {"tar czf /tmp/x.tgz ..", "tar czf /tmp/x.tgz src"},
		"gtar":   {"gtar cf - /root", "gtar cf - ."},
		"bsdtar": {"bsdtar cf x.tar ~", "bsdtar cf x.tar src"},
		"7z":     {"7z a x.7z /home", "7z a x.7z src"},
		"du":     {"du -sh ~", "du -sh ."},
		"find":   {"find / -name id_rsa", "find . -name '*.go'"},
		"fd":     {"fd key ~", "fd key src"},
		"fdfind": {"fdfind key /", "fdfind key"},
		"tree":   {"tree ~", "tree src"},
		"ncdu":   {"ncdu /", "ncdu ."},
		"zip":    {"zip -r x.zip ..", "zip x.zip ../a.txt"},
		"grep":   {"grep -rn SECRET ..", "grep -rn TODO src"},
		"egrep":  {"egrep -r x /etc", "egrep x /etc/hosts"},
		"fgrep":  {"fgrep -R x ~", "fgrep -R x src"},
		"ugrep":  {"ugrep -r x ..", "ugrep -r x ."},
		"ls":     {"ls -R /root", "ls -la /root"},
		"cp":     {"cp -r ../other/src vendored", "cp ../a.txt ."},
		"rsync":  {"rsync -a ~/ backup/", "rsync -a src/ backup/"},
		"diff":   {"diff -r . ~", "diff -r src vendor/src"},
	}
	for prog := range outsideTreeReaders {
		c, ok := rows[prog]
		if !ok {
			t.Errorf("row %q of outsideTreeReaders has no test", prog)
			continue
		}
		checkMark(t, c[0], "reads-tree-outside", true)
		checkMark(t, c[1], "reads-tree-outside", false)
	}
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{"grep -rn SECRET src ..", true},
		{"rg -n \"func main\" cmd ..", true},
		{"ls -R ~", true},
		{"ls --recursive /", true},
		{"grep -r x ../../", true},
		{"grep --recursive x /srv", true},
		{"rg -uu x /", true},
		{"grep -r x /tmp/build", false},
		{"rg TODO", false},
		{"grep -rn TODO .", false},
	} {
		checkMark(t, c.cmd, "reads-tree-outside", c.want)
	}
}
