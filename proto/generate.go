// Package proto holds limen's API definition. The generated Go code lives in
// proto/limen/v1 (package limenv1) and is committed; regenerate it with
//
//	go generate ./proto
//
// which runs buf and both protoc plugins with `go run` at pinned versions, so
// nothing but the Go module proxy is needed. CI regenerates and fails when the
// committed code no longer matches the .proto files.
package proto

//go:generate go run github.com/bufbuild/buf/cmd/buf@v1.75.0 lint
//go:generate go run github.com/bufbuild/buf/cmd/buf@v1.75.0 generate
