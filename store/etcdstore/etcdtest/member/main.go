// Command member runs one etcd member (etcd's embed package) as a process
// of its own, for tests that stop it with signals: SIGSTOP pauses it with
// its connections open, as a hung machine would, which no member inside
// the test's own process can show. etcdtest.StartProcesses builds and
// runs it; it is no tool for anything else.
package main

import (
	"flag"
	"log"
	"net/url"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

func main() {
	name := flag.String("name", "", "member name")
	dir := flag.String("dir", "", "data directory")
	peer := flag.String("peer", "", "peer URL")
	clientURL := flag.String("client", "", "client URL")
	cluster := flag.String("cluster", "", "initial cluster (name=peer,...)")
	token := flag.String("token", "", "initial cluster token")
	flag.Parse()
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir = *name, *dir
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.UnsafeNoFsync = true
	cfg.TickMs, cfg.ElectionMs = 50, 500
	p, err := url.Parse(*peer)
	if err != nil {
		log.Fatal(err)
	}
	c, err := url.Parse(*clientURL)
	if err != nil {
		log.Fatal(err)
	}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*p}, []url.URL{*p}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*c}, []url.URL{*c}
	cfg.InitialCluster, cfg.InitialClusterToken = *cluster, *token
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		log.Fatal(err)
	}
	<-e.Server.ReadyNotify()
	log.Print("member ready")
	log.Fatal(<-e.Err())
}
