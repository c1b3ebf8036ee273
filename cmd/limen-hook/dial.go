package main

import (
	"net"
	"time"
)

// dialUnix connects to limend's socket, giving up at the deadline.
func dialUnix(socket string, deadline time.Time) (net.Conn, error) {
	d := net.Dialer{Deadline: deadline}
	return d.Dial("unix", socket)
}
