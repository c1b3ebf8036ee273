package server

import (
	"context"
	"fmt"
	"time"

	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

// followPending keeps the asks in memory in step with the asks other
// limends add and settle, when the store is shared (store.PendingWatcher:
// the etcd store): an ask decided on another replica is listed, watched
// and answerable here, and its answer there wakes an Await here, teaches
// the predictor here as it taught the one there, and grants its session
// here too. It runs until Stop. A store of this process alone has nothing to follow.
func (s *Server) followPending() error {
	w, ok := s.store.Backend.(store.PendingWatcher)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-s.stopping
		cancel()
	}()
	if err := s.followAnswers(ctx); err != nil { // replica.go
		cancel()
		return err
	}
	if err := s.followGrants(ctx); err != nil {
		cancel()
		return err
	}
	s.publishReports(ctx)
	if err := w.WatchPending(ctx, s.applyPending); err != nil {
		cancel()
		return fmt.Errorf("follow the pending asks of the other limends: %w", err)
	}
	if pw, ok := s.store.Backend.(store.PolicyWatcher); ok {
		if err := pw.WatchPolicy(ctx, s.applyPolicy); err != nil {
			cancel()
			return fmt.Errorf("follow the policy the other limends set: %w", err)
		}
	}
	if fw, ok := s.store.Backend.(store.ForgetWatcher); ok {
		if err := fw.WatchForgotten(ctx, s.forgottenElsewhere); err != nil { // forget.go
			cancel()
			return fmt.Errorf("follow the answers the other limends forget: %w", err)
		}
	}
	return nil
}

// applyPolicy switches to a policy version set on another limend (or this
// one: switchPolicy keeps the highest version, so a repeat is a no-op).
func (s *Server) applyPolicy(sp *storev1.Policy) {
	msg := apiPolicy(sp)
	st := &policyState{msg: msg}
	st.pol, st.err = policy.Parse(msg.GetDocument())
	if !s.switchPolicy(st) {
		return
	}
	if st.err != nil {
		s.log.Error("policy set on another limend does not parse; every decision will be ask until a valid one is set",
			"version", msg.GetVersion(), "err", st.err)
		return
	}
	if est, ok := s.model.(*predictor.Estimator); ok {
		est.SetHalfLife(st.pol.HalfLife)
	}
	s.log.Info("policy changed on another limend", "version", msg.GetVersion(), "author", msg.GetAuthor())
}

// switchPolicy puts st in force unless a version at least as new already
// is, and says whether it did: SetPolicy here and the policy watch may
// race, and the policy in force must never go back a version.
func (s *Server) switchPolicy(st *policyState) bool {
	for {
		cur := s.policy.Load()
		if cur != nil && cur.msg.GetVersion() >= st.msg.GetVersion() {
			return false
		}
		if s.policy.CompareAndSwap(cur, st) {
			return true
		}
	}
}

// applyPending applies one change another limend made.
func (s *Server) applyPending(c store.PendingChange) {
	switch {
	case c.Added != nil:
		p := apiPending(c.Added)
		if id, err := store.ParseID(p.GetAskId()); err == nil {
			s.asks.addIfAbsent(id, p, s.untilExpiry(p), s.expire)
		}
	case c.Resolved != nil:
		d := apiDecision(c.Resolved)
		id, err := store.ParseID(d.GetDecisionId())
		if err != nil {
			return
		}
		if d.GetOutcome() == nil { // the store could not read it: look again
			if d, err = s.store.Decision(id); err != nil || d.GetOutcome() == nil {
				// Still unreadable (the fault that failed the store's
				// read goes on): the ask ended, and its event will not
				// come again, so read until etcd answers rather than
				// leave it pending here for good.
				s.settleLost(id) // replica.go
				return
			}
		}
		// Learn first, as Answer does here: once an Await returns, the
		// next Decide must know the answer. The answer watch teaches it
		// (replica.go); wait until it has.
		if rec := c.Answer; rec != nil && s.replica != nil {
			if s.replica.wait(context.Background(), s.stopping, rec.GetSeq()) != nil {
				return // stopping
			}
		}
		s.asks.resolve(id, finalOf(d.GetOutcome()))
	case c.Resync:
		// Changes were missed: add what is pending now, and settle what
		// is gone from the list and has an outcome (an ask added here
		// since the list was read has none, and stays).
		now := make(map[uint64]bool)
		for _, sp := range c.Pending {
			p := apiPending(sp)
			if id, err := store.ParseID(p.GetAskId()); err == nil {
				now[id] = true
				s.asks.addIfAbsent(id, p, s.untilExpiry(p), s.expire)
			}
		}
		for _, p := range s.asks.list() {
			id, err := store.ParseID(p.GetAskId())
			if err != nil || now[id] {
				continue
			}
			switch d, err := s.store.Decision(id); {
			case err != nil:
				s.settleLost(id) // as above: read until etcd answers
			case d.GetOutcome() != nil:
				s.asks.resolve(id, finalOf(d.GetOutcome()))
			}
		}
	}
}

// addIfAbsent is add, for an ask that may already be here (one listed at
// start, then reported by a resync). Only applyPending calls it, on the
// watch's one goroutine, and the store does not report this limend's own
// asks to it, so nothing adds the same id between the look and the add.
func (a *asks) addIfAbsent(id uint64, msg *limenv1.PendingAsk, wait time.Duration, expire func(id uint64)) {
	a.mu.Lock()
	_, ok := a.byID[id]
	a.mu.Unlock()
	if !ok {
		a.add(id, msg, wait, expire)
	}
}
