package client

import (
	"fmt"

	"google.golang.org/grpc/status"
)

// Describe words a call's error for a person reading one status line:
// limend unreachable or too slow in plain words, anything else as limend's
// own message with its code, and an error that is not limend's as it is.
// A nil error is "".
func Describe(err error) string {
	if err == nil {
		return ""
	}
	switch ProblemOf(err) {
	case Unreachable:
		return "limend is unreachable"
	case Timeout:
		return "limend did not answer in time"
	}
	if st, ok := status.FromError(err); ok {
		return fmt.Sprintf("%s (%s)", st.Message(), st.Code())
	}
	return err.Error()
}
