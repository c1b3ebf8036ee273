//go:build !linux

package server_test

// waitExit does not wait: there is no pidfd here, and the only test that
// calls it follows process ancestry, which limend reads only on Linux.
func waitExit(int) {}
