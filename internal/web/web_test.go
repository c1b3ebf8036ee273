package web_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// startWeb starts the real limend with the web app on a free loopback port.
func startWeb(t *testing.T, opts ...func(*daemon.Config)) *limentest.Limend {
	t.Helper()
	return limentest.Start(t, append([]func(*daemon.Config){func(c *daemon.Config) { c.Web.Addr = "127.0.0.1:0" }}, opts...)...)
}

// phone is a paired browser: an HTTP client that trusts the web app's
// certificate, keeps its session cookie, and holds its passkey.
type phone struct {
	t    *testing.T
	c    *http.Client
	base string
	key  *authenticator
	dev  string
}

// newClient trusts the self-signed certificate limend made beside its
// database.
func newClient(t *testing.T, l *limentest.Limend) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(filepath.Join(filepath.Dir(l.Config.DB), "web-cert.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	jar, _ := cookiejar.New(nil)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Jar: jar, Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// pair runs limenctl pair's call and the pairing page's two requests.
func pair(t *testing.T, l *limentest.Limend) *phone {
	t.Helper()
	pr, err := l.Client.API.CreatePairing(t.Context(), &limenv1.CreatePairingRequest{Name: "phone"})
	if err != nil {
		t.Fatalf("CreatePairing: %v", err)
	}
	return pairWith(t, l, pr)
}

// pairWith pairs a new phone with the code of pr.
func pairWith(t *testing.T, l *limentest.Limend, pr *limenv1.CreatePairingResponse) *phone {
	t.Helper()
	u, _ := url.Parse(pr.GetUrl())
	base := u.Scheme + "://" + u.Host
	p := &phone{t: t, c: newClient(t, l), base: base, key: newAuthenticator(t, base, u.Hostname())}
	code := u.Query().Get("code")
	if st, body := p.get("/pair?code=" + code); st != 200 || !strings.Contains(body, "Create passkey") {
		t.Fatalf("pairing page = %d %s", st, body)
	}
	st, opts := p.post("/pair/begin", url.Values{"code": {code}})
	if st != 200 {
		t.Fatalf("pair/begin = %d %s", st, opts)
	}
	resp, err := p.c.Post(base+"/pair/finish?code="+code, "application/json", strings.NewReader(string(p.key.create(opts))))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("pair/finish = %d %s", resp.StatusCode, body)
	}
	if c := resp.Header.Get("Set-Cookie"); !strings.HasPrefix(c, "__Host-limen=") || !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "Secure") || !strings.Contains(c, "SameSite=Strict") {
		t.Errorf("session cookie = %q; want __Host-, HttpOnly, Secure, SameSite=Strict", c)
	}
	var out struct{ Device string }
	json.Unmarshal(body, &out)
	p.dev = out.Device
	return p
}

func (p *phone) get(path string) (int, string) {
	p.t.Helper()
	resp, err := p.c.Get(p.base + path)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// post sends a form as the page's script does, asking for JSON.
func (p *phone) post(path string, form url.Values) (int, []byte) {
	p.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, p.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := p.c.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// digest reads the digest the queue page shows for ask id.
func (p *phone) digest(id string) string {
	p.t.Helper()
	_, page := p.get("/")
	m := regexp.MustCompile(`id="ask-` + id + `"[\s\S]*?name="digest" value="([0-9a-f]{64})"`).FindStringSubmatch(page)
	if m == nil {
		p.t.Fatalf("the queue page does not show ask %s:\n%s", id, page)
	}
	return m[1]
}

// answer answers ask id as the page would; signed asks the passkey first.
func (p *phone) answer(id, choice string, signed bool) (int, string) {
	p.t.Helper()
	form := url.Values{"choice": {choice}, "digest": {p.digest(id)}}
	if signed {
		p.sign(id, choice, form)
	}
	st, b := p.post("/asks/"+id+"/answer", form)
	return st, string(b)
}

// sign gets a challenge for choice and adds the passkey's assertion.
func (p *phone) sign(id, choice string, form url.Values) {
	p.t.Helper()
	st, b := p.post("/asks/"+id+"/challenge", url.Values{"choice": {choice}, "digest": form["digest"]})
	if st != 200 {
		p.t.Fatalf("challenge = %d %s", st, b)
	}
	var ch struct {
		Nonce   string
		Options options
	}
	if err := json.Unmarshal(b, &ch); err != nil {
		p.t.Fatal(err)
	}
	form.Set("nonce", ch.Nonce)
	form.Set("assertion", p.key.get(ch.Options.PublicKey.Challenge, []byte(p.dev)))
}

func decide(t *testing.T, l *limentest.Limend, user, command string) string {
	t.Helper()
	d, err := l.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: &limenv1.Action{
		User: user, Agent: "claude-code", Session: "s1", Tool: "Bash", Cwd: "/home/ana/shop", InputJson: fmt.Sprintf(`{"command":%q}`, command)}})
	if err != nil || d.GetDecision().GetAskId() == "" {
		t.Fatalf("Decide(%s) = %v, %v; want an ask", command, d, err)
	}
	return d.GetDecision().GetAskId()
}

