package daemon

import (
	"context"
	"path/filepath"

	"github.com/limenhq/limen/internal/web"
)

// startWeb starts the web app when cfg.Web.Addr is set, keeping its
// certificate and session key beside the database unless told otherwise,
// and connects it to the service's pairing calls.
func (d *Daemon) startWeb() error {
	wc := d.cfg.Web
	if wc.Addr == "" {
		return nil
	}
	if wc.Dir == "" {
		wc.Dir = filepath.Dir(d.cfg.DB)
	}
	if wc.Logger == nil {
		wc.Logger = d.log.With("component", "web")
	}
	app, err := web.Start(wc, d.svc, d.store)
	if err != nil {
		return err
	}
	d.web = app
	d.svc.SetDevices(app)
	return nil
}

// Web returns the web app, or nil when it is off.
func (d *Daemon) Web() *web.App { return d.web }

func (d *Daemon) stopWeb(ctx context.Context) {
	if d.web != nil {
		d.web.Shutdown(ctx)
	}
}

// webKeys are the web app's secrets: the session key (with it, anyone can
// make a session cookie) and the certificate's private key. Reading one
// is a secret read and changing one a control, as for etcd's client key.
func webKeys(cfg Config) []string {
	if cfg.Web.Addr == "" {
		return nil
	}
	dir := cfg.Web.Dir
	if dir == "" {
		dir = filepath.Dir(cfg.DB)
	}
	files := []string{filepath.Join(dir, "web-session.key"), filepath.Join(dir, "web-key.pem"), filepath.Join(dir, "web-cert.pem")}
	if cfg.Web.KeyFile != "" {
		files = append(files, cfg.Web.KeyFile)
	}
	var out []string
	for _, f := range files {
		if a, err := filepath.Abs(f); err == nil {
			out = append(out, a)
		}
	}
	return out
}
