package loadgen

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/convert"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// DecideCall asks limend to decide the stream's actions in turn, through the
// fail-closed Go client, exactly as an agent runtime would. Its outcome is
// the verdict ("allow", "ask", "block"); a call the client had to turn into
// ask is an error.
func DecideCall(c *client.Client, actions []Action) Call {
	var next atomic.Uint64
	return func(ctx context.Context, _ int, _ uint64) (string, error) {
		a := actions[(next.Add(1)-1)%uint64(len(actions))]
		v := c.Decide(ctx, a.Action)
		out := convert.VerdictName(v.Verdict)
		if v.Err != nil {
			return out + " (failed closed)", v.Err
		}
		return out, nil
	}
}

// HealthCall is the no-op baseline: the standard gRPC health Check on the
// same connection, which limend answers from memory. What Decide costs
// beyond it is limen's own work.
func HealthCall(c *client.Client) Call {
	req := &healthpb.HealthCheckRequest{}
	return func(ctx context.Context, _ int, _ uint64) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, client.DefaultTimeout)
		defer cancel()
		resp, err := c.Health.Check(ctx, req)
		if err != nil {
			return "error " + status.Code(err).String(), err
		}
		return strings.ToLower(resp.GetStatus().String()), nil
	}
}

// SeedResult says what Seed did.
type SeedResult struct {
	// Distinct is the number of distinct actions (user, tool, input, cwd).
	Distinct int `json:"distinct"`
	// Asked is, per pass, how many of them limend asked about.
	Asked    []int `json:"asked"`
	Approved int   `json:"approved"`
	Denied   int   `json:"denied"`
}

// Seed teaches limend the stream's answers, so that a benchmark measures
// mostly the decisions limen makes on its own (allow and block) rather than
// asks, which each cost a synchronous write. In each pass it decides every
// distinct action once and answers each ask as the stream's truth says; it
// stops after a pass in which at most 2% of the actions were asked (a few
// asks never go away: exploration and the risk classes keep asking), or
// after maxPasses. progress, if set, is called after each action, never
// concurrently.
func Seed(ctx context.Context, c *client.Client, actions []Action, maxPasses, concurrency int, progress func(done, total int)) (SeedResult, error) {
	distinct := distinctActions(actions)
	res := SeedResult{Distinct: len(distinct)}
	concurrency = max(concurrency, 1)
	total := len(distinct) * max(maxPasses, 1)
	var done atomic.Int64
	for pass := 0; pass < max(maxPasses, 1); pass++ {
		var (
			mu                      sync.Mutex
			asked, approved, denied int
			firstErr                error
			next                    atomic.Int64
			wg                      sync.WaitGroup
		)
		for range concurrency {
			wg.Go(func() {
				for {
					i := int(next.Add(1) - 1)
					if i >= len(distinct) || ctx.Err() != nil {
						return
					}
					a, ap, dn, err := seedOne(ctx, c, distinct[i])
					mu.Lock()
					asked, approved, denied = asked+a, approved+ap, denied+dn
					if err != nil && firstErr == nil {
						firstErr = err
					}
					if progress != nil {
						progress(int(done.Add(1)), total)
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		res.Asked = append(res.Asked, asked)
		res.Approved += approved
		res.Denied += denied
		if firstErr != nil {
			return res, fmt.Errorf("seed answers: %w", firstErr)
		}
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("seed answers: %w", err)
		}
		if asked*50 <= len(distinct) {
			break
		}
	}
	if progress != nil {
		progress(total, total)
	}
	return res, nil
}

func seedOne(ctx context.Context, c *client.Client, a Action) (asked, approved, denied int, err error) {
	ctx, cancel := context.WithTimeout(ctx, client.DefaultTimeout)
	defer cancel()
	resp, err := c.API.Decide(ctx, &limenv1.DecideRequest{Action: a.Action})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("decide: %w", err)
	}
	id := resp.GetDecision().GetAskId()
	if id == "" {
		return 0, 0, 0, nil
	}
	choice := limenv1.Choice_CHOICE_DENY
	if a.Approve {
		choice = limenv1.Choice_CHOICE_APPROVE
	}
	if _, err := c.API.Answer(ctx, &limenv1.AnswerRequest{AskId: id, Choice: choice, Note: "seeded by limenctl bench"}); err != nil {
		return 1, 0, 0, fmt.Errorf("answer ask %s: %w", id, err)
	}
	if a.Approve {
		return 1, 1, 0, nil
	}
	return 1, 0, 1, nil
}

// distinctActions returns the first occurrence of each distinct action.
func distinctActions(actions []Action) []Action {
	type key struct{ user, tool, input, cwd string }
	seen := make(map[key]bool, len(actions))
	var out []Action
	for _, a := range actions {
		k := key{a.Action.GetUser(), a.Action.GetTool(), a.Action.GetInputJson(), a.Action.GetCwd()}
		if !seen[k] {
			seen[k] = true
			out = append(out, a)
		}
	}
	return out
}
