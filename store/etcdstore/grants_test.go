package etcdstore_test

import (
	"sync"
	"testing"
	"time"

	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/etcdstore"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
	"github.com/limenhq/limen/store/storetest"
	storev1 "github.com/limenhq/limen/store/storev1"
)

type grantEvent struct {
	g    store.Grant
	live bool
}

// TestGrantsLiveAndExpireByThemselves: an approval for the session stores
// its grants with the answer; another Store, watching, sees them, and one
// opened later lists them; when their lease ends, etcd deletes them and
// the watcher hears they expired, with no limend running a timer. An
// answer that loses (the ask was answered already) stores no grant.
func TestGrantsLiveAndExpireByThemselves(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	prefix := "/" + t.Name() + "/"
	a, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: cli, Prefix: prefix, GrantTTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	b, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: cli, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	ch := make(chan grantEvent, 16)
	if err := b.WatchGrants(t.Context(), func(g store.Grant, live bool) { ch <- grantEvent{g, live} }); err != nil {
		t.Fatal(err)
	}
	id := addAsk(t, a, "ana")
	g := store.Grant{User: "ana", Session: "s/1", Key: "Bash:npm run build"}
	rec := storetest.AnswerRecord(id, storev1.Choice_CHOICE_APPROVE)
	if _, err := a.AnswerGranting(id, rec, []store.Grant{g}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AnswerGranting(id, rec, []store.Grant{{User: "ana", Session: "s/1", Key: "Bash:rm -rf /"}}); err == nil {
		t.Fatal("a second answer to the same ask was stored")
	}
	select {
	case e := <-ch:
		if e != (grantEvent{g, true}) {
			t.Fatalf("watcher saw %+v; want %+v live", e, g)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the grant did not reach the other Store's watch in 5s")
	}
	// The watch goes on after it lists (it will see the expiry too), on a
	// goroutine of its own: what it listed is read under a lock.
	var mu sync.Mutex
	var listed []store.Grant
	if err := open(t, cli).WatchGrants(t.Context(), func(g store.Grant, live bool) {
		mu.Lock()
		defer mu.Unlock()
		if live {
			listed = append(listed, g)
		}
	}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(listed) != 1 || listed[0] != g {
		t.Errorf("a Store opened after the grant lists %v; want [%v]", listed, g)
	}
	mu.Unlock()
	start := time.Now()
	select {
	case e := <-ch:
		if e != (grantEvent{g, false}) {
			t.Fatalf("watcher saw %+v; want %+v expired", e, g)
		}
		t.Logf("a 1s grant expired after %v more", time.Since(start).Round(time.Millisecond))
	case <-time.After(10 * time.Second):
		t.Fatal("the 1s grant had not expired after 10s more")
	}
	select {
	case e := <-ch:
		t.Fatalf("watcher saw %+v; want nothing more (the losing answer granted nothing)", e)
	default:
	}
}
