package etcdtest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// ProcCluster is an etcd cluster whose members run as processes of their
// own (command member), so that a test can pause one with SIGSTOP.
type ProcCluster struct {
	t       testing.TB
	Members []*ProcMember
}

// ProcMember is one member process.
type ProcMember struct {
	Name      string
	ClientURL string
	cmd       *exec.Cmd
}

// StartProcesses builds command member and starts an n-member cluster of
// its processes on loopback, and waits until it has a leader. The
// processes are killed when the test ends.
func StartProcesses(t testing.TB, n int) *ProcCluster { return StartProcessesNiced(t, n, 0) }

// StartProcessesNiced is StartProcesses with the members run at the
// given niceness (nice(1)): at 19 they get the CPU only when the test's
// own process does not want it, which stands in, on one machine, for
// members on machines of their own (a benchmark of a replica's decisions
// then measures the replica, not the members' raft and WAL work).
func StartProcessesNiced(t testing.TB, n, niceness int) *ProcCluster {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "member")
	build := exec.Command("go", "build", "-o", bin, "github.com/limenhq/limen/store/etcdstore/etcdtest/member")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build etcd member: %v\n%s", err, out)
	}
	c := &ProcCluster{t: t}
	var peers []string
	peerURLs := make([]string, n)
	for i := range n {
		p, cl := freeURL(t), freeURL(t)
		name := fmt.Sprintf("p%d", i)
		peerURLs[i] = p.String()
		peers = append(peers, name+"="+p.String())
		c.Members = append(c.Members, &ProcMember{Name: name, ClientURL: cl.String()})
	}
	ready := make(chan string, n)
	for i, m := range c.Members {
		args := []string{bin, "-name", m.Name, "-dir", t.TempDir(), "-peer", peerURLs[i], "-client", m.ClientURL,
			"-cluster", strings.Join(peers, ","), "-token", t.Name()}
		if niceness != 0 {
			args = append([]string{"nice", "-n", strconv.Itoa(niceness)}, args...)
		}
		m.cmd = exec.Command(args[0], args[1:]...)
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		m.cmd.Stderr = w
		if err := m.cmd.Start(); err != nil {
			t.Fatalf("start member %s: %v", m.Name, err)
		}
		w.Close()
		t.Cleanup(func() {
			m.cmd.Process.Signal(syscall.SIGCONT)
			m.cmd.Process.Kill()
			m.cmd.Wait()
		})
		go func() {
			defer r.Close()
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				if strings.Contains(sc.Text(), "member ready") {
					ready <- m.Name
				}
			}
		}()
	}
	for range n {
		select {
		case <-ready:
		case <-time.After(30 * time.Second):
			t.Fatal("etcd member processes not ready after 30s")
		}
	}
	cli := c.Client()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := cli.Put(ctx, "/etcdtest/ready", "1")
		cancel()
		if err == nil {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("etcd member processes took no write after 20s: %v", err)
		}
	}
}

// Endpoints are every member's client URL.
func (c *ProcCluster) Endpoints() []string {
	var out []string
	for _, m := range c.Members {
		out = append(out, m.ClientURL)
	}
	return out
}

// Client returns a client of the given endpoints (every member's if none),
// closed when the test ends.
func (c *ProcCluster) Client(endpoints ...string) *clientv3.Client {
	c.t.Helper()
	if len(endpoints) == 0 {
		endpoints = c.Endpoints()
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		c.t.Fatalf("etcd client: %v", err)
	}
	c.t.Cleanup(func() { cli.Close() })
	return cli
}

// Leader returns the member that leads now, as the members report it.
func (c *ProcCluster) Leader() *ProcMember {
	cli := c.Client()
	for _, m := range c.Members {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		st, err := cli.Status(ctx, m.ClientURL)
		cancel()
		if err == nil && st.Leader == st.Header.MemberId {
			return m
		}
	}
	return nil
}

// Pause stops the member with SIGSTOP: its connections stay open and
// nothing answers on them, as on a hung machine.
func (m *ProcMember) Pause() { m.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused member (SIGCONT).
func (m *ProcMember) Resume() { m.cmd.Process.Signal(syscall.SIGCONT) }
