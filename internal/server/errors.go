package server

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/store"
)

var (
	errStopping    = errors.New("limend is shutting down; treat this call as ask and retry once it is back")
	errSlowWatcher = errors.New("this watcher fell too far behind and was dropped; reconnect to get a fresh list")
)

// invalid is a refused request; msg names the field and the fix.
func invalid(msg string) error { return status.Error(codes.InvalidArgument, msg) }

// precondition refuses a call that the state of limen does not allow now.
func precondition(msg string) error { return status.Error(codes.FailedPrecondition, msg) }

func parseAskID(s string) (uint64, error) {
	if s == "" {
		return 0, invalid("ask_id is empty: pass the ask id from Decide or `limenctl pending`")
	}
	id, err := store.ParseID(s)
	if err != nil {
		return 0, invalid("ask_id: " + err.Error())
	}
	return id, nil
}

// askErr words a store error about one ask for the person who sent it.
func askErr(id uint64, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		// err may name the decision already ("decision 42: not found"):
		// say it once, as the ask.
		return fmt.Errorf("ask %d: %w: check the id with `limenctl pending`", id, store.ErrNotFound)
	case errors.Is(err, store.ErrResolved):
		return fmt.Errorf("ask %d: %w: see `limenctl history --asks`", id, err)
	}
	return err
}

// toStatus is the one place where errors become gRPC status codes.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	var code codes.Code
	switch {
	case errors.Is(err, store.ErrNotFound):
		code = codes.NotFound
	case errors.Is(err, store.ErrResolved):
		code = codes.FailedPrecondition
	case errors.Is(err, store.ErrVersionConflict):
		code = codes.Aborted
	case errors.Is(err, errStopping), errors.Is(err, errSlowWatcher):
		code = codes.Unavailable
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	default:
		code = codes.Internal
	}
	return status.Error(code, err.Error())
}
