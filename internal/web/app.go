package web

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/limenhq/limen/internal/server"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Service is what the web app needs of limend's service: *server.Server.
// Every call runs as the device's user (server.WithWebCaller).
type Service interface {
	ListPending(context.Context, *limenv1.ListPendingRequest) (*limenv1.ListPendingResponse, error)
	WatchPending(*limenv1.WatchPendingRequest, limenv1.DecisionService_WatchPendingServer) error
	Answer(context.Context, *limenv1.AnswerRequest) (*limenv1.AnswerResponse, error)
	Await(context.Context, *limenv1.AwaitRequest) (*limenv1.AwaitResponse, error)
	GetPolicy(context.Context, *limenv1.GetPolicyRequest) (*limenv1.GetPolicyResponse, error)
	SetPolicy(context.Context, *limenv1.SetPolicyRequest) (*limenv1.SetPolicyResponse, error)
}

// DefaultSignClasses are the risk classes (of the default policy) whose
// approval on the web needs a fresh passkey signature.
var DefaultSignClasses = []string{"destructive", "secrets", "network-exfiltration"}

// Config configures the web app.
type Config struct {
	// Addr is where to listen, such as 127.0.0.1:7443.
	Addr string
	// Host is the name browsers reach the app by, which passkeys are
	// bound to (the WebAuthn RP ID). Empty: localhost when Addr is a
	// loopback or unspecified address, else Addr's host. Passkeys refuse
	// IP addresses, so a phone needs a DNS name for limend's machine.
	Host string
	// Dir holds the self-signed certificate and the session key.
	Dir string
	// CertFile and KeyFile are the operator's certificate; empty means a
	// self-signed one in Dir, made on first start.
	CertFile, KeyFile string
	// SignClasses are the classes whose approval needs a fresh passkey
	// signature; nil means DefaultSignClasses. Approving for the session
	// always needs one.
	SignClasses []string
	// Push sends a notification when an ask is queued (push.go).
	Push   PushConfig
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// App is the running web app.
type App struct {
	cfg     Config
	svc     Service
	devices store.DeviceStore
	log     *slog.Logger
	now     func() time.Time

	lis         net.Listener
	srv         *http.Server
	base        string // https://host:port
	fingerprint string
	wa          *webauthn.WebAuthn
	sess        sessions
	sign        map[string]bool
	tmpl        *template.Template
	push        *pusher

	mu         sync.Mutex
	pairings   map[string]*pairing
	challenges map[string]*challenge
	streams    map[string]map[*int]context.CancelFunc // device id → live event streams
	polVer     uint64
	pol        *policy.Policy
	owner      string // limend's own OS user, the only one who may change the policy

	stopping chan struct{}
	stopOnce sync.Once
	served   chan struct{}
}

// Start listens on cfg.Addr with TLS and serves the web app for svc,
// keeping devices in st.
func Start(cfg Config, svc Service, st store.DeviceStore) (*App, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	host, err := rpHost(cfg.Addr, cfg.Host)
	if err != nil {
		return nil, err
	}
	cert, made, err := loadOrMakeCert(cfg.Dir, cfg.CertFile, cfg.KeyFile, []string{host, "localhost", "127.0.0.1", "::1"})
	if err != nil {
		return nil, err
	}
	key, err := loadOrMakeKey(cfg.Dir)
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("parse the web app's templates: %w", err)
	}
	a := &App{
		cfg: cfg, svc: svc, devices: st, log: cfg.Logger, now: cfg.Now,
		sess: sessions{key: key, now: cfg.Now}, sign: map[string]bool{}, tmpl: tmpl,
		pairings: map[string]*pairing{}, challenges: map[string]*challenge{},
		streams: map[string]map[*int]context.CancelFunc{}, stopping: make(chan struct{}), served: make(chan struct{}),
	}
	classes := cfg.SignClasses
	if classes == nil {
		classes = DefaultSignClasses
	}
	for _, c := range classes {
		a.sign[c] = true
	}
	if u, err := user.Current(); err == nil {
		a.owner = u.Username
	}
	if leaf, err := x509.ParseCertificate(cert.Certificate[0]); err == nil {
		a.fingerprint = Fingerprint(leaf.Raw)
	}
	a.lis, err = net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on --web-addr %s: %w", cfg.Addr, err)
	}
	port := a.lis.Addr().(*net.TCPAddr).Port
	a.base = "https://" + net.JoinHostPort(host, strconv.Itoa(port))
	a.wa, err = webauthn.New(&webauthn.Config{RPID: host, RPDisplayName: "limen", RPOrigins: []string{a.base}})
	if err != nil {
		a.lis.Close()
		return nil, fmt.Errorf("set up passkeys for %s: %w", host, err)
	}
	if a.push, err = newPusher(cfg.Push, a); err != nil {
		a.lis.Close()
		return nil, err
	}
	a.srv = &http.Server{
		Handler:           a.Handler(),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute, // no WriteTimeout: the event stream stays open
		ErrorLog:          slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelDebug),
	}
	go func() {
		defer close(a.served)
		if err := a.srv.ServeTLS(a.lis, "", ""); !errors.Is(err, http.ErrServerClosed) {
			a.log.Error("web app stopped serving", "err", err)
		}
	}()
	a.log.Info("web app is serving", "url", a.base, "cert_sha256", a.fingerprint, "self_signed_cert_made", made)
	return a, nil
}

