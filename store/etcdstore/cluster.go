package etcdstore

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/limenhq/limen/store"
)

// Each limend publishes a report of itself (its applied answer and
// revision, the hash of its counts, its freshness) under
// replicas/<name>, attached to a lease of reportTTL that each publish
// keeps alive: the report of a limend that stopped vanishes by itself.

var _ store.Clustered = (*Store)(nil)

// reportTTL is how long a report outlives its last publish.
const reportTTL = 15 * time.Second

// reportLease is the lease of this Store's report.
type reportLease struct {
	mu sync.Mutex
	id clientv3.LeaseID
}

// Members lists the etcd members, each with the status it gives (its
// revision, database size, and whether it leads); a member that does not
// answer is listed with its error.
func (s *Store) Members(ctx context.Context) ([]store.Member, error) {
	ctx, cancel := context.WithTimeout(ctx, min(s.opts.Timeout, s.opts.Staleness))
	defer cancel()
	list, err := s.cli.MemberList(ctx)
	if err != nil {
		return nil, fmt.Errorf("list etcd members: %w", err)
	}
	out := make([]store.Member, len(list.Members))
	var wg sync.WaitGroup
	for i, m := range list.Members {
		out[i] = store.Member{Name: m.Name, ClientURLs: m.ClientURLs}
		if len(m.ClientURLs) == 0 {
			out[i].Err = "not started yet"
			continue
		}
		wg.Go(func() {
			st, err := s.cli.Status(ctx, m.ClientURLs[0])
			if err != nil {
				out[i].Err = err.Error()
				return
			}
			out[i].Leader = st.Leader == m.ID
			out[i].Revision, out[i].DBSize = st.Header.Revision, st.DbSize
		})
	}
	wg.Wait()
	return out, nil
}

// replicaKey is the key of name's report (hex: a name may hold any byte).
func (k keys) replica(name string) string { return k.replicas + hex.EncodeToString([]byte(name)) }

// Publish stores report under name, on the lease it keeps alive.
func (s *Store) Publish(ctx context.Context, name string, report []byte) error {
	ctx, cancel := context.WithTimeout(ctx, min(s.opts.Timeout, s.opts.Staleness))
	defer cancel()
	s.report.mu.Lock()
	defer s.report.mu.Unlock()
	if s.report.id != 0 {
		if _, err := s.cli.KeepAliveOnce(ctx, s.report.id); err != nil {
			s.report.id = 0 // expired or unknown: take a new one
		}
	}
	if s.report.id == 0 {
		l, err := s.cli.Grant(ctx, int64(reportTTL/time.Second))
		if err != nil {
			return fmt.Errorf("publish replica report: %w", err)
		}
		s.report.id = l.ID
	}
	if _, err := s.cli.Put(ctx, s.keys.replica(name), string(report), clientv3.WithLease(s.report.id)); err != nil {
		return fmt.Errorf("publish replica report: %w", err)
	}
	return nil
}

// Reports returns the live reports, by name.
func (s *Store) Reports(ctx context.Context) (map[string][]byte, error) {
	out := make(map[string][]byte)
	err := s.scan(s.keys.replicas, false, 0, func(k, v []byte) (bool, error) {
		name, err := hex.DecodeString(strings.TrimPrefix(string(k), s.keys.replicas))
		if err == nil {
			out[string(name)] = append([]byte(nil), v...)
		}
		return true, ctx.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read replica reports: %w", err)
	}
	return out, nil
}