func await(t *testing.T, l *limentest.Limend, id string) *limenv1.AwaitResponse {
	t.Helper()
	a, err := l.Client.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: id, Timeout: durationpb.New(10 * time.Second)})
	if err != nil {
		t.Fatalf("Await(%s): %v", id, err)
	}
	return a
}

// me is the OS user the test runs as: what limend names the caller of
// the socket, and so the user a device paired here answers for.
func me(t *testing.T, l *limentest.Limend) string {
	t.Helper()
	pr, err := l.Client.API.CreatePairing(t.Context(), &limenv1.CreatePairingRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return pr.GetUser()
}

func TestPairThenAnswer(t *testing.T) {
	l := startWeb(t)
	p := pair(t, l)
	user := me(t, l)

	// The code is good once.
	if st, _ := p.get("/pair?code=used"); st != http.StatusGone {
		t.Errorf("an unknown code = %d; want 410", st)
	}
	id := decide(t, l, user, "git status")
	st, page := p.get("/")
	for _, want := range []string{"Ask " + id, "git status", "/home/ana/shop", "read-only", "Bash:git status", "<meter", "claude-code"} {
		if !strings.Contains(page, want) {
			t.Errorf("queue page (%d) lacks %q", st, want)
		}
	}
	if st, b := p.answer(id, "approve", false); st != 200 {
		t.Fatalf("approve = %d %s", st, b)
	}
	if a := await(t, l, id); a.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Errorf("Await after a web approval = %v; want allow", a)
	}
	if st, _ := p.answer2(id, "deny"); st != http.StatusConflict {
		t.Errorf("a replayed answer = %d; want 409", st)
	}
	h, err := l.Client.API.History(t.Context(), &limenv1.HistoryRequest{AsksOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	o := h.GetDecisions()[0].GetOutcome()
	if o.GetChannel() != "web" || o.GetDeviceId() != p.dev || len(o.GetActionDigest()) != 64 {
		t.Errorf("history outcome = %v; want channel web, device %s and the digest", o, p.dev)
	}
}

// answer2 answers without reading the page (the ask is gone from it).
func (p *phone) answer2(id, choice string) (int, string) {
	st, b := p.post("/asks/"+id+"/answer", url.Values{"choice": {choice}, "digest": {"x"}})
	return st, string(b)
}

func TestRefusals(t *testing.T) {
	l := startWeb(t)
	p := pair(t, l)
	user := me(t, l)

	t.Run("another user's ask is 403", func(t *testing.T) {
		id := decide(t, l, "someone-else", "git status")
		if st, b := p.answer2(id, "approve"); st != http.StatusForbidden {
			t.Errorf("answering another user's ask = %d %s; want 403", st, b)
		}
	})
	t.Run("destructive without a signature is 401", func(t *testing.T) {
		id := decide(t, l, user, "rm -rf build")
		if st, b := p.answer(id, "approve", false); st != http.StatusUnauthorized {
			t.Fatalf("unsigned destructive approval = %d %s; want 401", st, b)
		}
		// A signature for another choice does not approve.
		form := url.Values{"choice": {"approve"}, "digest": {p.digest(id)}}
		p.sign(id, "session", form)
		if st, b := p.post("/asks/"+id+"/answer", form); st != http.StatusUnauthorized {
			t.Fatalf("approval signed for the session = %d %s; want 401", st, b)
		}
		// Nor does one used twice.
		form = url.Values{"choice": {"approve"}, "digest": {p.digest(id)}}
		p.sign(id, "approve", form)
		if st, b := p.post("/asks/"+id+"/answer", form); st != 200 {
			t.Fatalf("signed approval = %d %s", st, b)
		}
		if a := await(t, l, id); a.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
			t.Errorf("Await = %v; want allow", a)
		}
		id2 := decide(t, l, user, "rm -rf dist")
		form.Set("digest", p.digest(id2))
		if st, b := p.post("/asks/"+id2+"/answer", form); st != http.StatusUnauthorized {
			t.Errorf("a signature replayed on another ask = %d %s; want 401", st, b)
		}
	})
	t.Run("deny needs no signature and leaves a note", func(t *testing.T) {
		id := decide(t, l, user, "rm -rf node_modules")
		form := url.Values{"choice": {"deny"}, "digest": {p.digest(id)}, "note": {"use make clean"}}
		if st, b := p.post("/asks/"+id+"/answer", form); st != 200 {
			t.Fatalf("deny with a note = %d %s", st, b)
		}
		if a := await(t, l, id); a.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK || !strings.Contains(a.GetReason(), "use make clean") {
			t.Errorf("Await = %v; want block with the note", a)
		}
	})
	t.Run("approve for the session needs the passkey, then allows the same action", func(t *testing.T) {
		id := decide(t, l, user, "make test")
		if st, b := p.answer(id, "session", false); st != http.StatusUnauthorized {
			t.Fatalf("unsigned approval for the session = %d %s; want 401", st, b)
		}
		if st, b := p.answer(id, "session", true); st != 200 {
			t.Fatalf("signed approval for the session = %d %s", st, b)
		}
		d, err := l.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: &limenv1.Action{
			User: user, Agent: "claude-code", Session: "s1", Tool: "Bash", Cwd: "/home/ana/shop", InputJson: `{"command":"make test"}`}})
		// Allowed by the person's grant, not by what the answer taught.
		if err != nil || d.GetDecision().GetVerdict() != limenv1.Verdict_VERDICT_ALLOW || d.GetDecision().GetDecidedBy() != limenv1.Decider_DECIDER_HUMAN {
			t.Errorf("the same action in the same session = %v, %v; want allow by the person's grant", d, err)
		}
	})
	t.Run("approve and always allow needs the owner's passkey and adds the rule", func(t *testing.T) {
		id := decide(t, l, user, "go vet ./...")
		_, page := p.get("/")
		if !strings.Contains(page, `value="rule"`) {
			t.Fatalf("the owner's ask offers no rule:\n%s", page)
		}
		if st, b := p.answer(id, "rule", false); st != http.StatusUnauthorized {
			t.Fatalf("an unsigned rule = %d %s; want 401", st, b)
		}
		// A signature for approving once does not make a rule.
		form := url.Values{"choice": {"rule"}, "digest": {p.digest(id)}}
		p.sign(id, "approve", form)
		if st, b := p.post("/asks/"+id+"/answer", form); st != http.StatusUnauthorized {
			t.Fatalf("a rule signed as an approval = %d %s; want 401", st, b)
		}
		if st, b := p.answer(id, "rule", true); st != 200 {
			t.Fatalf("a signed rule = %d %s", st, b)
		}
		// A risky action's rule is not offered in one tap.
		risky := decide(t, l, user, "rm -rf out")
		_, page = p.get("/")
		card := regexp.MustCompile(`id="ask-` + risky + `"[\s\S]*?</article>`).FindString(page)
		if card == "" || strings.Contains(card, `value="rule"`) {
			t.Errorf("destructive ask %s is not shown, or offers a one-tap rule:\n%s", risky, card)
		}
		if a := await(t, l, id); a.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
			t.Errorf("Await = %v; want allow", a)
		}
		pol, err := l.Client.API.GetPolicy(t.Context(), &limenv1.GetPolicyRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(pol.GetPolicy().GetDocument(), `"Bash(go vet:*)"`) || !strings.HasPrefix(pol.GetPolicy().GetAuthor(), "gateway:web:"+user+":"+p.dev) {
			t.Errorf("policy v%d by %q lacks the rule Bash(go vet:*) or its author", pol.GetPolicy().GetVersion(), pol.GetPolicy().GetAuthor())
		}
		d, err := l.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: &limenv1.Action{User: user, Tool: "Bash", InputJson: `{"command":"go vet ./internal/..."}`}})
		if err != nil || d.GetDecision().GetVerdict() != limenv1.Verdict_VERDICT_ALLOW || d.GetDecision().GetDecidedBy() != limenv1.Decider_DECIDER_RULE {
			t.Errorf("a relative of the action after the rule = %v, %v; want allow by the rule", d, err)
		}
	})
	t.Run("a changed digest is 409", func(t *testing.T) {
		id := decide(t, l, user, "ls -la")
		if st, _ := p.post("/asks/"+id+"/answer", url.Values{"choice": {"deny"}, "digest": {strings.Repeat("0", 64)}}); st != http.StatusConflict {
			t.Errorf("answer with a stale digest = %d; want 409", st)
		}
	})
	t.Run("a second user's device sees and answers only that user's asks", func(t *testing.T) {
		// One OS user runs the tests, so the kernel cannot name a second
		// one on the socket: the server's side of CreatePairing (which
		// checked the caller) is called with the second user injected.
		pr, err := l.Web().CreatePairing(t.Context(), "bo", "bo-phone")
		if err != nil {
			t.Fatal(err)
		}
		bo := pairWith(t, l, pr)
		mine, bos := decide(t, l, user, "git log"), decide(t, l, "bo", "git log --stat")
		_, page := bo.get("/")
		if strings.Contains(page, "ask-"+mine+`"`) || !strings.Contains(page, "ask-"+bos+`"`) {
			t.Errorf("bo's queue shows ask %s of %s, or not his own %s:\n%s", mine, user, bos, page)
		}
		if st, b := bo.answer2(mine, "deny"); st != http.StatusForbidden {
			t.Errorf("bo answering %s's ask = %d %s; want 403", user, st, b)
		}
		if _, page := bo.get("/"); strings.Contains(page, `value="rule"`) {
			t.Errorf("bo, not limend's owner, is offered a rule")
		}
		form := url.Values{"choice": {"rule"}, "digest": {bo.digest(bos)}}
		bo.sign(bos, "rule", form)
		if st, b := bo.post("/asks/"+bos+"/answer", form); st != http.StatusForbidden {
			t.Errorf("bo making a rule = %d %s; want 403", st, b)
		}
		if st, b := bo.answer(bos, "approve", false); st != 200 {
			t.Errorf("bo answering his own = %d %s", st, b)
		}
		if a := await(t, l, bos); a.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW || !strings.Contains(a.GetReason(), "bo") {
			t.Errorf("Await = %v; want allow by bo", a)
		}
	})
	t.Run("open challenges are bounded per device", func(t *testing.T) {
		id := decide(t, l, user, "rm -rf tmp")
		form := url.Values{"choice": {"approve"}, "digest": {p.digest(id)}}
		last := 0
		for range 20 {
			last, _ = p.post("/asks/"+id+"/challenge", form)
		}
		if last != http.StatusTooManyRequests {
			t.Errorf("the 20th open challenge = %d; want 429", last)
		}
	})
	t.Run("no session is 401", func(t *testing.T) {
		stranger := &phone{t: t, c: newClient(t, l), base: p.base}
		if st, _ := stranger.get("/"); st != http.StatusUnauthorized {
			t.Errorf("queue without a session = %d; want 401", st)
		}
	})
}