// rpHost is the host name passkeys are bound to.
func rpHost(addr, host string) (string, error) {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--web-addr %q: %w (give host:port, such as 127.0.0.1:7443)", addr, err)
	}
	if host != "" {
		if net.ParseIP(host) != nil {
			return "", fmt.Errorf("--web-host %q is an IP address, which passkeys refuse: name limend's machine by a DNS name (or use localhost on the same machine)", host)
		}
		return host, nil
	}
	ip := net.ParseIP(h)
	switch {
	case h == "" || h == "localhost" || ip != nil && (ip.IsLoopback() || ip.IsUnspecified()):
		return "localhost", nil
	case ip != nil:
		return "", fmt.Errorf("--web-addr %q has an IP address, which passkeys refuse as a site's name: give --web-host with the DNS name browsers reach it by", addr)
	}
	return h, nil
}

// URL is where the web app is reached, such as https://localhost:7443.
func (a *App) URL() string { return a.base }

// CertFingerprint is the SHA-256 fingerprint of the app's certificate.
func (a *App) CertFingerprint() string { return a.fingerprint }

// Shutdown ends the live streams and stops serving.
func (a *App) Shutdown(ctx context.Context) error {
	a.stopOnce.Do(func() { close(a.stopping) })
	a.push.stop()
	err := a.srv.Shutdown(ctx)
	<-a.served
	return err
}

// Handler is the app's routes behind its protections: cross-origin
// requests that change anything are refused (http.CrossOriginProtection),
// and every response carries a strict CSP and is never cached.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", a.queuePage)
	mux.HandleFunc("GET /asks/{id}", a.askPage)
	mux.HandleFunc("POST /asks/{id}/challenge", a.challengeHandler)
	mux.HandleFunc("POST /asks/{id}/answer", a.answerHandler)
	mux.HandleFunc("GET /events", a.eventsHandler)
	mux.HandleFunc("GET /pair", a.pairPage)
	mux.HandleFunc("POST /pair/begin", a.pairBegin)
	mux.HandleFunc("POST /pair/finish", a.pairFinish)
	mux.HandleFunc("POST /push/{token}", a.pushAnswer)
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	return secure(http.NewCrossOriginProtection().Handler(mux))
}

// csp lets the page load its own script, style and images, and nothing
// else: no inline script, no other origin, no framing.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func secure(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", csp)
		hd.Set("Cache-Control", "no-store")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Strict-Transport-Security", "max-age=31536000")
		h.ServeHTTP(w, r)
	})
}

// who is the paired device of r's session, or nil.
func (a *App) who(r *http.Request) *deviceInfo {
	id, ok := a.sess.device(r)
	if !ok {
		return nil
	}
	d, err := a.devices.Device(id)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			a.log.Error("read a paired device", "id", id, "err", err)
		}
		return nil
	}
	return &deviceInfo{dev: d}
}

// as is ctx carrying the device's identity, for the service's calls.
func (a *App) as(ctx context.Context, d *deviceInfo, digest string) context.Context {
	return server.WithWebCaller(ctx, server.WebCaller{User: d.dev.GetUser(), Device: d.dev.GetId(), Channel: "web", Digest: digest})
}

// policyNow is the policy in force and its version (the revision of every
// ask shown now); nil when it cannot be read or parsed.
func (a *App) policyNow(ctx context.Context) (*policy.Policy, uint64) {
	resp, err := a.svc.GetPolicy(ctx, &limenv1.GetPolicyRequest{})
	if err != nil {
		return nil, 0
	}
	v := resp.GetPolicy().GetVersion()
	a.mu.Lock()
	defer a.mu.Unlock()
	if v != a.polVer || a.pol == nil {
		pol, err := policy.Parse(resp.GetPolicy().GetDocument())
		if err != nil {
			return nil, v
		}
		a.pol, a.polVer = pol, v
	}
	return a.pol, v
}

// views are the asks as the page shows them.
func (a *App) views(ctx context.Context, asks []*limenv1.PendingAsk) []AskView {
	pol, rev := a.policyNow(ctx)
	out := make([]AskView, len(asks))
	for i, p := range asks {
		out[i] = viewOf(p, pol, rev, a.sign, a.now())
		// A rule that allows a risky action from then on is one to narrow
		// by hand (limenctl tui's rule editor), not to take in one tap.
		out[i].MayRule = out[i].Rule != "" && !out[i].SignApprove && a.owner != "" && out[i].User == a.owner
	}
	return out
}

// problem answers a failed request: JSON for the page's script, a page
// for a plain form.
func (a *App) problem(w http.ResponseWriter, r *http.Request, code int, msg string) {
	if wantsJSON(r) {
		writeJSON(w, code, map[string]any{"error": msg, "stale": msg == staleAsk})
		return
	}
	w.WriteHeader(code)
	a.render(w, "message.html", map[string]any{"Title": http.StatusText(code), "Message": msg})
}

func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func (a *App) render(w http.ResponseWriter, name string, data any) {
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	if err := a.tmpl.ExecuteTemplate(w, name, data); err != nil {
		a.log.Error("render", "template", name, "err", err)
	}
}
