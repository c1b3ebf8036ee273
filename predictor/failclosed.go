package predictor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"time"
)

// ErrTimeout is returned by FailClosed when the prediction missed its deadline.
var ErrTimeout = errors.New("prediction timed out")

// PanicError is returned by FailClosed when the prediction panicked.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("prediction panicked: %v", e.Value) }

// FailClosed runs predict for at most timeout, and not past ctx, and never
// waits longer (DESIGN.md §3). The prediction runs in its own goroutine
// and sends its result on a channel with a buffer of one, so a prediction
// that finishes after the deadline still completes its send and exits
// without a reader: nothing leaks. A timeout, an error, a panic or a
// probability outside (0, 1) all come back as an error, which the caller
// must turn into ask.
//
// predict gets ctx itself, not a context that ends at the timeout: the
// deadline is a plain timer, because a derived context (its allocation,
// its registration with ctx, its timer) cost a tenth of limend's Decide
// handler. A prediction that outlives the timeout is simply not waited
// for.
func FailClosed(ctx context.Context, timeout time.Duration, predict func(context.Context) (Prediction, error)) (Prediction, error) {
	type result struct {
		pred Prediction
		err  error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- result{err: &PanicError{Value: v, Stack: debug.Stack()}}
			}
		}()
		pred, err := predict(ctx)
		done <- result{pred, err}
	}()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			return Prediction{}, fmt.Errorf("predict: %w", r.err)
		}
		if p := r.pred.P; math.IsNaN(p) || p <= 0 || p >= 1 {
			return Prediction{}, fmt.Errorf("predict: probability %v is outside (0, 1)", p)
		}
		return r.pred, nil
	case <-deadline.C:
		return Prediction{}, ErrTimeout
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Prediction{}, ErrTimeout
		}
		return Prediction{}, fmt.Errorf("predict: %w", ctx.Err())
	}
}
