package web

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The self-signed certificate limend makes on the first start with
// --web-addr and no --web-cert, kept in the data directory.
const (
	certFile = "web-cert.pem"
	keyFile  = "web-key.pem"
)

// loadOrMakeCert returns the operator's certificate (certPath, keyPath),
// or the one in dir, made there on first use for hosts. made says it was
// just made.
func loadOrMakeCert(dir, certPath, keyPath string, hosts []string) (cert tls.Certificate, made bool, err error) {
	if (certPath == "") != (keyPath == "") {
		return cert, false, errors.New("--web-cert and --web-key go together: give both, or neither for a self-signed certificate")
	}
	if certPath != "" {
		cert, err = tls.LoadX509KeyPair(certPath, keyPath)
		if err != nil {
			return cert, false, fmt.Errorf("load --web-cert %s and --web-key %s: %w", certPath, keyPath, err)
		}
		return cert, false, nil
	}
	certPath, keyPath = filepath.Join(dir, certFile), filepath.Join(dir, keyFile)
	cert, err = tls.LoadX509KeyPair(certPath, keyPath)
	if err == nil {
		return cert, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return cert, false, fmt.Errorf("load the web app's certificate %s: %w (remove both %s and %s to make a new one)", certPath, err, certFile, keyFile)
	}
	certPEM, keyPEM, err := selfSigned(hosts, time.Now())
	if err != nil {
		return cert, false, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return cert, false, fmt.Errorf("make the web app's certificate: %w", err)
	}
	if err := os.WriteFile(keyPath, keyPEM, 0o600); err != nil {
		return cert, false, fmt.Errorf("write %s: %w", keyPath, err)
	}
	if err := os.WriteFile(certPath, certPEM, 0o644); err != nil {
		return cert, false, fmt.Errorf("write %s: %w", certPath, err)
	}
	cert, err = tls.X509KeyPair(certPEM, keyPEM)
	return cert, true, err
}

// selfSigned makes a P-256 certificate for hosts (names and addresses),
// valid for two years from now.
func selfSigned(hosts []string, now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "limend web app", Organization: []string{"limen"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(2 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("make a self-signed certificate: %w", err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), nil
}

// Fingerprint is the SHA-256 of a certificate's DER, as browsers show it:
// upper-case hex, colon-separated.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(parts, ":")
}
