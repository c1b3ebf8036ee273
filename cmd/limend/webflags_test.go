package main

import (
	"errors"
	"slices"
	"testing"

	"github.com/limenhq/limen/internal/daemon"
)

func TestWebFlags(t *testing.T) {
	for _, tt := range []struct {
		name       string
		w          webFlags
		addr, push string
		sign, deny []string
		usage      bool
	}{
		{name: "defaults", w: webFlags{sign: "destructive,secrets,network-exfiltration"}, addr: "127.0.0.1:7443",
			sign: []string{"destructive", "secrets", "network-exfiltration"}, deny: []string{}},
		{name: "none signs nothing", w: webFlags{sign: "none", deny: "destructive, secrets"}, addr: "127.0.0.1:7443",
			sign: []string{}, deny: []string{"destructive", "secrets"}},
		{name: "a path is no class", w: webFlags{sign: "destructive,/etc"}, usage: true},
		{name: "push needs the web app", w: webFlags{}, push: "https://ntfy.example.com/t", usage: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := daemon.Config{}
			cfg.Web.Addr, cfg.Web.Push.URL = tt.addr, tt.push
			err := tt.w.apply(&cfg)
			if tt.usage {
				if !errors.Is(err, errUsage) {
					t.Errorf("apply = %v; want a usage error", err)
				}
				return
			}
			if err != nil || !slices.Equal(cfg.Web.SignClasses, tt.sign) || !slices.Equal(cfg.Web.Push.DenyClasses, tt.deny) {
				t.Errorf("apply = %v: sign %q, deny %q; want %q, %q", err, cfg.Web.SignClasses, cfg.Web.Push.DenyClasses, tt.sign, tt.deny)
			}
		})
	}
}
