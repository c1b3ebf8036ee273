package client

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestProblemOf(t *testing.T) {
	tests := []struct {
		err       error
		want      Problem
		refused   bool
		unreached bool
	}{
		{nil, NoProblem, false, false},
		{status.Error(codes.InvalidArgument, "x"), BadRequest, true, false},
		{status.Error(codes.OutOfRange, "x"), BadRequest, true, false},
		{status.Error(codes.NotFound, "x"), NotFound, true, false},
		{status.Error(codes.FailedPrecondition, "x"), Conflict, true, false},
		{status.Error(codes.Aborted, "x"), Conflict, true, false},
		{status.Error(codes.AlreadyExists, "x"), Conflict, true, false},
		{status.Error(codes.PermissionDenied, "x"), Denied, true, false},
		{status.Error(codes.Unauthenticated, "x"), Denied, true, false},
		{status.Error(codes.ResourceExhausted, "x"), Exhausted, true, false},
		{status.Error(codes.Unavailable, "x"), Unreachable, false, true},
		{status.Error(codes.DeadlineExceeded, "x"), Timeout, false, true},
		{status.Error(codes.Canceled, "x"), Canceled, false, false},
		{status.Error(codes.Internal, "x"), Internal, false, false},
		{status.Error(codes.Unknown, "x"), Internal, false, false},
		{fmt.Errorf("answer: %w", status.Error(codes.Aborted, "x")), Conflict, true, false},
		{errors.New("plain"), Internal, false, false},
		{context.DeadlineExceeded, Internal, false, false}, // no gRPC status: not limend's answer
	}
	for _, tt := range tests {
		p := ProblemOf(tt.err)
		if p != tt.want || p.Refused() != tt.refused || p.Unreached() != tt.unreached {
			t.Errorf("ProblemOf(%v) = %d (refused %v, unreached %v); want %d (%v, %v)", tt.err, p, p.Refused(), p.Unreached(), tt.want, tt.refused, tt.unreached)
		}
	}
}

func TestMessage(t *testing.T) {
	st := status.Error(codes.Aborted, "version 3 is not current")
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{st, "version 3 is not current"},
		{fmt.Errorf("set policy: %w\nhint: re-read it", st), "set policy: version 3 is not current\nhint: re-read it"},
		{errors.New("plain"), "plain"},
	}
	for _, tt := range tests {
		if got := Message(tt.err); got != tt.want {
			t.Errorf("Message(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
