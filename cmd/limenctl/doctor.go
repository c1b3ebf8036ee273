package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/limenhq/limen/internal/paths"
	"github.com/limenhq/limen/internal/version"
)

// Levels of a doctor finding. Only fail turns doctor red (exit 1): a warn
// is worth fixing but limen still fails closed with it.
const (
	levelOK   = "ok"
	levelWarn = "warn"
	levelFail = "fail"
)

// minFreeDisk is the free space below which doctor warns: limend appends
// every decision to its database, and bbolt needs room to grow the file.
const minFreeDisk = 100 << 20

// finding is one line of doctor's report.
type finding struct {
	Check  string `json:"check"`
	Level  string `json:"level"`
	Detail string `json:"detail"`
	// Fix is the command (or edit) that fixes a warn or fail.
	Fix string `json:"fix,omitempty"`
}

// doctor holds what the checks look at; tests replace the clock, the disk
// and the build time.
type doctor struct {
	a         *app
	socket    string
	db        string
	home, cwd string
	now       time.Time
	built     time.Time // limenctl's build (VCS commit) time; zero if unknown
	mine      version.Info
	freeSpace func(dir string) (uint64, error)
	findings  []finding
	// reported are the settings files and binaries already reported as
	// inside the project: once each, not once per hook event.
	reported map[string]bool
}

func (d *doctor) add(check, level, detail, fix string) {
	d.findings = append(d.findings, finding{check, level, detail, fix})
}

