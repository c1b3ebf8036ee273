package main

import "fmt"

// notFoundError is an id that names nothing: an ask or a policy version
// that does not exist. It exits 4, as limend's own NotFound does (README:
// "4 refused by limend (bad input, unknown id, version conflict)"), whether
// limenctl or limend found it missing, so a script sees one code for one
// cause.
type notFoundError struct{ error }

func notFoundf(format string, args ...any) error { return notFoundError{fmt.Errorf(format, args...)} }
