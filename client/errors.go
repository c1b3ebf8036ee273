package client

import (
	"errors"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Problem is what went wrong in a call to limend, in the terms a caller
// acts on: fix the request, re-read and retry, wait, or tell someone
// limend is not there. ProblemOf reads it from the error's gRPC code, so
// limenctl's exit codes, the hook API's HTTP statuses and the words a
// tool shows follow one reading of the codes.
type Problem int

// The problems, from the error's gRPC code.
const (
	NoProblem   Problem = iota // nil error (codes.OK)
	BadRequest                 // InvalidArgument, OutOfRange: the request is wrong; the message says how
	NotFound                   // NotFound: no such ask, decision or version
	Conflict                   // FailedPrecondition, Aborted, AlreadyExists: the state changed; re-read and retry
	Denied                     // PermissionDenied, Unauthenticated: this caller may not do it
	Exhausted                  // ResourceExhausted: a rate or queue limit; retry later
	Unreachable                // Unavailable: limend is not running or not reachable
	Timeout                    // DeadlineExceeded: limend did not answer in time
	Canceled                   // Canceled: the caller gave up
	Internal                   // anything else, and errors that carry no gRPC status
)

// ProblemOf classifies err; an error wrapping a gRPC status is read by
// that status.
func ProblemOf(err error) Problem {
	if err == nil {
		return NoProblem
	}
	st, ok := status.FromError(err)
	if !ok {
		return Internal
	}
	switch st.Code() {
	case codes.OK:
		return NoProblem
	case codes.InvalidArgument, codes.OutOfRange:
		return BadRequest
	case codes.NotFound:
		return NotFound
	case codes.FailedPrecondition, codes.Aborted, codes.AlreadyExists:
		return Conflict
	case codes.PermissionDenied, codes.Unauthenticated:
		return Denied
	case codes.ResourceExhausted:
		return Exhausted
	case codes.Unavailable:
		return Unreachable
	case codes.DeadlineExceeded:
		return Timeout
	case codes.Canceled:
		return Canceled
	}
	return Internal
}

// Refused reports whether limend understood the call and said no: the
// request, the caller or the state is at fault, not limend's reach.
func (p Problem) Refused() bool {
	switch p {
	case BadRequest, NotFound, Conflict, Denied, Exhausted:
		return true
	}
	return false
}

// Unreached reports whether no answer came from limend: it is not there,
// or did not answer in time.
func (p Problem) Unreached() bool { return p == Unreachable || p == Timeout }

// Message is err's text with the gRPC status inside it worded as its
// message alone (without "rpc error: code = … desc = "), keeping whatever
// the caller wrapped around it; an error without a status is its text.
func Message(err error) string {
	if err == nil {
		return ""
	}
	var inner interface {
		error
		GRPCStatus() *status.Status
	}
	if !errors.As(err, &inner) {
		if st, ok := status.FromError(err); ok {
			return st.Message()
		}
		return err.Error()
	}
	msg := inner.GRPCStatus().Message()
	if inner == err {
		return msg
	}
	return strings.Replace(err.Error(), inner.Error(), msg, 1)
}
