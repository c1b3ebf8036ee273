//go:build !linux && !darwin

package peercred

// limend needs the kernel to say who is on the other end of its socket,
// and knows how to ask only on Linux and macOS. The undefined name below
// stops the build with the message in its name instead of a page of
// compile errors (see also internal/paths).
var _ = limen_supports_only_Linux_and_macOS

// FromFD is here only so that the name above is the build's one error.
func FromFD(int) (uint32, int32, error) { panic("unreachable") }