func newDoctorCmd(a *app) *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that limen is installed and running safely, and say how to fix what is not",
		Long: `doctor checks, one line each, what limen needs to protect you:

  limend       it answers on its socket, and is the same build as limenctl
  socket       the socket's directory is 0700 and the sockets 0600, all yours:
               anyone who can open them can ask and answer as you
  database     the database and its directory are yours and private
  disk         there is room for the database to grow
  clock        the clock is not before limenctl was built (asks expire, and
               answers fade, by the clock)
  hooks        each runtime hook that runs limen-hook (Claude Code's
               settings.json and settings.local.json, in ~/.claude and in this
               project's .claude; Codex's hooks.json and config.toml; Gemini
               CLI's settings.json): limen-hook exists and runs, the format is
               the runtime's, onFailure is "block" (Claude Code), Codex trusts
               the hook as it is now, and the runtime waits longer than
               limen-hook's own --timeout; Claude Code's "type": "http" hooks
               to limend's hook API get the same checks but the binary's.
               doctor never runs a limen-hook inside the directory it runs
               in (a project could bring one): that fails, except a build
               of limen's own source tree named by your own settings, a
               warning (run doctor elsewhere to have it checked)
  runtime      the version of each runtime with limen's hook (claude, codex,
               gemini on $PATH) against the one docs/integrations.md verified

Every warning and failure comes with the command or edit that fixes it.
With --json it prints {"ok": BOOL, "checks": [{"check", "level" (ok, warn
or fail), "detail", "fix"}]}.
doctor exits 0 when nothing failed (warnings allowed) and 1 when something
did; limend being down is a failure, not exit 3.`,
		Example: `  limenctl doctor
  limenctl doctor --json
  limenctl doctor --db /srv/limen/limen.db   # limend runs with --db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := newDoctor(a, db)
			if err != nil {
				return err
			}
			ctx, cancel := a.ctx(cmd)
			defer cancel()
			d.run(ctx)
			return d.report()
		},
	}
	cmd.Flags().StringVar(&db, "db", envDB.get(), "the database limend uses, if not the default (env LIMEN_DB)")
	return cmd
}

func newDoctor(a *app, db string) (*doctor, error) {
	d := &doctor{a: a, socket: a.socket, db: db, now: time.Now(), mine: version.Get(), freeSpace: freeSpace}
	var err error
	if d.socket == "" {
		if d.socket, err = paths.Socket(); err != nil {
			return nil, err
		}
	}
	if d.db == "" {
		if d.db, err = paths.DB(); err != nil {
			return nil, err
		}
	}
	if d.home, err = os.UserHomeDir(); err != nil {
		return nil, fmt.Errorf("find your home directory: %w; set HOME", err)
	}
	if d.cwd, err = os.Getwd(); err != nil {
		return nil, err
	}
	d.built = buildTime()
	return d, nil
}

// project is the directory doctor treats as a project (whose hook
// settings it reads, and whose programs it never runs): the working
// directory, unless that is the home directory or above it, which hold
// the person's own programs (~/go/bin) and settings, not a project's.
func (d *doctor) project() string {
	cwd, home := filepath.Clean(d.cwd), filepath.Clean(d.home)
	if cwd == "/" || cwd == home || strings.HasPrefix(home, cwd+string(filepath.Separator)) {
		return ""
	}
	return cwd
}

func (d *doctor) run(ctx context.Context) {
	d.checkLimend(ctx)
	d.checkSockets()
	d.checkDatabase()
	d.checkDisk()
	d.checkClock()
	d.checkHooks(ctx)
}

// report prints the findings and ends with exit 1 when one failed.
func (d *doctor) report() error {
	failed := false
	for _, f := range d.findings {
		failed = failed || f.Level == levelFail
	}
	if d.a.json {
		if err := d.a.printJSON(map[string]any{"ok": !failed, "checks": d.findings}); err != nil {
			return err
		}
	} else {
		for _, f := range d.findings {
			fmt.Fprintf(d.a.out, "%-4s  %-8s  %s\n", map[string]string{levelOK: "ok", levelWarn: "WARN", levelFail: "FAIL"}[f.Level], f.Check, f.Detail)
			if f.Fix != "" {
				fmt.Fprintf(d.a.out, "%16s%s\n", "fix: ", f.Fix)
			}
		}
		if failed {
			fmt.Fprintln(d.a.out, "\nlimen is not set up safely: run the fixes above, then limenctl doctor again.")
		}
	}
	if failed {
		return verdictExit{exitFailure}
	}
	return nil
}

func (d *doctor) checkLimend(ctx context.Context) {
	c, err := d.a.dial()
	if err == nil {
		defer c.Close()
		_, err = c.Health.Check(ctx, &healthpb.HealthCheckRequest{})
	}
	if err != nil {
		_, msg := classify(err, d.socket, "limenctl doctor")
		text, hint, _ := strings.Cut(msg, "\nhint: ")
		d.add("limend", levelFail, text, hint)
		return
	}
	v, err := limendVersion(ctx, c)
	if err != nil {
		_, msg := classify(err, d.socket, "limenctl doctor")
		d.add("limend", levelFail, "running at "+d.socket+", but it would not say its version: "+msg, "")
		return
	}
	if w := versionWarning(d.mine, v); w != "" {
		d.add("limend", levelFail, "running at "+d.socket+"; "+strings.SplitN(w, ": install", 2)[0],
			"go install github.com/limenhq/limen/cmd/...@latest (or from one source tree), then restart limend")
		return
	}
	d.add("limend", levelOK, "running at "+d.socket+", "+v.String()+", the same build as limenctl", "")
}

func (d *doctor) checkSockets() {
	dir := filepath.Dir(d.socket)
	if fi, err := os.Stat(dir); err == nil {
		d.private("socket", dir, fi, 0o700)
	}
	for _, s := range []string{d.socket, paths.HTTPSocketFor(d.socket)} {
		fi, err := os.Lstat(s)
		if errors.Is(err, fs.ErrNotExist) {
			continue // limend down is the limend check's
		}
		if err != nil {
			d.add("socket", levelFail, err.Error(), "")
			continue
		}
		if fi.Mode().Type() != fs.ModeSocket {
			d.add("socket", levelFail, s+" is not a socket (it is "+fi.Mode().Type().String()+")",
				"stop limend, rm "+shellQuote(s)+", and start limend again")
			continue
		}
		d.private("socket", s, fi, 0o600)
	}
}

// private checks that path is yours and that group and others have no
// access; want is the mode limend creates it with.
func (d *doctor) private(check, path string, fi fs.FileInfo, want fs.FileMode) {
	if uid, ok := ownerOf(fi); ok && uid != uint32(os.Getuid()) {
		d.add(check, levelFail, fmt.Sprintf("%s belongs to uid %d, not to you (uid %d): its owner can read or answer your asks", path, uid, os.Getuid()),
			"stop the limend that uid runs, or pass limenctl and limend a --socket / --db of your own")
		return
	}
	mode := fi.Mode().Perm()
	if mode&0o077 != 0 {
		d.add(check, levelFail, fmt.Sprintf("%s has mode %04o: other users can open it, and with it ask and answer as you", path, mode),
			fmt.Sprintf("chmod %o %s", want, shellQuote(path)))
		return
	}
	d.add(check, levelOK, fmt.Sprintf("%s is yours, mode %04o", path, mode), "")
}

func (d *doctor) checkDatabase() {
	fi, err := os.Stat(d.db)
	if errors.Is(err, fs.ErrNotExist) {
		d.add("database", levelWarn, "no database at "+d.db+" (limend creates it on its first start)",
			"if limend runs with --db or LIMEN_DB, run limenctl doctor --db PATH")
		return
	}
	if err != nil {
		d.add("database", levelFail, err.Error(), "")
		return
	}
	if dfi, err := os.Stat(filepath.Dir(d.db)); err == nil {
		d.private("database", filepath.Dir(d.db), dfi, 0o700)
	}
	d.private("database", d.db, fi, 0o600)
}

func (d *doctor) checkDisk() {
	dir := filepath.Dir(d.db)
	for {
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	free, err := d.freeSpace(dir)
	switch {
	case err != nil:
		d.add("disk", levelWarn, "cannot tell the free space of "+dir+": "+err.Error(), "")
	case free < minFreeDisk:
		d.add("disk", levelWarn, fmt.Sprintf("%s has %s free, under %s: when it fills, limend cannot record answers and every call becomes ask", dir, mib(free), mib(minFreeDisk)),
			"free space on that file system, or move the database with limend --db")
	default:
		d.add("disk", levelOK, fmt.Sprintf("%s free for the database in %s", mib(free), dir), "")
	}
}

func mib(n uint64) string { return fmt.Sprintf("%d MiB", n>>20) }

// clockSlack forgives a clock a little behind a build made on another
// machine.
const clockSlack = 5 * time.Minute

func (d *doctor) checkClock() {
	if d.built.IsZero() {
		d.add("clock", levelOK, d.now.UTC().Format(time.RFC3339)+" (limenctl's build time is unknown, so only shown)", "")
		return
	}
	if d.now.Add(clockSlack).Before(d.built) {
		d.add("clock", levelFail, fmt.Sprintf("the clock says %s, before limenctl was built (%s): asks would expire and answers fade at the wrong times",
			d.now.UTC().Format(time.RFC3339), d.built.UTC().Format(time.RFC3339)), clockFix())
		return
	}
	d.add("clock", levelOK, d.now.UTC().Format(time.RFC3339)+", after limenctl's build", "")
}

func clockFix() string {
	if runtime.GOOS == "darwin" {
		return "sudo sntp -sS time.apple.com"
	}
	return "sudo timedatectl set-ntp true"
}

// buildTime is the time of the commit limenctl was built from, else the
// executable's modification time, else zero.
func buildTime() time.Time {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" {
				if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
					return t
				}
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			return fi.ModTime()
		}
	}
	return time.Time{}
}

// freeSpace is the space an unprivileged process may still use under dir.
func freeSpace(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}

// ownerOf is the uid that owns a file, where the system says.
func ownerOf(fi fs.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}

// runHookVersion runs `limen-hook --version` and returns what it printed.
func runHookVersion(ctx context.Context, bin string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return string(out), err
	}
	return strings.TrimSpace(string(out)), nil
}
