package etcdstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/limenhq/limen/store"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// Session grants live under grants/, one key per grant, attached to a
// lease of Options.GrantTTL that the answer's transaction took: etcd
// deletes them when the lease ends, so no limend's timer has to run for a
// grant to expire, and a limend started later lists the live ones.

var _ store.GrantStore = (*Store)(nil)

// maxGrants bounds the grants of one answer: with the answer's four
// operations they stay well inside etcd's 128 operations a transaction.
const maxGrants = 64

// grant is the key of g: a hash of its three fields, which may hold any
// byte (a "/" too).
func (k keys) grant(g store.Grant) string {
	h := sha256.New()
	for _, f := range []string{g.User, g.Session, g.Key} {
		fmt.Fprintf(h, "%d:%s", len(f), f)
	}
	return k.grants + hex.EncodeToString(h.Sum(nil)[:16])
}

// GrantTTL is how long a session grant lives: Options.GrantTTL.
func (s *Store) GrantTTL() time.Duration { return s.opts.GrantTTL }

// AnswerGranting is Answer that also stores grants in the same
// transaction, attached to a new lease of Options.GrantTTL, as
// store.GrantStore says. The lease is taken before the transaction; when
// the answer is not stored, it is revoked (or, if that fails too, ends by
// itself with nothing attached).
func (s *Store) AnswerGranting(askID uint64, rec *storev1.AnswerRecord, grants []store.Grant) (*storev1.Decision, error) {
	if len(grants) == 0 {
		return s.Answer(askID, rec)
	}
	if len(grants) > maxGrants {
		return nil, fmt.Errorf("answer ask %d: %d session grants, more than %d: approve it once instead", askID, len(grants), maxGrants)
	}
	if err := s.staleErr(); err != nil {
		return nil, fmt.Errorf("answer ask %d: %w; the answer is not stored, give it again once limend reaches etcd", askID, err)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	lease, err := s.cli.Grant(ctx, int64((s.opts.GrantTTL+time.Second-1)/time.Second))
	if err != nil {
		return nil, fmt.Errorf("answer ask %d: take a lease for its session grants: %w; the answer is not stored", askID, err)
	}
	ops := make([]clientv3.Op, 0, len(grants))
	for _, g := range grants {
		v, err := json.Marshal(g)
		if err != nil {
			return nil, fmt.Errorf("answer ask %d: encode grant: %w", askID, err)
		}
		ops = append(ops, clientv3.OpPut(s.keys.grant(g), string(v), clientv3.WithLease(lease.ID)))
	}
	d, err := s.answer(askID, rec, ops)
	if err != nil {
		rctx, rcancel := s.ctx()
		s.cli.Revoke(rctx, lease.ID) // best effort: unrevoked, it ends by itself
		rcancel()
		return nil, err
	}
	return d, nil
}

// WatchGrants reports the live session grants, as store.GrantStore says:
// those listed now before it returns, then each one put or deleted (its
// lease ended) on the prefix. A watch that ends is set up again after a
// new list, which reports what appeared and what vanished meanwhile.
func (s *Store) WatchGrants(ctx context.Context, fn func(g store.Grant, live bool)) error {
	known := make(map[string]store.Grant)
	rev, err := s.listGrants(ctx, known, fn)
	if err != nil {
		return fmt.Errorf("watch grants: %w", err)
	}
	ch, stop := s.watchFrom(ctx, s.keys.grants, rev, clientv3.WithCreatedNotify(), clientv3.WithPrevKV())
	first, ok := <-ch
	if !ok || (first.Err() != nil && first.CompactRevision == 0) {
		stop()
		return fmt.Errorf("watch grants: %w", errors.Join(ctx.Err(), first.Err(), errors.New("the watch ended at once")))
	}
	go func() {
		for {
			for resp := range ch {
				if resp.Err() != nil {
					break
				}
				for _, ev := range resp.Events {
					k := string(ev.Kv.Key)
					if ev.Type == clientv3.EventTypePut {
						var g store.Grant
						if json.Unmarshal(ev.Kv.Value, &g) == nil {
							known[k] = g
							fn(g, true)
						}
						continue
					}
					if g, ok := known[k]; ok {
						delete(known, k)
						fn(g, false)
					}
				}
				s.watchedOn(&s.grantsRev, resp.Header.Revision) // fresh.go
			}
			stop()
			for {
				if ctx.Err() != nil {
					return
				}
				if rev, err = s.listGrants(ctx, known, fn); err == nil {
					break
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(s.opts.Staleness / 10):
				}
			}
			ch, stop = s.watchFrom(ctx, s.keys.grants, rev, clientv3.WithPrevKV())
		}
	}()
	return nil
}

// listGrants lists the live grants, reports those not in known as live
// and those in known but gone as expired, leaves known the live set, and
// returns the revision it read at.
func (s *Store) listGrants(ctx context.Context, known map[string]store.Grant, fn func(store.Grant, bool)) (int64, error) {
	now := make(map[string]store.Grant)
	rev, err := s.scanRev(s.keys.grants, false, 0, func(k, v []byte) (bool, error) {
		var g store.Grant
		if json.Unmarshal(v, &g) == nil {
			now[string(k)] = g
		}
		return true, ctx.Err()
	})
	if err != nil {
		return 0, err
	}
	for k, g := range known {
		if _, ok := now[k]; !ok {
			delete(known, k)
			fn(g, false)
		}
	}
	for k, g := range now {
		if _, ok := known[k]; !ok {
			known[k] = g
			fn(g, true)
		}
	}
	s.watchedOn(&s.grantsRev, rev) // fresh.go
	return rev, nil
}
