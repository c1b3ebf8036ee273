package service

// The names that tie limend to the units limenctl service install writes.
// limend looks for its sockets by these names among the ones systemd passes
// it (FileDescriptorName= in each .socket unit), so the units and the
// daemon must agree on them.
const (
	// GRPCSocketName names limend's gRPC socket (limend.sock).
	GRPCSocketName = "limend"
	// HTTPSocketName names the hook API's socket (limend-http.sock), the
	// one limen-hook calls.
	HTTPSocketName = "limend-http"
)
