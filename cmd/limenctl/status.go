package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/version"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func newStatusCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Check that limend is up and show what it is doing",
		Long: `status checks limend's health over its socket and shows the policy version
in force, its thresholds per risk class, and how many asks wait for a person.
It shows limenctl's build and limend's, and warns when they differ: the two
come from one source tree and should be installed together.
On a team's etcd (limend --store etcd) it also shows the cluster: the etcd
members and which leads, and every limend replica with the last answer and
revision it applied, the hash of its predictor's counts (equal on replicas
that learned alike) and whether its view is fresh (a stale one asks rather
than allows).
It exits 3 when limend cannot be reached, so it works as a probe.`,
		Example: `  limenctl status
  limenctl status --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runStatus(cmd, a) },
	}
}

// runStatus is limenctl status.
func runStatus(cmd *cobra.Command, a *app) error {
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	h, err := c.Health.Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		return err
	}
	pol, err := c.API.GetPolicy(ctx, &limenv1.GetPolicyRequest{})
	if err != nil {
		return err
	}
	pend, err := c.API.ListPending(ctx, &limenv1.ListPendingRequest{})
	if err != nil {
		return err
	}
	daemonVersion, err := limendVersion(ctx, c)
	if err != nil {
		return err
	}
	cluster, err := c.API.GetCluster(ctx, &limenv1.GetClusterRequest{})
	if status.Code(err) == codes.Unimplemented {
		cluster, err = nil, nil // a limend that predates GetCluster
	}
	if err != nil {
		return err
	}
	mine := version.Get()
	if a.json {
		type class struct {
			Name       string  `json:"name"`
			Allow      float64 `json:"c_allow"`
			Block      float64 `json:"c_block"`
			Ask        float64 `json:"c_ask"`
			BlockBelow float64 `json:"block_below"`
			AllowAbove float64 `json:"allow_above"`
		}
		classes := []class{}
		for _, c := range pol.GetPolicy().GetClasses() {
			classes = append(classes, class{c.GetName(), c.GetCosts().GetAllow(), c.GetCosts().GetBlock(), c.GetCosts().GetAsk(),
				c.GetThresholds().GetBlockBelow(), c.GetThresholds().GetAllowAbove()})
		}
		return a.printJSON(map[string]any{
			"socket": c.Socket(), "health": h.GetStatus().String(),
			"policy_version": pol.GetPolicy().GetVersion(), "pending": len(pend.GetAsks()),
			"classes":          classes,
			"limenctl_version": mine,
			"limend_version":   daemonVersion, // null when limend predates GetVersion
			"versions_match":   daemonVersion != nil && version.Same(mine, *daemonVersion),
			"cluster":          clusterJSON(cluster),
		})
	}
	w := a.table()
	fmt.Fprintf(w, "limend\t%s at %s\n", h.GetStatus(), c.Socket())
	fmt.Fprintf(w, "policy\tversion %d, set by %s\n", pol.GetPolicy().GetVersion(), pol.GetPolicy().GetAuthor())
	fmt.Fprintf(w, "pending asks\t%d\n", len(pend.GetAsks()))
	fmt.Fprintf(w, "limenctl version\t%s\n", mine)
	fmt.Fprintf(w, "limend version\t%s\n", versionText(daemonVersion))
	w.Flush()
	if warn := versionWarning(mine, daemonVersion); warn != "" {
		fmt.Fprintln(a.errOut, "limenctl: warning:", warn)
	}
	printClasses(a, pol.GetPolicy())
	printCluster(a, cluster)
	return nil
}

// clusterJSON is GetCluster's answer as limenctl status --json shows it
// (nil for a limend that predates GetCluster).
func clusterJSON(c *limenv1.GetClusterResponse) any {
	if c == nil {
		return nil
	}
	b, err := protojson.Marshal(c)
	if err != nil {
		return nil
	}
	return json.RawMessage(b)
}

// printCluster shows, for a limend on a team's etcd, the members (which
// leads, their revisions) and each replica: the last answer and revision
// it applied, the hash of its counts (equal when replicas learned alike)
// and how fresh its view is.
func printCluster(a *app, c *limenv1.GetClusterResponse) {
	if c.GetStore() != "etcd" {
		return
	}
	fmt.Fprintln(a.out)
	w := a.table()
	fmt.Fprintln(w, "ETCD MEMBER\tLEADER\tREVISION\tDB\tCLIENT URLS")
	for _, m := range c.GetMembers() {
		lead := ""
		if m.GetLeader() {
			lead = "leader"
		}
		if m.GetError() != "" {
			fmt.Fprintf(w, "%s\t\t-\t-\t%s (%s)\n", m.GetName(), strings.Join(m.GetClientUrls(), ","), m.GetError())
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%d MiB\t%s\n", m.GetName(), lead, m.GetRevision(), m.GetDbSize()>>20, strings.Join(m.GetClientUrls(), ","))
	}
	w.Flush()
	fmt.Fprintln(a.out)
	w = a.table()
	fmt.Fprintln(w, "REPLICA\tANSWER\tREVISION\tCOUNTS HASH\tFRESH\tREPORTED")
	reps := c.GetReplicas()
	if len(reps) == 0 {
		reps = []*limenv1.Replica{c.GetSelf()}
	}
	for _, r := range reps {
		name := r.GetName()
		if name == c.GetSelf().GetName() {
			name += " (this one)"
		}
		fresh := fmt.Sprintf("yes (%v ago)", r.GetFreshAge().AsDuration().Round(time.Millisecond))
		if !r.GetFresh() {
			fresh = fmt.Sprintf("NO: stale for %v, allows are asks", r.GetFreshAge().AsDuration().Round(time.Millisecond))
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\t%s\n", name, r.GetAppliedSeq(), r.GetAppliedRevision(), r.GetCountsHash(), fresh, r.GetReported().AsTime().Local().Format(time.TimeOnly))
	}
	w.Flush()
}

func printClasses(a *app, p *limenv1.Policy) {
	if len(p.GetClasses()) == 0 {
		return
	}
	fmt.Fprintln(a.out)
	w := a.table()
	fmt.Fprintln(w, "CLASS\tC_ALLOW\tC_BLOCK\tC_ASK\tBLOCK BELOW\tALLOW ABOVE")
	for _, c := range p.GetClasses() {
		fmt.Fprintf(w, "%s\t%g\t%g\t%g\t%.3f\t%.3f\n", c.GetName(), c.GetCosts().GetAllow(), c.GetCosts().GetBlock(), c.GetCosts().GetAsk(),
			c.GetThresholds().GetBlockBelow(), c.GetThresholds().GetAllowAbove())
	}
	w.Flush()
}

// limendVersion asks limend for its build; nil (and no error) means a
// limend older than the GetVersion call, which cannot say.
func limendVersion(ctx context.Context, c *client.Client) (*version.Info, error) {
	b, err := c.Version(ctx)
	if b == nil || err != nil {
		return nil, err
	}
	return &version.Info{Module: b.GetModule(), Commit: b.GetCommit(), Dirty: b.GetDirty(), Go: b.GetGo(), Platform: b.GetPlatform()}, nil
}

func versionText(v *version.Info) string {
	if v == nil {
		return "unknown (this limend predates GetVersion)"
	}
	return v.String()
}

// versionWarning says what to do when limenctl and limend are different
// builds, or "" when they are the same.
func versionWarning(mine version.Info, daemon *version.Info) string {
	if daemon != nil && version.Same(mine, *daemon) {
		return ""
	}
	return fmt.Sprintf("limenctl is %s but limend is %s: install both from one tree (go install github.com/limenhq/limen/cmd/...), then restart limend",
		mine, versionText(daemon))
}