func TestExpiredAskIs410(t *testing.T) {
	l := startWeb(t)
	l.SetPolicy(t, strings.Replace(defaultDoc(t, l), `timeout = "10m"`, `timeout = "1s"`, 1))
	p := pair(t, l)
	id := decide(t, l, me(t, l), "git status")
	digest := p.digest(id)
	if a := await(t, l, id); a.GetState() != limenv1.AskState_ASK_STATE_EXPIRED {
		t.Fatalf("Await = %v; want expired", a)
	}
	if st, b := p.post("/asks/"+id+"/answer", url.Values{"choice": {"approve"}, "digest": {digest}}); st != http.StatusGone {
		t.Errorf("answering an expired ask = %d %s; want 410", st, b)
	}
}

func defaultDoc(t *testing.T, l *limentest.Limend) string {
	t.Helper()
	r, err := l.Client.API.GetPolicy(t.Context(), &limenv1.GetPolicyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return r.GetPolicy().GetDocument()
}

// TestEventsAndRevocation: a new ask reaches an open stream; revoking the
// device ends the stream and the session at once.
func TestEventsAndRevocation(t *testing.T) {
	l := startWeb(t)
	p := pair(t, l)
	user := me(t, l)
	old := decide(t, l, user, "git status")

	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, p.base+"/events", nil)
	req.Header.Set("Last-Event-ID", old) // the page already shows it
	resp, err := p.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("events: Content-Type %q, Cache-Control %q", ct, resp.Header.Get("Cache-Control"))
	}
	ev := events(resp.Body)
	if e := <-ev; e.name != "sync" || !strings.Contains(e.data, `"`+old+`"`) {
		t.Fatalf("first event = %+v; want sync naming %s", e, old)
	}
	id := decide(t, l, user, "git log")
	if e := <-ev; e.name != "ask" || e.id != id || !strings.Contains(e.data, "git log") {
		t.Fatalf("event after a new ask = %+v; want ask %s (and not %s again)", e, id, old)
	}
	if _, err := l.Client.API.RevokeDevice(t.Context(), &limenv1.RevokeDeviceRequest{Id: p.dev}); err != nil {
		t.Fatal(err)
	}
	for e := range ev { // the stream must end
		t.Logf("event before the end: %+v", e)
	}
	if st, _ := p.get("/"); st != http.StatusUnauthorized {
		t.Errorf("queue after revocation = %d; want 401", st)
	}
	ds, err := l.Client.API.ListDevices(t.Context(), &limenv1.ListDevicesRequest{})
	if err != nil || len(ds.GetDevices()) != 0 {
		t.Errorf("devices after revocation = %v, %v; want none", ds, err)
	}
}

