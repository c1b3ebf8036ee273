package web_test

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

var screenshots = flag.Bool("screenshots", false, "write the phone-sized screenshots of the queue and of an ask to docs/")

// chromium finds a Chromium or Chrome binary, or skips the test.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium binary found: the browser tests need Debian's chromium package (apt-get install -y --no-install-recommends chromium; .ci/run installs it)")
	return ""
}

// spki is the base64 SHA-256 of the certificate's public key, which
// Chrome's --ignore-certificate-errors-spki-list trusts: the page then
// has no certificate error, and passkeys work as on a trusted site.
func spki(t *testing.T, l *limentest.Limend) string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(l.Config.DB), "web-cert.pem"))
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	cert, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// newBrowser starts headless Chromium with a fresh profile, a phone-sized
// window and a virtual passkey authenticator (CTAP2, internal, resident
// keys, user verification that succeeds).
func newBrowser(t *testing.T, l *limentest.Limend) context.Context {
	t.Helper()
	opts := append([]chromedp.ExecAllocatorOption{},
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox, // the tests run as root in CI
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("ignore-certificate-errors-spki-list", spki(t, l)),
		chromedp.WindowSize(390, 844),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)),
		chromedp.Navigate("about:blank"),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			off := false
			if _, err := cdp.Call(ctx, t, webauthn.Enable, webauthn.EnableParams{EnableUI: &off}); err != nil {
				return fmt.Errorf("WebAuthn.enable: %w", err)
			}
			_, err := cdp.Call(ctx, t, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
				Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21,
				Transport: webauthn.AuthenticatorTransportInternal, HasResidentKey: true,
				HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
			}})
			return err
		}))
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// within runs actions with a deadline, failing the test with what.
func within(t *testing.T, ctx context.Context, d time.Duration, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// fetchStatus posts an answer from the page itself (its cookie, its
// origin) and returns the HTTP status.
func fetchStatus(t *testing.T, ctx context.Context, id, choice string) int {
	t.Helper()
	js := fmt.Sprintf(`(async () => {
		const d = document.querySelector('#ask-%[1]s [name=digest]');
		const r = await fetch('/asks/%[1]s/answer', {method: 'POST', headers: {Accept: 'application/json'},
			body: new URLSearchParams({choice: %[2]q, digest: d ? d.value : 'gone'})});
		return r.status;
	})()`, id, choice)
	return value[int](t, ctx, js, chromedp.EvalAwaitPromise)
}

// value evaluates js in the page.
func value[T any](t *testing.T, ctx context.Context, js string, opts ...chromedp.EvaluateOption) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, opts...))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if *screenshots {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBrowser drives the web app in a real headless Chromium: pairing
// with a passkey, a new ask in the page within a second, approving it
// (and a destructive one, with a real passkey assertion) while the agent
// waits, the refusals, and the live queue resuming after limend restarts.
func TestBrowser(t *testing.T) {
	l := startWeb(t)
	ctx := newBrowser(t, l)
	user := me(t, l)

	pr, err := l.Client.API.CreatePairing(t.Context(), &limenv1.CreatePairingRequest{Name: "phone"})
	if err != nil {
		t.Fatal(err)
	}
	within(t, ctx, 20*time.Second, "pair",
		chromedp.Navigate(pr.GetUrl()),
		chromedp.WaitVisible(chromedp.ID("pair-button")),
		chromedp.Click(chromedp.ID("pair-button")),
		chromedp.WaitVisible(chromedp.ID("empty")),
		chromedp.WaitReady(chromedp.CSS(`#live[data-on="1"]`)),
	)
	ds, err := l.Client.API.ListDevices(t.Context(), &limenv1.ListDevicesRequest{})
	if err != nil || len(ds.GetDevices()) != 1 || ds.GetDevices()[0].GetName() != "phone" {
		t.Fatalf("devices after pairing in the browser = %v, %v", ds, err)
	}

	t.Run("a new ask shows within 1s and approving it wakes the agent", func(t *testing.T) {
		id := decide(t, l, user, "git status")
		within(t, ctx, time.Second, "ask "+id+" in the page", chromedp.WaitVisible(chromedp.ID("ask-"+id)))
		woke := make(chan *limenv1.AwaitResponse, 1)
		go func() {
			a, _ := l.Client.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: id})
			woke <- a
		}()
		within(t, ctx, 10*time.Second, "approve", chromedp.Click(chromedp.CSS("#ask-"+id+` button[value="approve"]`)),
			chromedp.WaitReady(chromedp.CSS("#ask-"+id+`[data-answered="allow"]`)))
		if a := <-woke; a.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
			t.Errorf("the waiting Await got %v; want allow", a)
		}
		if st := fetchStatus(t, ctx, id, "deny"); st != 409 {
			t.Errorf("a replayed answer = %d; want 409", st)
		}
	})

	t.Run("a destructive ask needs the passkey", func(t *testing.T) {
		id := decide(t, l, user, "rm -rf build")
		within(t, ctx, 5*time.Second, "ask in the page", chromedp.WaitVisible(chromedp.ID("ask-"+id)))
		shot(t, ctx, "web-queue.png")
		if st := fetchStatus(t, ctx, id, "approve"); st != 401 {
			t.Errorf("a destructive approval without a signature = %d; want 401", st)
		}
		within(t, ctx, 10*time.Second, "open the ask alone", chromedp.Navigate(strings.TrimSuffix(pr.GetUrl(), "/pair?code="+pr.GetCode())+"/asks/"+id),
			chromedp.WaitVisible(chromedp.ID("ask-"+id)))
		shot(t, ctx, "web-ask.png")
		within(t, ctx, 10*time.Second, "approve with the passkey", chromedp.Click(chromedp.CSS("#ask-"+id+` button[value="approve"]`)),
			chromedp.WaitReady(chromedp.CSS("#ask-"+id+`[data-answered="allow"]`)))
		if a := await(t, l, id); a.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
			t.Errorf("Await = %v; want allow", a)
		}
		h, err := l.Client.API.History(t.Context(), &limenv1.HistoryRequest{AsksOnly: true, Limit: 1})
		if err != nil || h.GetDecisions()[0].GetOutcome().GetChannel() != "web" {
			t.Errorf("history = %v, %v; want the answer on the web", h, err)
		}
	})

	t.Run("another user's ask is 403", func(t *testing.T) {
		// One OS user runs the test, so the second user's ask is made by
		// limend's owner acting as a trusted gateway; the browser's
		// session is the first user's, and is refused it.
		id := decide(t, l, "someone-else", "git status")
		if st := fetchStatus(t, ctx, id, "deny"); st != 403 {
			t.Errorf("answering another user's ask = %d; want 403", st)
		}
	})

	t.Run("a rule made with the passkey; an ask shown before it is shown afresh", func(t *testing.T) {
		within(t, ctx, 10*time.Second, "back to the queue", chromedp.Navigate(strings.TrimSuffix(pr.GetUrl(), "/pair?code="+pr.GetCode())+"/"),
			chromedp.WaitReady(chromedp.CSS(`#live[data-on="1"]`)))
		other := decide(t, l, user, "ls -la")
		id := decide(t, l, user, "go test ./...")
		within(t, ctx, 5*time.Second, "asks in the page", chromedp.WaitVisible(chromedp.ID("ask-"+other)), chromedp.WaitVisible(chromedp.ID("ask-"+id)))
		within(t, ctx, 10*time.Second, "approve and always allow", chromedp.Click(chromedp.CSS("#ask-"+id+` button[value="rule"]`)),
			chromedp.WaitReady(chromedp.CSS("#ask-"+id+`[data-answered="allow"]`)))
		pol, err := l.Client.API.GetPolicy(t.Context(), &limenv1.GetPolicyRequest{})
		if err != nil || !strings.Contains(pol.GetPolicy().GetDocument(), `"Bash(go test:*)"`) {
			t.Fatalf("policy after the rule = %v; want Bash(go test:*) allowed", err)
		}
		// The other ask was shown under the old policy: its answer is
		// refused as stale and the card shown afresh, then answered.
		within(t, ctx, 10*time.Second, "stale answer refreshes", chromedp.Click(chromedp.CSS("#ask-"+other+` button[value="deny"]`)),
			chromedp.WaitReady(chromedp.CSS("#ask-"+other+`[data-refreshed="1"]`)),
			chromedp.Click(chromedp.CSS("#ask-"+other+` button[value="deny"]`)),
			chromedp.WaitReady(chromedp.CSS("#ask-"+other+`[data-answered="block"]`)))
	})

	t.Run("an expired ask is 410", func(t *testing.T) {
		doc := defaultDoc(t, l)
		l.SetPolicy(t, strings.Replace(doc, `timeout = "10m"`, `timeout = "1s"`, 1))
		defer l.SetPolicy(t, doc)
		within(t, ctx, 10*time.Second, "back to the queue", chromedp.Navigate(strings.TrimSuffix(pr.GetUrl(), "/pair?code="+pr.GetCode())+"/"),
			chromedp.WaitReady(chromedp.CSS(`#live[data-on="1"]`)))
		id := decide(t, l, user, "git status --short")
		within(t, ctx, 5*time.Second, "ask in the page", chromedp.WaitVisible(chromedp.ID("ask-"+id)))
		if a := await(t, l, id); a.GetState() != limenv1.AskState_ASK_STATE_EXPIRED {
			t.Fatalf("Await = %v; want expired", a)
		}
		if st := fetchStatus(t, ctx, id, "approve"); st != 410 {
			t.Errorf("answering an expired ask = %d; want 410", st)
		}
	})

	t.Run("the live queue resumes after limend restarts", func(t *testing.T) {
		within(t, ctx, 10*time.Second, "back to the queue", chromedp.Navigate(strings.TrimSuffix(pr.GetUrl(), "/pair?code="+pr.GetCode())+"/"),
			chromedp.WaitReady(chromedp.CSS(`#live[data-on="1"]`)))
		before := decide(t, l, user, "git log")
		within(t, ctx, 5*time.Second, "ask before the restart", chromedp.WaitVisible(chromedp.ID("ask-"+before)))
		u, _ := url.Parse(l.Web().URL())
		if err := l.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		cfg := l.Config
		cfg.Web.Addr = "127.0.0.1:" + u.Port()
		d, err := daemon.Start(cfg, nil)
		if err != nil {
			t.Fatalf("restart limend: %v", err)
		}
		t.Cleanup(func() { d.Stop(context.Background()) })
		c, err := client.Dial(cfg.Socket)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		dd, err := c.API.Decide(t.Context(), &limenv1.DecideRequest{Action: &limenv1.Action{User: user, Tool: "Bash", InputJson: `{"command":"git diff"}`}})
		if err != nil {
			t.Fatal(err)
		}
		after := dd.GetDecision().GetAskId()
		within(t, ctx, 10*time.Second, "ask "+after+" after the restart", chromedp.WaitVisible(chromedp.ID("ask-"+after)))
		if n := value[int](t, ctx, `document.querySelectorAll("#ask-`+before+`").length`); n != 1 {
			t.Errorf("ask %s shows %d times after the stream resumed; want once", before, n)
		}
		// Revoking the device ends the live queue in the page, which says so.
		if _, err := c.API.RevokeDevice(t.Context(), &limenv1.RevokeDeviceRequest{Id: ds.GetDevices()[0].GetId()}); err != nil {
			t.Fatal(err)
		}
		within(t, ctx, 10*time.Second, "the page says the session ended", chromedp.WaitVisible(chromedp.ID("ended")))
	})
}
