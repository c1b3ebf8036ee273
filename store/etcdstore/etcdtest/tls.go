package etcdtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Certs are PEM files for mutual TLS between limend and etcd on loopback:
// one CA, a server certificate for 127.0.0.1, and a client certificate.
type Certs struct {
	CA, ServerCert, ServerKey, ClientCert, ClientKey string
}

// NewCerts writes a fresh CA and certificates into the test's temp
// directory.
func NewCerts(t testing.TB) Certs {
	t.Helper()
	ca := NewCA(t, "limen test CA")
	c := Certs{CA: ca.File}
	c.ServerCert, c.ServerKey = ca.Issue(t, "etcd", x509.ExtKeyUsageServerAuth)
	c.ClientCert, c.ClientKey = ca.Issue(t, "limend", x509.ExtKeyUsageClientAuth)
	return c
}

// CA is a certificate authority for a test, to issue certificates with
// names of the test's choosing (a laptop's limend is known by its
// certificate's common name).
type CA struct {
	// File is the CA's certificate (PEM).
	File string
	dir  string
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	next int64
}

// NewCA writes a fresh CA named name into a temp directory of the test.
func NewCA(t testing.TB, name string) *CA {
	t.Helper()
	dir := t.TempDir()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	ca := &CA{File: filepath.Join(dir, "ca.pem"), dir: dir, cert: cert, key: key, next: 2}
	writePEM(t, ca.File, "CERTIFICATE", der)
	return ca
}

// Issue writes a certificate with common name name for 127.0.0.1 and
// localhost, and its key, signed by the CA.
func (ca *CA) Issue(t testing.TB, name string, usage x509.ExtKeyUsage) (certFile, keyFile string) {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(ca.next), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
	}
	ca.next++
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(ca.dir, name+".pem"), filepath.Join(ca.dir, name+"-key.pem")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "EC PRIVATE KEY", kder)
	return certFile, keyFile
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func writePEM(t testing.TB, path, typ string, der []byte) {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
