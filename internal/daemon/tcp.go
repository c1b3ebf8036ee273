package daemon

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/internal/server"
)

// TLS configures gRPC over TCP beyond loopback: a server certificate, and a
// way to tell who the client is (a client certificate signed by ClientCA,
// or the bearer token in TokenFile, or both).
type TLS struct {
	Cert, Key string
	ClientCA  string
	TokenFile string
}

func (t TLS) configured() bool {
	return t.Cert != "" || t.Key != "" || t.ClientCA != "" || t.TokenFile != ""
}

// checkTCP refuses a TCP setup that would let an unauthenticated caller in
// from another machine: plaintext is loopback-only, and TLS must come with
// client authentication.
func checkTCP(addr string, t TLS) error {
	if t.configured() {
		switch {
		case t.Cert == "" && t.Key == "":
			return errors.New("--tls-client-ca and --token-file authenticate clients over TLS: they need --tls-cert and --tls-key too (a token sent in plaintext could be read on the way)")
		case t.Cert == "" || t.Key == "":
			return errors.New("--tls-cert and --tls-key go together: give both to serve TCP over TLS")
		case t.ClientCA == "" && t.TokenFile == "":
			return errors.New("TLS on --tcp needs a way to know the client: pass --tls-client-ca (mutual TLS) or --token-file (a bearer token), or both")
		}
		return nil
	}
	if err := checkLoopback("--tcp", addr); err != nil {
		return fmt.Errorf("%w; to serve another machine, use TLS with client authentication (--tls-cert, --tls-key, and --tls-client-ca or --token-file)", err)
	}
	return nil
}

// tcpCreds returns the transport credentials for the TCP listener and the
// bearer token (empty when none is configured).
func tcpCreds(t TLS) (credentials.TransportCredentials, string, error) {
	if !t.configured() {
		return insecure.NewCredentials(), "", nil
	}
	cert, err := tls.LoadX509KeyPair(t.Cert, t.Key)
	if err != nil {
		return nil, "", fmt.Errorf("load --tls-cert/--tls-key: %w", err)
	}
	conf := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13}
	if t.ClientCA != "" {
		pem, err := os.ReadFile(t.ClientCA)
		if err != nil {
			return nil, "", fmt.Errorf("read --tls-client-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, "", fmt.Errorf("--tls-client-ca %s holds no PEM certificate", t.ClientCA)
		}
		conf.ClientCAs = pool
		conf.ClientAuth = tls.RequireAndVerifyClientCert
	}
	var token string
	if t.TokenFile != "" {
		b, err := os.ReadFile(t.TokenFile)
		if err != nil {
			return nil, "", fmt.Errorf("read --token-file: %w", err)
		}
		if token = strings.TrimSpace(string(b)); len(token) < 16 {
			return nil, "", fmt.Errorf("--token-file %s holds a token of %d characters; use at least 16 random ones", t.TokenFile, len(token))
		}
	}
	return credentials.NewTLS(conf), token, nil
}

// newTCPServer is the gRPC server for the TCP listener. Its callers have no
// kernel credentials: over TLS they prove who they are with a client
// certificate or the token and are then treated as a gateway; over
// loopback plaintext they are anonymous.
func newTCPServer(t TLS, log *slog.Logger) (*grpc.Server, error) {
	creds, token, err := tcpCreds(t)
	if err != nil {
		return nil, err
	}
	auth := func(ctx context.Context, method string) (context.Context, error) {
		if strings.HasPrefix(method, "/grpc.health.v1.Health/") || strings.HasPrefix(method, "/grpc.reflection.") {
			return ctx, nil // probes and listings reveal nothing
		}
		if !t.configured() {
			return ctx, nil
		}
		if token != "" {
			md, _ := metadata.FromIncomingContext(ctx)
			got := ""
			if v := md.Get("authorization"); len(v) > 0 {
				got = strings.TrimPrefix(v[0], "Bearer ")
			}
			if subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1 {
				return server.WithGateway(ctx, "token"), nil
			}
			if t.ClientCA == "" {
				return nil, status.Error(codes.Unauthenticated, "send the bearer token from limend's --token-file as 'authorization: Bearer <token>'")
			}
		}
		if name, ok := clientCertName(ctx); ok {
			return server.WithGateway(ctx, "tls:"+name), nil
		}
		return nil, status.Error(codes.Unauthenticated, "present a client certificate signed by limend's --tls-client-ca, or the bearer token")
	}
	// The same options as the Unix socket's server, with the
	// authentication after panic recovery.
	return grpc.NewServer(server.ServerOptions(log, creds,
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			ctx, err := auth(ctx, info.FullMethod)
			if err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			ctx, err := auth(ss.Context(), info.FullMethod)
			if err != nil {
				return err
			}
			return h(srv, &authedStream{ss, ctx})
		}),
	)...), nil
}

type authedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *authedStream) Context() context.Context { return s.ctx }

// clientCertName is the common name of a verified client certificate.
func clientCertName(ctx context.Context) (string, bool) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return "", false
	}
	info, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok || len(info.State.VerifiedChains) == 0 || len(info.State.VerifiedChains[0]) == 0 {
		return "", false
	}
	return info.State.VerifiedChains[0][0].Subject.CommonName, true
}
