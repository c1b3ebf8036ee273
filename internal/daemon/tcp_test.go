package daemon_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	"github.com/limenhq/limen/internal/daemon"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// pki is a throwaway CA with a server and a client certificate.
type pki struct {
	dir                       string
	serverCert, serverKey, ca string
	client                    tls.Certificate
	pool                      *x509.CertPool
}

func newPKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "limen test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	issue := func(name string, usage x509.ExtKeyUsage, serial int64) ([]byte, *ecdsa.PrivateKey) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, key
	}
	write := func(name, typ string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	keyBytes := func(k *ecdsa.PrivateKey) []byte { b, _ := x509.MarshalECPrivateKey(k); return b }
	sDER, sKey := issue("limend", x509.ExtKeyUsageServerAuth, 2)
	cDER, cKey := issue("ci-gateway", x509.ExtKeyUsageClientAuth, 3)
	p := pki{dir: dir, ca: write("ca.pem", "CERTIFICATE", caDER),
		serverCert: write("server.pem", "CERTIFICATE", sDER), serverKey: write("server.key", "EC PRIVATE KEY", keyBytes(sKey)),
		pool: x509.NewCertPool()}
	p.pool.AddCert(caCert)
	p.client = tls.Certificate{Certificate: [][]byte{cDER}, PrivateKey: cKey}
	return p
}

func tcpAddr(t *testing.T, d *daemon.Daemon) string {
	t.Helper()
	for _, a := range d.Addrs() {
		if a.Network() == "tcp" {
			return a.String()
		}
	}
	t.Fatal("no TCP address")
	return ""
}

func TestTCPNeedsTLSWithClientAuthBeyondLoopback(t *testing.T) {
	p := newPKI(t)
	tests := []struct {
		name string
		tls  daemon.TLS
		want string
	}{
		{"plaintext", daemon.TLS{}, "loopback"},
		{"TLS without client authentication", daemon.TLS{Cert: p.serverCert, Key: p.serverKey}, "--tls-client-ca"},
		{"a key without its certificate", daemon.TLS{Key: p.serverKey, ClientCA: p.ca}, "go together"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := daemon.Start(daemon.Config{Socket: filepath.Join(dir, "s.sock"), DB: filepath.Join(dir, "db"), TCP: "0.0.0.0:0", TLS: tt.tls}, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("start = %v; want a refusal mentioning %q", err, tt.want)
			}
		})
	}
}

func TestMutualTLS(t *testing.T) {
	p := newPKI(t)
	d, _ := start(t, t.TempDir(), func(cfg *daemon.Config) {
		cfg.TCP = "127.0.0.1:0"
		cfg.TLS = daemon.TLS{Cert: p.serverCert, Key: p.serverKey, ClientCA: p.ca}
	})
	dial := func(certs ...tls.Certificate) limenv1.DecisionServiceClient {
		conn, err := grpc.NewClient(tcpAddr(t, d), grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: p.pool, Certificates: certs})))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return limenv1.NewDecisionServiceClient(conn)
	}
	// A gateway with a client certificate may decide for the user it names.
	resp, err := dial(p.client).Decide(t.Context(), &limenv1.DecideRequest{Action: bash("ls")})
	if err != nil || resp.GetDecision().GetAction().GetUser() != "ana" {
		t.Fatalf("mTLS Decide = %v, %v; want a decision for ana", resp, err)
	}
	// Without one the handshake fails: no decision, and the caller asks.
	if _, err := dial().Decide(t.Context(), &limenv1.DecideRequest{Action: bash("ls")}); err == nil {
		t.Fatal("Decide without a client certificate succeeded")
	}
}

func TestBearerToken(t *testing.T) {
	p := newPKI(t)
	tokenFile := filepath.Join(p.dir, "token")
	token := "0123456789abcdef0123456789abcdef"
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, _ := start(t, t.TempDir(), func(cfg *daemon.Config) {
		cfg.TCP = "127.0.0.1:0"
		cfg.TLS = daemon.TLS{Cert: p.serverCert, Key: p.serverKey, TokenFile: tokenFile}
	})
	conn, err := grpc.NewClient(tcpAddr(t, d), grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: p.pool})))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := limenv1.NewDecisionServiceClient(conn)
	if _, err := c.Decide(t.Context(), &limenv1.DecideRequest{Action: bash("ls")}); code(err) != codes.Unauthenticated {
		t.Fatalf("Decide without the token = %v; want Unauthenticated", err)
	}
	bad := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer wrong-token-wrong-token")
	if _, err := c.Decide(bad, &limenv1.DecideRequest{Action: bash("ls")}); code(err) != codes.Unauthenticated {
		t.Fatalf("Decide with a wrong token = %v; want Unauthenticated", err)
	}
	good := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+token)
	if _, err := c.Decide(good, &limenv1.DecideRequest{Action: bash("ls")}); err != nil {
		t.Fatalf("Decide with the token = %v", err)
	}
	// Health probes need no token.
	if _, err := healthpb.NewHealthClient(conn).Check(t.Context(), &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatalf("health over TLS without a token: %v", err)
	}
}

func TestLoopbackTCPIsAnonymous(t *testing.T) {
	d, _ := start(t, t.TempDir(), func(cfg *daemon.Config) { cfg.TCP = "127.0.0.1:0" })
	conn, err := grpc.NewClient(tcpAddr(t, d), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := limenv1.NewDecisionServiceClient(conn)
	if _, err := c.Decide(t.Context(), &limenv1.DecideRequest{Action: bash("ls")}); code(err) != codes.PermissionDenied {
		t.Fatalf("naming a user over plaintext TCP = %v; want PermissionDenied", err)
	}
	a := bash("ls")
	a.User = ""
	resp, err := c.Decide(t.Context(), &limenv1.DecideRequest{Action: a, DryRun: true})
	if err != nil || resp.GetDecision().GetAction().GetUser() != "anonymous" {
		t.Fatalf("Decide over plaintext TCP = %v, %v; want the anonymous user", resp, err)
	}
}
