package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"

	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/limenhq/limen/internal/paths"
)

// logOptions are limend's --log-* flags.
type logOptions struct {
	level  string
	format string // text or json
	file   string // empty: stderr (the journal under systemd)
	// maxSizeMB is the size at which the log file is rotated.
	maxSizeMB int
}

// logBackups is how many rotated log files are kept beside the live one.
const logBackups = 5

// newLogger builds limend's logger: slog text or JSON, on stderr or in a
// file rotated by size. The returned close flushes and closes the file.
func newLogger(o logOptions, stderr io.Writer) (*slog.Logger, func() error, error) {
	level, err := parseLevel(o.level)
	if err != nil {
		return nil, nil, err
	}
	hopts := &slog.HandlerOptions{Level: level}
	w, closeLog := stderr, func() error { return nil }
	switch {
	case o.file != "":
		if o.maxSizeMB < 1 {
			return nil, nil, fmt.Errorf("%w: --log-max-size %d (LIMEN_LOG_MAX_SIZE): give the size in megabytes at which the log is rotated, 1 or more, such as 20", errUsage, o.maxSizeMB)
		}
		f, err := openLogFile(o.file)
		if err != nil {
			return nil, nil, err
		}
		lj := &lumberjack.Logger{Filename: f, MaxSize: o.maxSizeMB, MaxBackups: logBackups}
		w, closeLog = lj, lj.Close
	case underJournal(stderr):
		// The journal stamps every line itself; a second time is noise.
		hopts.ReplaceAttr = func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		}
	}
	var h slog.Handler
	switch o.format {
	case "text":
		h = slog.NewTextHandler(w, hopts)
	case "json":
		h = slog.NewJSONHandler(w, hopts)
	default:
		closeLog()
		return nil, nil, fmt.Errorf("%w: --log-format %q (LIMEN_LOG_FORMAT): use text or json", errUsage, o.format)
	}
	return slog.New(h), closeLog, nil
}

// openLogFile checks that the log file can be written before limend
// starts (the rotating writer would otherwise only fail, unseen, on the
// first line) and that nobody else can read or replace it: the log names
// the actions agents ask about. Its directory is made 0700 if it is
// missing. It returns the absolute path.
func openLogFile(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("--log-file %s: %w", path, err)
	}
	if err := paths.CheckPrivate(abs, paths.Use{What: "log file", Flag: "--log-file"}); err != nil {
		if pe := (*paths.PrivateError)(nil); errors.As(err, &pe) {
			return "", err // it names the flag and the fix
		}
		return "", fmt.Errorf("--log-file %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return "", fmt.Errorf("--log-file %s: create its directory: %w", path, err)
	}
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return "", fmt.Errorf("--log-file %s: %w: give a file limend's user can write", path, err)
	}
	return abs, f.Close()
}

// underJournal reports whether w is the stderr that systemd connected to
// the journal: JOURNAL_STREAM names its device and inode.
func underJournal(w io.Writer) bool {
	want := os.Getenv("JOURNAL_STREAM")
	f, ok := w.(*os.File)
	if want == "" || !ok {
		return false
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return false
	}
	return want == fmt.Sprintf("%d:%d", st.Dev, st.Ino)
}
