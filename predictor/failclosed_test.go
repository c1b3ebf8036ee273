package predictor

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestFailClosed(t *testing.T) {
	ok := Prediction{P: 0.9, Key: "Bash:ls"}
	tests := []struct {
		name    string
		predict func(context.Context) (Prediction, error)
		wantErr string
	}{
		{"fast", func(context.Context) (Prediction, error) { return ok, nil }, ""},
		{"error", func(context.Context) (Prediction, error) { return Prediction{}, errors.New("counts unavailable") }, "predict: counts unavailable"},
		{"panic", func(context.Context) (Prediction, error) { panic("boom") }, "predict: prediction panicked: boom"},
		{"slow", func(context.Context) (Prediction, error) { time.Sleep(time.Hour); return ok, nil }, ErrTimeout.Error()},
		{"late answer after the deadline", func(ctx context.Context) (Prediction, error) { time.Sleep(21 * time.Millisecond); return ok, nil }, ErrTimeout.Error()},
		{"p is one", func(context.Context) (Prediction, error) { return Prediction{P: 1}, nil }, "predict: probability 1 is outside (0, 1)"},
		{"p is NaN", func(context.Context) (Prediction, error) { return Prediction{P: nan()}, nil }, "predict: probability NaN is outside (0, 1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				got, err := FailClosed(t.Context(), 20*time.Millisecond, tt.predict)
				// Let a straggling prediction finish (fake time), so the
				// bubble proves it exits on its own once it is done.
				defer time.Sleep(2 * time.Hour)
				if elapsed := time.Since(start); elapsed > 20*time.Millisecond {
					t.Errorf("FailClosed waited %v, past its 20ms deadline", elapsed)
				}
				if tt.wantErr == "" {
					if err != nil || got != ok {
						t.Fatalf("FailClosed = %+v, %v; want %+v, nil", got, err, ok)
					}
					return
				}
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("FailClosed error = %v; want %q", err, tt.wantErr)
				}
				if got.P != 0 {
					t.Errorf("FailClosed returned p=%v with an error; want the zero prediction", got.P)
				}
			})
		})
	}
}

// TestFailClosedLateResultDoesNotLeak checks the buffered channel: a
// prediction that finishes after the caller gave up exits on its own.
func TestFailClosedLateResultDoesNotLeak(t *testing.T) {
	release := make(chan struct{})
	finished := make(chan struct{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := FailClosed(ctx, time.Hour, func(context.Context) (Prediction, error) {
		defer close(finished)
		<-release
		return Prediction{P: 0.5}, nil
	})
	if err == nil {
		t.Fatal("FailClosed with a cancelled context returned no error")
	}
	close(release)
	<-finished // the goroutine sent into the buffer and returned; goleak checks the rest
}

// The caller's own deadline ends the wait too, as a timeout.
func TestFailClosedStopsAtTheCallersDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := FailClosed(ctx, time.Hour, func(context.Context) (Prediction, error) {
			time.Sleep(time.Minute)
			return Prediction{P: 0.5}, nil
		})
		defer time.Sleep(2 * time.Minute) // let the prediction finish in fake time
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("FailClosed = %v, want ErrTimeout", err)
		}
		if waited := time.Since(start); waited != 5*time.Millisecond {
			t.Errorf("FailClosed waited %v, want the caller's 5ms", waited)
		}
	})
}

func nan() float64 { var zero float64; return zero / zero }
