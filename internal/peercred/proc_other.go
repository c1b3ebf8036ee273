//go:build !linux

package peercred

// readProc has no /proc to read: limend does not follow ancestry here (see
// docs/SECURITY.md: the runtime-ancestry check is off on this system).
func readProc(int) (Proc, error) { return Proc{}, ErrNoAncestry }
