package web_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that the web app leaves no goroutine behind: every
// event stream, watcher and pusher ends with limend.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
