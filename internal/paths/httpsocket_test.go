package paths

import "testing"

// TestHTTPSocket: the HTTP socket follows the gRPC socket unless set
// itself. It used to ignore $LIMEN_SOCKET, unlike limend and limen-hook.
func TestHTTPSocket(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/7")
	tests := []struct{ socket, http, want string }{
		{"", "", "/run/user/7/limen/limend-http.sock"},
		{"/tmp/lb/limend.sock", "", "/tmp/lb/limend-http.sock"},
		{"/tmp/lb/a.sock", "/x/h.sock", "/x/h.sock"},
	}
	for _, tt := range tests {
		t.Setenv(EnvSocket, tt.socket)
		t.Setenv(EnvHTTPSocket, tt.http)
		if got, err := HTTPSocket(); err != nil || got != tt.want {
			t.Errorf("HTTPSocket() with LIMEN_SOCKET=%q LIMEN_HTTP_SOCKET=%q = %q, %v; want %q", tt.socket, tt.http, got, err, tt.want)
		}
	}
}

func TestHTTPSocketFor(t *testing.T) {
	for in, want := range map[string]string{
		"/run/user/1000/limen/limend.sock": "/run/user/1000/limen/limend-http.sock",
		"/tmp/a":                           "/tmp/a-http.sock",
	} {
		if got := HTTPSocketFor(in); got != want {
			t.Errorf("HTTPSocketFor(%s) = %s; want %s", in, got, want)
		}
	}
}
