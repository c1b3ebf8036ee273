// Package proto holds limen's protocol buffer definitions: the API
// (limen/v1, Go package limenv1 in proto/limen/v1) and the format of the
// records in the store's file (limen/store/v1, Go package storev1 in
// store/storev1, which links no gRPC). The generated Go code is committed;
// regenerate it with
//
//	go generate ./proto
//
// which runs buf and both protoc plugins with `go run` at pinned versions, so
// nothing but the Go module proxy is needed. CI regenerates and fails when the
// committed code no longer matches the .proto files.
package proto

//go:generate go run github.com/bufbuild/buf/cmd/buf@v1.75.0 lint
//go:generate go run github.com/bufbuild/buf/cmd/buf@v1.75.0 generate
