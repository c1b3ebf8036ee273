//go:build !linux && !darwin

package paths

// limen supports Linux and macOS: it relies on the kernel to say who is on
// the other end of its sockets and on Unix file ownership. Every limen
// binary imports this package, so the undefined name below stops their
// build with the message in its name instead of a page of compile errors.
var _ = limen_supports_only_Linux_and_macOS

// Stubs, so that the name above leads the errors.
func defaultRuntimeDir() (string, error) { panic("unreachable") }
func defaultDataDir(string) string       { panic("unreachable") }
