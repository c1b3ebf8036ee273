package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/web"
)

// webFlags are the web app's and push's flags; the lists are plain
// comma-separated strings (see classList), so that LIMEN_* and a flag
// replace the default rather than add to it.
type webFlags struct {
	sign, deny string
}

func addWebFlags(f *pflag.FlagSet, cfg *daemon.Config) *webFlags {
	w := &webFlags{}
	f.StringVar(&cfg.Web.Addr, "web-addr", "", "serve the web app (answer asks from a phone; pair it with limenctl pair) over TLS on this address, such as 127.0.0.1:7443; off when empty (env LIMEN_WEB_ADDR)")
	f.StringVar(&cfg.Web.Host, "web-host", "", "the DNS name browsers reach the web app by, which passkeys are bound to (default: localhost for a loopback --web-addr, else its host) (env LIMEN_WEB_HOST)")
	f.StringVar(&cfg.Web.CertFile, "web-cert", "", "the web app's certificate (PEM); default: a self-signed one made in the database's directory on first start, its SHA-256 logged and shown by limenctl pair (env LIMEN_WEB_CERT)")
	f.StringVar(&cfg.Web.KeyFile, "web-key", "", "the private key of --web-cert (env LIMEN_WEB_KEY)")
	f.StringVar(&w.sign, "web-sign-classes", strings.Join(web.DefaultSignClasses, ","), "risk classes whose approval in the web app needs a fresh passkey signature, comma-separated, or none; approving for the session always needs one (env LIMEN_WEB_SIGN_CLASSES)")
	f.StringVar(&cfg.Web.Push.URL, "push-url", "", "send a notification to this ntfy topic URL when an ask is queued, such as https://ntfy.example.com/limen-ana (env LIMEN_PUSH_URL)")
	f.StringVar(&cfg.Web.Push.Token, "push-token", "", "the ntfy access token for --push-url (env LIMEN_PUSH_TOKEN)")
	f.BoolVar(&cfg.Web.Push.FullCommand, "push-full-command", false, "put the whole command in notifications (by default only the tool and the class: a notification crosses the push server and shows on a locked screen) (env LIMEN_PUSH_FULL_COMMAND)")
	f.StringVar(&w.deny, "push-deny-classes", "", "risk classes whose notification offers a one-tap Deny, comma-separated (none by default) (env LIMEN_PUSH_DENY_CLASSES)")
	return w
}

// apply puts the lists into cfg once the flags are parsed.
func (w *webFlags) apply(cfg *daemon.Config) error {
	var err error
	if cfg.Web.SignClasses, err = classList("--web-sign-classes", w.sign); err != nil {
		return err
	}
	if cfg.Web.Push.DenyClasses, err = classList("--push-deny-classes", w.deny); err != nil {
		return err
	}
	if cfg.Web.Addr == "" && cfg.Web.Push.URL != "" {
		return fmt.Errorf("%w: --push-url needs --web-addr: a notification opens the ask in the web app", errUsage)
	}
	return nil
}

// classList reads a comma-separated list of class names; "none" is the
// empty list.
func classList(flag, s string) ([]string, error) {
	out := []string{}
	if strings.TrimSpace(s) == "none" {
		return out, nil
	}
	for c := range strings.SplitSeq(s, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if strings.ContainsAny(c, " \t/") {
			return nil, fmt.Errorf("%w: %s %q: give class names from the policy, comma-separated, such as destructive,secrets", errUsage, flag, c)
		}
		out = append(out, c)
	}
	return out, nil
}
