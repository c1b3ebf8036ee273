package main

import "fmt"

// notFoundError is an id that names nothing: an ask or a policy version
// that does not exist. It exits 4, as limend's own NotFound does (README:
// "4 refused by limend (bad input, unknown id, version conflict)"), whether
// limenctl or limend found it missing, so a script sees one code for one
// cause.
type notFoundError struct{ error }

func notFoundf(format string, args ...any) error { return notFoundError{fmt.Errorf(format, args...)} }

// badInputError is input limend would refuse, found before it is sent: a
// policy document that does not validate. It exits 4, as limend's own
// InvalidArgument does (README: "4 refused by limend (bad input, …)"),
// not 2, which is for how limenctl was called.
type badInputError struct{ error }

func badInputf(format string, args ...any) error { return badInputError{fmt.Errorf(format, args...)} }
