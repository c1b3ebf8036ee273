package web

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCertificates(t *testing.T) {
	dir := t.TempDir()
	cert, made, err := loadOrMakeCert(dir, "", "", []string{"limen.example.lan", "localhost", "127.0.0.1"})
	if err != nil || !made {
		t.Fatalf("first start: made=%v, %v; want a new self-signed certificate", made, err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := leaf.VerifyHostname("limen.example.lan"); err != nil {
		t.Errorf("the certificate is not for --web-host: %v", err)
	}
	if err := leaf.VerifyHostname("127.0.0.1"); err != nil {
		t.Errorf("the certificate is not for 127.0.0.1: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, keyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the private key's mode = %v, %v; want 0600", fi.Mode(), err)
	}
	again, made, err := loadOrMakeCert(dir, "", "", nil)
	if err != nil || made || string(again.Certificate[0]) != string(cert.Certificate[0]) {
		t.Errorf("second start: made=%v, %v; want the same certificate kept", made, err)
	}
	// The operator's own, and a half-given pair.
	op, _, err := loadOrMakeCert(t.TempDir(), filepath.Join(dir, certFile), filepath.Join(dir, keyFile), nil)
	if err != nil || string(op.Certificate[0]) != string(cert.Certificate[0]) {
		t.Errorf("--web-cert/--web-key: %v", err)
	}
	if _, _, err := loadOrMakeCert(dir, filepath.Join(dir, certFile), "", nil); err == nil || !strings.Contains(err.Error(), "--web-key") {
		t.Errorf("--web-cert alone = %v; want an error naming --web-key", err)
	}

	sum := sha256.Sum256(leaf.Raw)
	fp := Fingerprint(leaf.Raw)
	if strings.ReplaceAll(fp, ":", "") != strings.ToUpper(hex.EncodeToString(sum[:])) || strings.Count(fp, ":") != 31 {
		t.Errorf("Fingerprint = %q; want the SHA-256 in upper-case hex pairs", fp)
	}
}

func TestRPHost(t *testing.T) {
	for _, tt := range []struct{ addr, host, want, err string }{
		{"127.0.0.1:7443", "", "localhost", ""},
		{":7443", "", "localhost", ""},
		{"[::1]:7443", "", "localhost", ""},
		{"limen.example.lan:7443", "", "limen.example.lan", ""},
		{"0.0.0.0:7443", "limen.example.lan", "limen.example.lan", ""},
		{"192.168.1.5:7443", "", "", "IP address"},
		{"7443", "", "", "host:port"},
	} {
		got, err := rpHost(tt.addr, tt.host)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("rpHost(%q, %q) = %q, %v; want an error saying %q", tt.addr, tt.host, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("rpHost(%q, %q) = %q, %v; want %q", tt.addr, tt.host, got, err, tt.want)
		}
	}
}
