package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
)

// serveDebug serves Go's profiles (goroutines, heap, CPU) on a loopback
// address, for finding leaks in a long run. It is off unless --debug-addr
// is given, and never listens beyond loopback: profiles show the actions
// being decided.
func serveDebug(addr string, log *slog.Logger) (stop func(), err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--debug-addr %q: %w: use host:port, such as 127.0.0.1:6060", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("--debug-addr %s: profiles are served on loopback only (127.0.0.1 or [::1])", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on --debug-addr %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux}
	go func() {
		if err := srv.Serve(l); err != nil && err != http.ErrServerClosed {
			log.Error("debug server", "err", err)
		}
	}()
	log.Info("serving profiles", "addr", "http://"+l.Addr().String()+"/debug/pprof/")
	return func() { srv.Close() }, nil
}
