package service

import (
	"encoding/xml"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// unit parses a unit file into section → key → values, in order.
func unit(t *testing.T, content string) map[string]map[string][]string {
	t.Helper()
	out := map[string]map[string][]string{}
	section := ""
	for i, line := range strings.Split(content, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
			out[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("line %d %q is not key=value in a section", i+1, line)
			}
			out[section][k] = append(out[section][k], v)
		}
	}
	return out
}

// execWords undoes systemdQuote on an ExecStart= line, the way systemd
// reads it: double-quoted words, backslash escapes, %% and $$.
func execWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] != '"' {
			t.Fatalf("ExecStart word not quoted: %q", line)
		}
		var w strings.Builder
		i := 1
		for ; i < len(line) && line[i] != '"'; i++ {
			if line[i] == '\\' {
				i++
			}
			w.WriteByte(line[i])
		}
		if i == len(line) {
			t.Fatalf("unterminated quote in %q", line)
		}
		words = append(words, strings.NewReplacer("%%", "%", "$$", "$").Replace(w.String()))
		line = line[i+1:]
	}
	return words
}

func opts() Options {
	return Options{
		Limend:     "/home/ana/go/bin/limend",
		Socket:     "/run/user/1000/limen/limend.sock",
		HTTPSocket: "/run/user/1000/limen/limend-http.sock",
		DB:         "/home/ana/.local/share/limen/limen.db",
	}
}

func TestSystemdUnits(t *testing.T) {
	o := opts()
	o.Args = []string{"--log-format", "json"}
	files, err := Systemd(o, "/home/ana/.config/systemd/user")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]map[string]map[string][]string{}
	for _, f := range files {
		if filepath.Dir(f.Path) != "/home/ana/.config/systemd/user" {
			t.Errorf("%s is not in the unit directory", f.Path)
		}
		byName[filepath.Base(f.Path)] = unit(t, f.Content)
	}
	svc := byName[ServiceUnit]
	if svc == nil || byName[SocketUnit] == nil || byName[HTTPSocketUnit] == nil {
		t.Fatalf("units written: %v; want %s, %s and %s", slices.Collect(func(yield func(string) bool) {
			for k := range byName {
				yield(k)
			}
		}), ServiceUnit, SocketUnit, HTTPSocketUnit)
	}
	want := []string{o.Limend, "--socket", o.Socket, "--http-socket", o.HTTPSocket, "--db", o.DB, "--log-format", "json"}
	if got := execWords(t, one(t, svc, "Service", "ExecStart")); !slices.Equal(got, want) {
		t.Errorf("ExecStart = %q; want %q", got, want)
	}
	if got := one(t, svc, "Service", "Sockets"); got != SocketUnit+" "+HTTPSocketUnit {
		t.Errorf("Sockets = %q; want both socket units, so limend gets both fds", got)
	}
	if got := one(t, svc, "Service", "Restart"); got != "on-failure" {
		t.Errorf("Restart = %q; want on-failure", got)
	}
	for _, s := range []struct{ unit, path, name string }{
		{SocketUnit, o.Socket, GRPCSocketName}, {HTTPSocketUnit, o.HTTPSocket, HTTPSocketName},
	} {
		u := byName[s.unit]
		if got := one(t, u, "Socket", "ListenStream"); got != s.path {
			t.Errorf("%s ListenStream = %q; want limend's own %q", s.unit, got, s.path)
		}
		if got := one(t, u, "Socket", "FileDescriptorName"); got != s.name {
			t.Errorf("%s FileDescriptorName = %q; want %q, the name limend looks for", s.unit, got, s.name)
		}
		if got := one(t, u, "Socket", "Service"); got != ServiceUnit {
			t.Errorf("%s Service = %q; want %s", s.unit, got, ServiceUnit)
		}
		if got := one(t, u, "Socket", "SocketMode"); got != "0600" {
			t.Errorf("%s SocketMode = %q; want 0600: only the user may connect", s.unit, got)
		}
		if got := one(t, u, "Install", "WantedBy"); got != "sockets.target" {
			t.Errorf("%s WantedBy = %q; want sockets.target, so it listens from login", s.unit, got)
		}
	}
}

func one(t *testing.T, u map[string]map[string][]string, section, key string) string {
	t.Helper()
	v := u[section][key]
	if len(v) != 1 {
		t.Fatalf("[%s] %s = %q; want one value", section, key, v)
	}
	return v[0]
}