type event struct{ name, id, data string }

// events reads server-sent events until the stream ends.
func events(r io.Reader) <-chan event {
	ch := make(chan event)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		var e event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if e.name != "" {
					ch <- e
				}
				e = event{}
			case strings.HasPrefix(line, "event: "):
				e.name = line[len("event: "):]
			case strings.HasPrefix(line, "id: "):
				e.id = line[len("id: "):]
			case strings.HasPrefix(line, "data: "):
				e.data = line[len("data: "):]
			}
		}
	}()
	return ch
}

func TestSecurityHeaders(t *testing.T) {
	l := startWeb(t)
	p := pair(t, l)
	resp, err := p.c.Get(p.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP = %q; want script from self only", csp)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control = %q; want no-store", cc)
	}
	// A cross-site form post is refused before any handler runs.
	req, _ := http.NewRequest(http.MethodPost, p.base+"/asks/1/answer", strings.NewReader("choice=approve"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err = p.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site POST = %d; want 403", resp.StatusCode)
	}
}

// TestAgentCannotReadTheSessionKey: reading the key that signs session
// cookies (or the certificate's key) is a secret read, never allowed.
func TestAgentCannotReadTheSessionKey(t *testing.T) {
	l := startWeb(t)
	for _, f := range []string{"web-session.key", "web-key.pem"} {
		path := filepath.Join(filepath.Dir(l.Config.DB), f)
		d, err := l.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: &limenv1.Action{Tool: "Bash", InputJson: fmt.Sprintf(`{"command":"cat %s"}`, path)}})
		if err != nil {
			t.Fatal(err)
		}
		if v := d.GetDecision().GetVerdict(); v == limenv1.Verdict_VERDICT_ALLOW || d.GetDecision().GetRiskClass() != "secrets" {
			t.Errorf("cat %s = %v (%s); want a secrets read, not allowed", f, v, d.GetDecision().GetRiskClass())
		}
	}
}
