package server

import (
	"context"

	"github.com/limenhq/limen/internal/version"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// GetVersion implements DecisionService: the build of this limend, so that
// limenctl status and doctor can warn when client and daemon differ.
func (s *Server) GetVersion(ctx context.Context, _ *limenv1.GetVersionRequest) (*limenv1.GetVersionResponse, error) {
	if _, _, err := s.guard.authorize(ctx, opGetVersion); err != nil {
		return nil, err
	}
	return &limenv1.GetVersionResponse{Limend: BuildInfo(version.Get())}, nil
}

// BuildInfo converts a build's version to its API message.
func BuildInfo(i version.Info) *limenv1.BuildInfo {
	return &limenv1.BuildInfo{Module: i.Module, Commit: i.Commit, Dirty: i.Dirty, Go: i.Go, Platform: i.Platform}
}