// TestSystemdQuoting gives paths with what systemd would otherwise split
// or expand: a space, a quote, a backslash, %h and $HOME.
func TestSystemdQuoting(t *testing.T) {
	o := opts()
	o.Limend = `/home/ana/my bin/li"m\end`
	o.DB = "/home/ana/100%h/$HOME/limen.db"
	o.Socket = "/run/user/1000/50%/limend.sock"
	files, err := Systemd(o, "/u")
	if err != nil {
		t.Fatal(err)
	}
	svc := unit(t, files[2].Content)
	got := execWords(t, one(t, svc, "Service", "ExecStart"))
	if got[0] != o.Limend || got[6] != o.DB || got[2] != o.Socket {
		t.Errorf("ExecStart reads back as %q", got)
	}
	if ls := one(t, unit(t, files[0].Content), "Socket", "ListenStream"); ls != "/run/user/1000/50%%/limend.sock" {
		t.Errorf("ListenStream = %q; want the %% doubled", ls)
	}
}

func TestCheckRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"relative binary", func(o *Options) { o.Limend = "bin/limend" }, "absolute"},
		{"relative socket", func(o *Options) { o.Socket = "limend.sock" }, "--socket"},
		{"newline", func(o *Options) { o.DB = "/a\n[Service]\nExecStart=/bin/sh" }, "control character"},
		{"socket in args", func(o *Options) { o.Args = []string{"--socket=/tmp/x.sock"} }, "limenctl's own --socket"},
		{"db in args", func(o *Options) { o.Args = []string{"--log-format", "json", "--db", "/tmp/x.db"} }, "limenctl's own --db"},
		{"no db", func(o *Options) { o.DB = "" }, "--db"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := opts()
			c.edit(&o)
			_, err := Systemd(o, "/u")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Systemd = %v; want an error saying %q", err, c.want)
			}
			if _, err := Launchd(o, "/a", "/l/e.log"); err == nil {
				t.Fatal("Launchd took what Systemd refused")
			}
		})
	}
}

// plist reads the keys of a launchd plist's top dict: strings, booleans,
// arrays of strings, and one level of nested dict as "outer.inner".
func plist(t *testing.T, content string) map[string][]string {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(content))
	out := map[string][]string{}
	var keys []string // the last key at each dict depth
	var text string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("plist is not well-formed XML: %v\n%s", err, content)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			text = ""
			if tok.Name.Local == "dict" {
				keys = append(keys, "")
			}
		case xml.CharData:
			text += string(tok)
		case xml.EndElement:
			name := strings.Join(keys, ".")
			switch tok.Name.Local {
			case "dict":
				keys = keys[:len(keys)-1]
			case "key":
				keys[len(keys)-1] = text
			case "string", "integer":
				out[name] = append(out[name], text)
			case "true", "false":
				out[name] = append(out[name], tok.Name.Local)
			}
		}
	}
	return out
}

func TestLaunchdAgent(t *testing.T) {
	o := opts()
	o.Limend = "/Users/ana/go/bin/limend & <co>"
	o.LogFile = "/Users/ana/Library/Logs/limen/limend.log"
	f, err := Launchd(o, "/Users/ana/Library/LaunchAgents", "/Users/ana/Library/Logs/limen/limend.stderr.log")
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != "/Users/ana/Library/LaunchAgents/"+LaunchdLabel+".plist" {
		t.Errorf("plist path %s", f.Path)
	}
	p := plist(t, f.Content)
	want := []string{o.Limend, "--socket", o.Socket, "--http-socket", o.HTTPSocket, "--db", o.DB, "--log-file", o.LogFile}
	if got := p["ProgramArguments"]; !slices.Equal(got, want) {
		t.Errorf("ProgramArguments = %q; want %q", got, want)
	}
	for key, want := range map[string]string{
		"Label": LaunchdLabel, "RunAtLoad": "true", "KeepAlive.SuccessfulExit": "false",
		"StandardErrorPath": "/Users/ana/Library/Logs/limen/limend.stderr.log", "Umask": "63",
	} {
		if got := p[key]; len(got) != 1 || got[0] != want {
			t.Errorf("%s = %q; want %q", key, got, want)
		}
	}
}
