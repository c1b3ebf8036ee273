// Package peercred tells a gRPC server which OS user is on the other end of
// a Unix socket, from the kernel (SO_PEERCRED on Linux, LOCAL_PEERCRED and
// LOCAL_PEERPID on macOS), not from anything the client says about itself.
package peercred

import (
	"context"
	"errors"
	"net"
	"os/user"
	"strconv"
	"sync"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
)

// AuthInfo is the peer's identity as the kernel reported it.
type AuthInfo struct {
	credentials.CommonAuthInfo
	UID  uint32
	PID  int32
	User string // login name, or the uid in decimal when it has none
	// Start is the connecting process's start time (Proc.Start), read
	// when it connected; 0 when it could not be read. Checks of the
	// caller's ancestry compare it with the process now at PID, so that a
	// connection whose process exited and whose pid was reused is not taken
	// for the new process.
	Start uint64
	// Proc is the connecting process as /proc showed it when it
	// connected (zero when it could not be read): limend records the agent
	// runtime from it without reading the caller again.
	Proc Proc
	// reading, when set, is the read of Proc and Start that the handshake
	// started as the process connected; Resolved waits for it. Reading
	// /proc beside the request, not before accepting the next connection,
	// keeps it off the path of a hook's decision.
	reading *procRead
}

// procRead is a read of /proc under way.
type procRead struct {
	done chan struct{}
	p    Proc
	err  error
}

// Resolved returns the identity with Start and Proc filled in, waiting
// for the read the handshake started if it has not finished. The read
// began as the process connected, so a pid reused since is not mistaken
// for the caller, as with a read made in the handshake itself.
func (a AuthInfo) Resolved() AuthInfo {
	if r := a.reading; r != nil {
		<-r.done
		a.reading = nil
		if r.err == nil {
			a.Start, a.Proc = r.p.Start, r.p
		}
	}
	return a
}

// Ready is Resolved without the wait: false while the read the handshake
// started is still under way.
func (a AuthInfo) Ready() (AuthInfo, bool) {
	if r := a.reading; r != nil {
		select {
		case <-r.done:
		default:
			return a, false
		}
	}
	return a.Resolved(), true
}

// AuthType implements credentials.AuthInfo.
func (AuthInfo) AuthType() string { return "peercred" }

// Credentials returns server transport credentials for Unix sockets that
// attach the peer's AuthInfo to every connection. Connections that are not
// Unix sockets (loopback TCP) carry no AuthInfo.
func Credentials() credentials.TransportCredentials { return creds{} }

type creds struct{}

func (creds) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return conn, nil, nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, nil, err
	}
	var uid uint32
	var pid int32
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		uid, pid, credErr = FromFD(int(fd))
	}); err != nil {
		return nil, nil, err
	}
	if credErr != nil {
		return nil, nil, credErr
	}
	ai := AuthInfo{
		CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity},
		UID:            uid,
		PID:            pid,
		User:           userName(uid),
	}
	if pid > 0 {
		r := &procRead{done: make(chan struct{})}
		go func() {
			defer close(r.done)
			r.p, r.err = readProc(int(pid))
		}()
		ai.reading = r
	}
	return conn, ai, nil
}

func (creds) ClientHandshake(context.Context, string, net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return nil, nil, errors.New("peercred: server-side credentials only")
}
func (creds) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "peercred"}
}
func (c creds) Clone() credentials.TransportCredentials { return c }
func (creds) OverrideServerName(string) error           { return nil }

var names sync.Map // uid → name; user lookups read /etc/passwd

func userName(uid uint32) string {
	if n, ok := names.Load(uid); ok {
		return n.(string)
	}
	id := strconv.FormatUint(uint64(uid), 10)
	name := id
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		name = u.Username
	}
	names.Store(uid, name)
	return name
}

type ctxKey struct{}

// NewContext returns ctx carrying a peer's identity, for callers that serve
// limen's service over something other than gRPC (the hook's HTTP socket)
// and read the peer's credentials themselves (see FromConn).
func NewContext(ctx context.Context, ai AuthInfo) context.Context {
	return context.WithValue(ctx, ctxKey{}, ai)
}

// FromConn reads the identity of the process at the other end of a Unix
// socket connection.
func FromConn(conn net.Conn) (AuthInfo, bool) {
	_, ai, err := creds{}.ServerHandshake(conn)
	if err != nil || ai == nil {
		return AuthInfo{}, false
	}
	return ai.(AuthInfo), true
}

// FromContext returns the peer's identity, if the call came over a Unix
// socket (through gRPC, or a context made by NewContext).
func FromContext(ctx context.Context) (AuthInfo, bool) {
	if ai, ok := ctx.Value(ctxKey{}).(AuthInfo); ok {
		return ai, true
	}
	p, ok := peer.FromContext(ctx)
	if !ok {
		return AuthInfo{}, false
	}
	ai, ok := p.AuthInfo.(AuthInfo)
	return ai, ok
}
